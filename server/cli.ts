// npm run db:migrate | db:seed | db:backup [file|-] | db:restore <file> [--replace] [--forget-secrets] [--unauthenticated] | secrets:rotate
import { randomBytes } from 'node:crypto';
import { closeSync, createWriteStream, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { BackupError, type Manifest, readManifest } from '#server/backup/archive.ts';
import { summarize, writeBackup } from '#server/backup/dump.ts';
import { requestLiveBackup } from '#server/backup/live.ts';
import { restoreBackup } from '#server/backup/restore.ts';
import { createKeyring, keyIdOf, prepareSecrets, resealSecrets, VaultError } from '#server/auth/vault.ts';
import { type BackupCommandConfig, backupKeyOf, ConfigError, type Config, encryptionKeyFile, loadBackupCommandConfig, loadConfig } from '#server/config.ts';
import { createLogger } from '#server/log.ts';
import { checkBucket } from '#server/storage/bucket-check.ts';
import { assertReachesFiles, readFilesLocation } from '#server/storage/location.ts';
import { createFileStore } from '#server/storage/store.ts';
import { type Database, hasTables, openDatabase } from '#server/db/client.ts';
import { hasCluster } from '#server/db/pglite-template.ts';
import { DatabaseLockedError } from '#server/db/lock.ts';
import { seedDemoWorkshop } from '#server/demo/seed.ts';

const [command, ...args] = process.argv.slice(2);
/** «1 account», «2 accounts»: the operator reads these lines. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const USAGE = 'usage: node server/cli.ts migrate | seed | backup [file|-] | restore <file> [--replace] [--forget-secrets] [--unauthenticated] | rotate-secrets';

/**
 * A backup of an installation whose files are in a bucket needs that bucket's settings (issue 30):
 * without them it would hold the rows of files it never reached. The bucket must answer, too.
 */
async function assertBackupReachesFiles(database: Database, config: BackupCommandConfig): Promise<void> {
  assertReachesFiles(await readFilesLocation(database.db), config.storage, 'backup');
  if (config.storage.kind !== 's3') return;
  const problem = await checkBucket(config.storage, { timeoutMs: 10_000 });
  if (problem) throw new ConfigError(`Invalid ${problem.setting}: ${problem.reason}`);
}

/**
 * The archive goes to a .partial file renamed at the end: a cut backup never looks whole. A backup
 * never makes a database: a DATA_DIR without one (mistyped, or a server never started) has nothing
 * to back up, said in one line before anything is created.
 */
async function backup(config: BackupCommandConfig): Promise<void> {
  const target = args[0];
  const file =
    target === '-' ? '-' : path.resolve(target ?? path.join(config.dataDir, 'backups', `atelier-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`));
  const dbDir = path.join(config.dataDir, 'db');
  if (!config.databaseUrl && !hasCluster(dbDir)) throw new BackupError(`No database in ${dbDir}: nothing to back up (is DATA_DIR right?)`);
  let database: Database | undefined;
  try {
    database = await openDatabase(config);
  } catch (error) {
    // The embedded database is open in the running server: it writes the archive itself.
    if (!(error instanceof DatabaseLockedError)) throw error;
  }
  try {
    if (database && !(await hasTables(database.db))) {
      throw new BackupError(`The database ${config.databaseUrl ? 'of DATABASE_URL' : `in ${dbDir}`} has no Atelier BVA tables: nothing to back up`);
    }
    if (database) await assertBackupReachesFiles(database, config);
    const partial = `${file}.partial`;
    let out: Writable = process.stdout;
    if (file !== '-') {
      mkdirSync(path.dirname(file), { recursive: true });
      out = createWriteStream(partial, { mode: 0o600 });
    }
    try {
      let manifest: Manifest | undefined;
      if (database) manifest = await writeBackup(database, { ...config, backupKey: backupKeyOf(config, true)! }, out);
      else await requestLiveBackup(config.dataDir, out);
      if (file !== '-') {
        await finished(out);
        const live = !manifest;
        manifest ??= await readManifest(partial);
        renameSync(partial, file);
        process.stderr.write(`Backup written to ${file} (${summarize(manifest, 'backup')}${live ? ', taken by the running server' : ''})\n`);
      }
    } catch (error) {
      if (file !== '-') rmSync(partial, { force: true });
      throw error;
    }
  } finally {
    await database?.close();
  }
}

const RESTORE_FLAGS = ['--replace', '--forget-secrets', '--unauthenticated'];

async function restore(config: BackupCommandConfig): Promise<void> {
  const file = args.find((a) => !a.startsWith('--'));
  const unknown = args.find((a) => a.startsWith('--') && !RESTORE_FLAGS.includes(a));
  if (!file || unknown) throw new ConfigError(USAGE);
  const result = await restoreBackup(path.resolve(file), config, {
    replace: args.includes('--replace'),
    forgetSecrets: args.includes('--forget-secrets'),
    unauthenticated: args.includes('--unauthenticated'),
  });
  const storage = result.manifest.storage;
  process.stderr.write(`Restored ${file}: ${summarize(result.manifest)}\n`);
  if (result.forgotten) {
    process.stderr.write(
      `Without the archive's encryption key: ${count(result.forgotten.apps, 'account')} lost their authenticator app and its recovery codes (they sign in with their password and may enrol again), ${count(result.forgotten.tokens, 'personal access token')} revoked, ${count(result.forgotten.messages, 'queued message')} whose link or code it sealed marked failed (their users ask for a new one)\n`,
    );
  }
  if (result.home.refused) {
    // The rows are in, but no instance will start on these settings: said as the start will say it.
    process.stderr.write(`The files' home is not this installation's, so a start on these settings is refused: ${result.home.refused}\n`);
    process.exitCode = 1;
  }
  if (result.home.error) {
    process.stderr.write(`Could not mark the files' home as this installation's (${result.home.error}): the first start claims it\n`);
  }
  if (storage.kind === 's3') {
    process.stderr.write(
      `Files are not in the archive: they stay in bucket ${storage.bucket}${storage.endpoint ? ` at ${storage.endpoint}` : ''}; point STORAGE_URL or S3_* at it\n`,
    );
  }
}

/** Replaces the key file whole (a crash leaves the old one or the new one, never half of one). */
function writeKeyFile(file: string, keys: string[]): void {
  const partial = `${file}.partial`;
  const fd = openSync(partial, 'w', 0o600);
  try {
    writeSync(fd, `${keys.join('\n')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, file);
}

/**
 * npm run secrets:rotate (decision 050). With ENCRYPTION_KEY: re-seals under it what
 * ENCRYPTION_KEY_PREVIOUS sealed. Without (the embedded mode's key file): makes a new key, kept
 * in the file beside the old one until every secret is re-sealed in one transaction, then alone.
 */
async function rotateSecrets(config: Config): Promise<void> {
  const fromFile = !process.env.ENCRYPTION_KEY;
  const file = encryptionKeyFile(config.dataDir);
  const database = await openDatabase(config);
  try {
    await database.migrate();
    await prepareSecrets(database.db, createKeyring(config.encryptionKeys));
    const keys = fromFile ? [randomBytes(48).toString('base64url'), ...config.encryptionKeys] : config.encryptionKeys;
    if (fromFile) writeKeyFile(file, keys);
    const count = await resealSecrets(database.db, createKeyring(keys));
    const id = keyIdOf(keys[0]!);
    if (fromFile) {
      writeKeyFile(file, [keys[0]!]);
      process.stderr.write(
        `Re-sealed ${count} secrets with the new encryption key ${id} in ${file}; the old key is gone: take a new backup, and keep this key with the backups, never inside them\n`,
      );
    } else {
      process.stderr.write(
        `Re-sealed ${count} secrets with encryption key ${id} (ENCRYPTION_KEY)${config.encryptionKeys.length > 1 ? ': ENCRYPTION_KEY_PREVIOUS can go from every instance now' : ''}\n`,
      );
    }
  } catch (error) {
    if (error instanceof VaultError) throw new ConfigError(`Invalid ENCRYPTION_KEY: ${error.message}`);
    throw error;
  } finally {
    await database.close();
  }
}

async function run(): Promise<void> {
  // Backups and restores read only what they use (issue 30): no session or token secret.
  if (command === 'backup' || command === 'restore') {
    const config = loadBackupCommandConfig(process.env, command);
    return command === 'backup' ? backup(config) : restore(config);
  }
  const config = loadConfig();
  if (command === 'rotate-secrets') return rotateSecrets(config);
  if (command !== 'migrate' && command !== 'seed') throw new ConfigError(USAGE);
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config);
  try {
    await database.migrate();
    if (command === 'migrate') {
      logger.info('migrations applied', { database: database.kind });
    } else {
      const files = createFileStore({ db: database.db, config, logger, sweeps: false });
      try {
        await seedDemoWorkshop(database.db, { files });
      } finally {
        await files.close();
      }
      logger.info('demo workshop loaded', { database: database.kind });
    }
  } finally {
    await database.close();
  }
}

try {
  await run();
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseLockedError || error instanceof BackupError || error instanceof Error) {
    process.stderr.write(`atelier-bva: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
