// Backups of the embedded database while the server runs (decision 035). The server holds the
// DATA_DIR lock, so `npm run db:backup` asks it for the archive over a Unix socket in
// DATA_DIR/secrets (mode 0700, like the secrets beside it): whoever may read the secrets may take
// a backup, and nobody else can reach the socket, from the network or another account.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { backupKeyOf, type Config } from '#server/config.ts';
import type { Database } from '#server/db/client.ts';
import type { Logger } from '#server/log.ts';
import { BackupError } from './archive.ts';
import { writeBackup } from './dump.ts';

export const socketPath = (dataDir: string) => path.join(dataDir, 'secrets', 'backup.sock');
// Linux refuses longer socket paths (sun_path is 108 bytes).
const MAX_SOCKET_PATH = 107;

/** Serves GET /backup on the socket; resolves to the function that stops it. */
export async function serveLiveBackups(
  database: Database,
  config: Pick<Config, 'dataDir' | 'storage' | 'backupKey' | 'databaseUrl'>,
  logger: Logger,
): Promise<() => Promise<void>> {
  const socket = socketPath(config.dataDir);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    logger.error('live backups are off: DATA_DIR is too long a path for their socket', { socket });
    return async () => {};
  }
  mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  // The archives' MAC key (decision 051): BACKUP_KEY, or DATA_DIR/secrets/backup made now.
  const signed = { ...config, backupKey: backupKeyOf(config, true)! };
  // We hold the database lock: a socket left here belongs to a process that died.
  rmSync(socket, { force: true });
  let running = false;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/backup') {
      res.writeHead(404).end();
      return;
    }
    if (running) {
      res.writeHead(409, { 'content-type': 'text/plain' }).end('a backup is already running\n');
      return;
    }
    running = true;
    const started = Date.now();
    res.writeHead(200, { 'content-type': 'application/gzip' });
    writeBackup(database, signed, res)
      .then((manifest) => logger.info('backup taken', { ms: Date.now() - started, tables: manifest.tables.length, files: manifest.storage.files }))
      .catch((error: Error) => {
        logger.error('backup failed', { error: error.message });
        // Cut the answer: the client sees an incomplete archive and keeps nothing.
        res.destroy(error);
      })
      .finally(() => {
        running = false;
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  chmodSync(socket, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      rmSync(socket, { force: true });
    });
}

/** Asks the server running on `dataDir` for an archive and writes it to `out`. */
export function requestLiveBackup(dataDir: string, out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socketPath(dataDir), path: '/backup', method: 'GET' }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => reject(new BackupError(`the running server refused the backup: ${body.trim() || res.statusCode}`)));
        return;
      }
      res.on('aborted', () => reject(new BackupError('the running server stopped in the middle of the backup')));
      res.on('error', () => reject(new BackupError('the running server stopped in the middle of the backup')));
      res.pipe(out);
      // The server cuts the answer when its backup fails: only a complete one counts.
      res.on('end', () => (res.complete ? resolve() : reject(new BackupError('the running server stopped in the middle of the backup'))));
      out.on('error', reject);
    });
    req.on('error', (error) =>
      reject(new BackupError(`the running server does not answer for backups (${(error as NodeJS.ErrnoException).code ?? error.message})`)),
    );
    req.end();
  });
}
