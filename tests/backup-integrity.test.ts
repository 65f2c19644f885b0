// Backup archives a restore must refuse before writing anything (issue 29, defect 4; decision 051):
// an archive edited by someone without the backup key, even with its checksums recomputed; an
// entry larger than its manifest says, or one it does not list (a few hundred KiB of gzip that
// would unpack to 250 MiB); an archive of the old format without authentication, unless the
// operator says so. And `db:backup` on PostgreSQL asks for no secret it does not use.
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { create, extract, Header } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '#server/backup/archive.ts';
import { loadConfig } from '#server/config.ts';
import { openDatabase, queryRows } from '#server/db/client.ts';
import { startTestApp, type TestApp } from './support/app.ts';

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(tmpdir(), 'atelier-integrity-'));
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  rmSync(work, { recursive: true, force: true });
});
const BACKUP_KEY = randomBytes(32).toString('hex');
const ENCRYPTION_KEY = randomBytes(32).toString('hex');
const MiB = 1024 * 1024;

/** The real CLI, as an operator runs it; `watch` is measured every few milliseconds meanwhile. */
function cli(args: string[], env: Record<string, string>, watch?: string) {
  const child = spawn(process.execPath, [path.join(root, 'server/cli.ts'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'error', ENCRYPTION_KEY, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let peak = 0;
  const timer = watch ? setInterval(() => (peak = Math.max(peak, bytesUnder(watch))), 5) : undefined;
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ status: number | null; stderr: string; peak: number }>((resolve) =>
    child.on('exit', (status) => {
      clearInterval(timer);
      resolve({ status, stderr, peak });
    }),
  );
}

/** Bytes of the regular files under `dir` right now (files come and go while we look). */
function bytesUnder(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      const stat = statSync(path.join(dir, name));
      total += stat.isDirectory() ? bytesUnder(path.join(dir, name)) : stat.size;
    } catch {}
  }
  return total;
}

const fresh = (name: string) => {
  const dir = path.join(work, name);
  mkdirSync(dir);
  return dir;
};

type Part = { name: string; bytes: Buffer } | { name: string; zeros: number };

/** A .tar.gz written entry by entry, so that an entry may be 250 MiB of zeros that never touch the disk. */
async function writeTarGz(file: string, parts: Part[]): Promise<void> {
  const gzip = createGzip();
  const out = gzip.pipe(createWriteStream(file));
  const write = async (chunk: Buffer) => {
    if (!gzip.write(chunk)) await once(gzip, 'drain');
  };
  const zeros = Buffer.alloc(MiB);
  for (const part of parts) {
    const size = 'bytes' in part ? part.bytes.length : part.zeros;
    const header = new Header({ path: part.name, mode: 0o644, size, mtime: new Date(), type: 'File', uid: 0, gid: 0 });
    header.encode();
    await write(header.block!);
    if ('bytes' in part) await write(part.bytes);
    else for (let left = size; left > 0; left -= MiB) await write(left >= MiB ? zeros : zeros.subarray(0, left));
    if (size % 512) await write(Buffer.alloc(512 - (size % 512)));
  }
  await write(Buffer.alloc(1024));
  gzip.end();
  await once(out, 'close');
}

describe('backup archives a restore refuses', { timeout: 180_000 }, () => {
  let source: TestApp;
  let archive: string;
  let unpacked: string;
  let manifest: Manifest;
  /** The archive's own entries, in its order (manifest first). */
  let names: string[];

  beforeAll(async () => {
    source = await startTestApp('pglite', { encryptionKeys: [ENCRYPTION_KEY], backupKey: BACKUP_KEY });
    closing.push(() => source.close());
    // The audit trail a forger would rather not restore (decision 034).
    await source.database.db.execute(
      sql`insert into audit.events (actor_name, actor_email, action, entity_kind, entity_id, entity_label, parent_kind, parent_id, parent_label)
        select 'Admin', 'admin@demo.local', 'update', 'user', id, email, 'user', id, email from auth.users`,
    );
    archive = path.join(work, 'demo.tar.gz');
    const backup = await cli(['backup', archive], { DATA_DIR: source.config.dataDir });
    expect(backup.status).toBe(0);
    unpacked = fresh('unpacked');
    names = [];
    await extract({ file: archive, cwd: unpacked, onReadEntry: (entry) => names.push(entry.path) });
    manifest = JSON.parse(readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));
  });

  const partsOf = (list: string[]): Part[] => list.map((name) => ({ name, bytes: readFileSync(path.join(unpacked, name)) }));

  it('refuses an archive edited without the backup key, checksums recomputed and all: --replace leaves the audit trail as it was', async () => {
    const dataDir = fresh('audited');
    const env = { DATA_DIR: dataDir, BACKUP_KEY };
    expect((await cli(['restore', archive], env)).status).toBe(0);
    const countEvents = async () => {
      const database = await openDatabase(loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY }));
      try {
        const [row] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from audit.events`);
        return row!.n;
      } finally {
        await database.close();
      }
    };
    const events = await countEvents();
    expect(events).toBeGreaterThan(0);

    // A forger empties the audit trail and recomputes the manifest's checksum and count, as the
    // format documents them: only the backup key could make the manifest's MAC.
    const entry = 'data/audit.events.ndjson';
    const forged = structuredClone(manifest);
    forged.entries[entry] = { bytes: 0, sha256: createHash('sha256').update('').digest('hex') };
    forged.tables.find((t) => t.name === 'audit.events')!.rows = 0;
    const file = path.join(work, 'forged.tar.gz');
    await writeTarGz(file, [
      { name: 'manifest.json', bytes: Buffer.from(JSON.stringify(forged, null, 2)) },
      ...partsOf(names.filter((n) => n !== 'manifest.json')).map((p) => (p.name === entry ? { name: entry, bytes: Buffer.alloc(0) } : p)),
    ]);
    const result = await cli(['restore', file, '--replace'], env);
    expect(result.stderr).toBe(
      `atelier-bva: The archive ${file} was altered since it was written, or written with another backup key (its manifest does not match its MAC): refused\n`,
    );
    expect(result.status).toBe(1);
    expect(await countEvents()).toBe(events);
  });

  it('refuses an entry larger than its manifest says while reading it: the disk never holds more than the manifest declares', async () => {
    const [photo] = Object.entries(manifest.entries).filter(([name]) => name.startsWith('files/'));
    const declared = Object.values(manifest.entries).reduce((sum, e) => sum + e.bytes, 0);
    const file = path.join(work, 'bomb.tar.gz');
    // The manifest and its MAC untouched: the photo's bytes become 250 MiB of zeros.
    await writeTarGz(file, [
      ...partsOf(names.filter((n) => n.startsWith('manifest.'))),
      { name: photo![0], zeros: 250 * MiB },
      ...partsOf(names.filter((n) => !n.startsWith('manifest.') && n !== photo![0])),
    ]);
    // 250 MiB in under 400 KiB more than the honest archive (whose demo photos do not compress).
    const size = statSync(file).size;
    expect(size - statSync(archive).size).toBeLessThan(400 * 1024);
    const dataDir = fresh('bomb');
    const result = await cli(['restore', file], { DATA_DIR: dataDir, BACKUP_KEY }, dataDir);
    console.log(`hostile archive of ${(size / 1024).toFixed(0)} KiB: peak ${(result.peak / MiB).toFixed(2)} MiB under DATA_DIR, ${declared} bytes declared`);
    expect(result.stderr).toBe(
      `atelier-bva: The archive ${file} is damaged or incomplete (${photo![0]} holds ${250 * MiB} bytes where its manifest says ${photo![1].bytes}): use another backup\n`,
    );
    expect(result.status).toBe(1);
    expect(result.peak).toBeLessThan(declared + MiB);
    expect(existsSync(path.join(dataDir, 'files')) ? readdirSync(path.join(dataDir, 'files')) : []).toEqual([]);
  });

  it('refuses an entry its manifest does not list before writing it', async () => {
    const stranger = `files/${randomUUID()}`;
    const declared = Object.values(manifest.entries).reduce((sum, e) => sum + e.bytes, 0);
    const file = path.join(work, 'stranger.tar.gz');
    await writeTarGz(file, [...partsOf(names), { name: stranger, zeros: 250 * MiB }]);
    const dataDir = fresh('stranger');
    const result = await cli(['restore', file], { DATA_DIR: dataDir, BACKUP_KEY }, dataDir);
    expect(result.stderr).toBe(`atelier-bva: The archive ${file} is damaged or incomplete (${stranger} is not in the manifest): use another backup\n`);
    expect(result.status).toBe(1);
    expect(result.peak).toBeLessThan(declared + MiB);
  });

  it('refuses an archive of the old format, without a MAC, unless the operator adds --unauthenticated', async () => {
    const old = structuredClone(manifest);
    old.formatVersion = 1;
    const file = path.join(work, 'format-1.tar.gz');
    const dir = fresh('format-1');
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(old, null, 2));
    for (const name of Object.keys(old.entries)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), readFileSync(path.join(unpacked, name)));
    }
    await create({ gzip: true, file, cwd: dir, portable: true }, ['manifest.json', ...Object.keys(old.entries)]);
    const dataDir = fresh('old-format');
    const refused = await cli(['restore', file], { DATA_DIR: dataDir });
    expect(refused.stderr).toBe(
      `atelier-bva: The archive ${file} has backup format 1, which nothing authenticates: restore it only if you know where it has been, with --unauthenticated\n`,
    );
    expect(refused.status).toBe(1);
    const restored = await cli(['restore', file, '--unauthenticated'], { DATA_DIR: dataDir });
    expect(restored.stderr).toMatch(/^Restored .+format-1\.tar\.gz: \d+ rows in \d+ tables/);
    expect(restored.status).toBe(0);
  });

  it('refuses an archive when this installation has no backup key, or another one, and says which key it needs', async () => {
    const id = JSON.parse(readFileSync(path.join(unpacked, 'manifest.hmac'), 'utf8')).keyId;
    expect(id).toMatch(/^[A-Za-z0-9_-]{8}$/);
    const none = await cli(['restore', archive], { DATA_DIR: fresh('no-key') });
    expect(none.stderr).toBe(
      `atelier-bva: The archive ${archive} is authenticated with backup key ${id}, and this installation has none: set BACKUP_KEY to the backup key of the installation it came from (or copy its DATA_DIR/secrets/backup), then restore\n`,
    );
    expect(none.status).toBe(1);
    const other = await cli(['restore', archive], { DATA_DIR: fresh('other-key'), BACKUP_KEY: 'o'.repeat(40) });
    expect(other.stderr).toMatch(
      new RegExp(
        `^atelier-bva: The archive ${archive} is authenticated with backup key ${id}, not this installation's \\([A-Za-z0-9_-]{8}\\): set BACKUP_KEY to the backup key of the installation it came from \\(or copy its DATA_DIR/secrets/backup\\), then restore\n$`,
      ),
    );
    expect(other.status).toBe(1);
  });

  it('takes a backup of PostgreSQL with DATABASE_URL and BACKUP_KEY alone: no session, token or encryption secret', async () => {
    const postgres = await startTestApp('postgres', { env: { DEMO_DATA: '0', ADMIN_EMAIL: 'chef@garage.fr', ADMIN_PASSWORD: 'Chef-Garage-2026!' } });
    closing.push(() => postgres.close());
    const env = { DATA_DIR: fresh('pg-backup'), DATABASE_URL: postgres.config.databaseUrl!, ENCRYPTION_KEY: '' };
    const missing = await cli(['backup', path.join(work, 'pg.tar.gz')], env);
    expect(missing.stderr).toBe('atelier-bva: Missing BACKUP_KEY: it is required when DATABASE_URL is set\n');
    expect(missing.status).toBe(1);
    const taken = await cli(['backup', path.join(work, 'pg.tar.gz')], { ...env, BACKUP_KEY });
    expect(taken.stderr).toMatch(/^Backup written to /);
    expect(taken.status).toBe(0);
  });

  it("refuses a backup of PostgreSQL whose DATA_DIR holds none of the files the rows name (not the app's)", async () => {
    const postgres = await startTestApp('postgres');
    closing.push(() => postgres.close());
    const archive = path.join(work, 'pg-files.tar.gz');
    const env = { DATABASE_URL: postgres.config.databaseUrl!, ENCRYPTION_KEY: '', BACKUP_KEY };
    const elsewhere = fresh('pg-wrong-data-dir');
    const wrong = await cli(['backup', archive], { ...env, DATA_DIR: elsewhere });
    expect(wrong.stderr).toMatch(
      new RegExp(`^atelier-bva: Invalid DATA_DIR: none of the \\d+ files named by rows is in ${elsewhere}/files: run the backup with the app's DATA_DIR\n$`),
    );
    expect(wrong.status).toBe(1);
    expect(existsSync(archive)).toBe(false);
    const taken = await cli(['backup', archive], { ...env, DATA_DIR: postgres.config.dataDir });
    expect(taken.stderr).toMatch(/^Backup written to .+ files copied from disk/);
    expect(taken.status).toBe(0);
  });
});
