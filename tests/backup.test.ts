// Backups as an operator takes and restores them (decision 035): `node server/cli.ts backup`
// and `restore`, from the embedded database to a PostgreSQL server and back, with the stored
// files, while the server runs; and the archives a restore must refuse.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  copyFileSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { create, extract } from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import journal from '#server/db/migrations/meta/_journal.json' with { type: 'json' };
import { type Manifest, signManifest } from '#server/backup/archive.ts';
import { isEmpty } from '#server/backup/catalog.ts';
import { writeBackup } from '#server/backup/dump.ts';
import { restoreBackup } from '#server/backup/restore.ts';
import { loadConfig } from '#server/config.ts';
import { openDatabase, queryRows, type Db } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { createPostgresDatabase, type DatabaseKind, postJson, startTestApp, type TestApp } from './support/app.ts';
import { pdf, png } from './support/fixtures.ts';

/** The newest migration, which every archive names. */
const LATEST = journal.entries.at(-1)!.tag;

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(tmpdir(), 'atelier-backup-'));
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  rmSync(work, { recursive: true, force: true });
});
const secrets = { JWT_SECRET: 'j'.repeat(40), SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'k'.repeat(40), BACKUP_KEY: 'b'.repeat(40) };
/** Every installation of these tests shares one encryption key and one backup key: a restore needs the archive's (decisions 050, 051). */
const start = (kind: DatabaseKind, overrides: Parameters<typeof startTestApp>[1] = {}) =>
  startTestApp(kind, { encryptionKeys: [secrets.ENCRYPTION_KEY], backupKey: secrets.BACKUP_KEY, ...overrides });

/** The real CLI, as cron would run it. */
function cli(args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, 'server/cli.ts'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'error', ENCRYPTION_KEY: secrets.ENCRYPTION_KEY, BACKUP_KEY: secrets.BACKUP_KEY, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, stderr, ms: Date.now() - started })));
}

/** Per table: its row count and a checksum of its rows, the same text on both databases. */
async function contentOf(db: Db): Promise<Record<string, string>> {
  const tables = await queryRows<{ name: string }>(
    db,
    sql`select table_schema || '.' || table_name as name from information_schema.tables
      where table_schema in ('auth', 'storage', 'public') and table_type = 'BASE TABLE' and table_name not in ('challenges', 'rate_counters') order by 1`,
  );
  const content: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await queryRows<{ n: number; sum: string }>(
      db,
      sql.raw(`select count(*)::int as n, md5(coalesce(string_agg(to_jsonb(t)::text, E'\\n' order by to_jsonb(t)::text), '')) as sum from ${name} t`),
    );
    content[name] = `${row!.n} ${row!.sum}`;
  }
  const [sequence] = await queryRows<{ v: string }>(db, sql`select last_value::text as v from public.stock_items_number_seq`);
  content['public.stock_items_number_seq'] = sequence!.v;
  return content;
}

/** Every stored file's bytes as the storage API serves them to an admin. */
async function filesOf(t: TestApp): Promise<Record<string, string>> {
  const token = (await postJson(`${t.url}/api/auth/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD })).body.session.accessToken;
  const ids = await queryRows<{ id: string }>(t.database.db, sql`select id::text as id from storage.files order by id`);
  const bytes: Record<string, string> = {};
  for (const { id } of ids) {
    const res = await fetch(`${t.url}/api/storage/files/${id}`, { headers: { authorization: `Bearer ${token}` } });
    bytes[id] = `${res.status} ${createHash('sha256')
      .update(Buffer.from(await res.arrayBuffer()))
      .digest('hex')}`;
  }
  return bytes;
}

/** A photo uploaded through the storage API, beside the demo's curves. */
async function upload(t: TestApp): Promise<void> {
  const token = (await postJson(`${t.url}/api/auth/signin/email-password`, { email: 'diagnostic@demo.local', password: DEMO_PASSWORD })).body.session
    .accessToken;
  const form = new FormData();
  form.append('file[]', new Blob([new Uint8Array(png())]), 'boitier.png');
  form.append('metadata[]', new Blob([JSON.stringify({ name: 'boitier.png' })], { type: 'application/json' }), '');
  form.append('bucket-id', 'measure');
  const res = await fetch(`${t.url}/api/storage/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(201);
}

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const isFileId = (name: string) => /^[0-9a-f-]{36}$/.test(name);

const fresh = (name: string) => {
  const dir = path.join(work, name);
  mkdirSync(dir);
  return dir;
};

/**
 * Rewrites an archive's manifest (and entries) as a future version, a damaged disk or someone
 * holding the backup key would: the manifest signed again with the key (forgers without it:
 * backup-integrity.test.ts).
 */
async function tamper(archive: string, name: string, change: (manifest: Manifest, dir: string) => void): Promise<string> {
  const dir = fresh(`${name}-x`);
  await extract({ file: archive, cwd: dir });
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  change(manifest, dir);
  const bytes = Buffer.from(JSON.stringify(manifest));
  writeFileSync(path.join(dir, 'manifest.json'), bytes);
  writeFileSync(path.join(dir, 'manifest.hmac'), signManifest(secrets.BACKUP_KEY, bytes));
  const file = path.join(work, `${name}.tar.gz`);
  await create({ gzip: true, file, cwd: dir }, ['manifest.json', 'manifest.hmac', ...Object.keys(manifest.entries)]);
  return file;
}

describe('backups', { timeout: 180_000 }, () => {
  let archive: string;
  let broken: string;
  let expected: { content: Record<string, string>; files: Record<string, string> };

  it('takes a running PGlite server to PostgreSQL with the real CLI: the same rows and file bytes', async () => {
    const source = await start('pglite');
    closing.push(() => source.close());
    await upload(source);
    // Files first: reading them signs in, which writes rows the backup must then hold.
    const files = await filesOf(source);
    expected = { content: await contentOf(source.database.db), files };
    expect(Object.keys(expected.files).length).toBeGreaterThan(30);
    expect(Object.values(expected.files).every((v) => v.startsWith('200 '))).toBe(true);

    // This process holds DATA_DIR's lock: the CLI asks the server for the archive.
    archive = path.join(work, 'pglite.tar.gz');
    const backup = await cli(['backup', archive], { DATA_DIR: source.config.dataDir });
    // The demo's photos (decision 088) make the files a few hundred kB: the size is said, whatever it is.
    expect(backup.stderr).toMatch(
      new RegExp(
        `^Backup written to ${archive} \\(\\d+ rows in 38 tables, ${Object.keys(expected.files).length} files copied from disk \\(\\d+\\.\\d MB\\), migration ${LATEST}, taken by the running server\\)\n$`,
      ),
    );
    expect(backup.status).toBe(0);
    expect(source.logLines.find((l) => l.msg === 'backup taken')).toMatchObject({ files: Object.keys(expected.files).length });
    // Only the server's own account reaches the socket: no port, no password.
    expect(statSync(path.join(source.config.dataDir, 'secrets/backup.sock')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(source.config.dataDir, 'secrets')).mode & 0o777).toBe(0o700);
    // The server still answers afterwards.
    expect((await fetch(`${source.url}/readyz`)).status).toBe(200);

    const databaseUrl = await createPostgresDatabase();
    const dataDir = fresh('to-postgres');
    const restore = await cli(['restore', archive], { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ...secrets });
    expect(restore.stderr).toMatch(
      new RegExp(String.raw`^Restored .+pglite\.tar\.gz: \d+ rows in 38 tables, \d+ files \(\d+\.\d MB\), migration ${LATEST}\n$`),
    );
    expect(restore.status).toBe(0);
    console.log(`PGlite → PostgreSQL: backup ${backup.ms} ms, restore ${restore.ms} ms, archive ${readFileSync(archive).length} bytes`);

    const restored = await start('postgres', { databaseUrl, dataDir });
    closing.push(() => restored.close());
    expect(await contentOf(restored.database.db)).toEqual(expected.content);
    // The demo's photos and their thumbnails (decision 088) read back byte for byte.
    const photos = await queryRows<{ id: string }>(
      restored.database.db,
      sql`select file_id::text as id from public.order_files where kind = 'photo' union all select thumbnail_id::text from public.order_files where kind = 'photo'`,
    );
    expect(photos.length).toBeGreaterThanOrEqual(8);
    for (const { id } of photos) {
      const original = await source.app.services.files.blobs.read(id);
      expect(original).not.toBeNull();
      expect(await restored.app.services.files.blobs.read(id), `photo ${id}`).toEqual(original);
    }
    expect(await filesOf(restored)).toEqual(expected.files);
  });

  it('takes PostgreSQL to a new PGlite DATA_DIR with the real CLI', async () => {
    const source = await start('postgres');
    closing.push(() => source.close());
    await upload(source);
    const files = await filesOf(source);
    const before = { content: await contentOf(source.database.db), files };

    const file = path.join(work, 'postgres.tar.gz');
    const env = { DATA_DIR: source.config.dataDir, DATABASE_URL: source.config.databaseUrl!, ...secrets };
    const backup = await cli(['backup', file], env);
    expect(backup.stderr).toMatch(
      new RegExp(String.raw`^Backup written to .+ \(\d+ rows in 38 tables, \d+ files copied from disk \(\d+\.\d MB\), migration ${LATEST}\)\n$`),
    );
    expect(backup.status).toBe(0);

    const dataDir = fresh('to-pglite');
    const restore = await cli(['restore', file], { DATA_DIR: dataDir });
    expect(restore.status).toBe(0);
    console.log(`PostgreSQL → PGlite: backup ${backup.ms} ms, restore ${restore.ms} ms`);

    const restored = await start('pglite', { dataDir });
    closing.push(() => restored.close());
    expect(await contentOf(restored.database.db)).toEqual(before.content);
    expect(await filesOf(restored)).toEqual(before.files);
    // A workshop signs in on the new machine.
    expect((await postJson(`${restored.url}/api/auth/signin/email-password`, { email: 'mecanicien@demo.local', password: DEMO_PASSWORD })).status).toBe(200);

    // Uploads go on during a backup: the archive is one moment, each row with its bytes.
    let writing = true;
    const writer = (async () => {
      let uploads = 0;
      while (writing) {
        await upload(source);
        uploads += 1;
      }
      return uploads;
    })();
    const during = path.join(work, 'during.tar.gz');
    const busy = await cli(['backup', during], env);
    writing = false;
    const uploads = await writer;
    expect(busy.status).toBe(0);
    const target = loadConfig({ ...secrets }, { dataDir: fresh('during'), databaseUrl: await createPostgresDatabase() });
    const result = await restoreBackup(during, target);
    const rowsOfFiles = result.manifest.tables.find((t) => t.name === 'storage.files')!.rows;
    expect(result.manifest.storage).toMatchObject({ kind: 'disk', files: rowsOfFiles, missing: [] });
    expect(readdirSync(path.join(target.dataDir, 'files')).filter((f) => /^[0-9a-f-]{36}$/.test(f))).toHaveLength(rowsOfFiles);
    console.log(`PostgreSQL backup during ${uploads} uploads: ${busy.ms} ms, ${rowsOfFiles} files`);
  });

  it('with S3 storage, names the bucket instead of holding the files, and restores the rows', async () => {
    const source = await start('pglite', { env: { DEMO_DATA: '0', ADMIN_EMAIL: 'chef@garage.fr', ADMIN_PASSWORD: 'Chef-Garage-2026!' } });
    closing.push(() => source.close());
    await source.database.db.execute(
      sql`insert into storage.files (bucket_id, name, size, mime_type, etag) values ('documents', 'notice.pdf', 1234, 'application/pdf', '"e1"')`,
    );
    const s3 = {
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'atelier-files',
      region: 'eu-west-3',
      credentials: undefined,
      forcePathStyle: true,
      presignedUrls: 'app',
    } as const;
    const file = path.join(work, 's3.tar.gz');
    const manifest = await writeBackup(
      source.database,
      { dataDir: source.config.dataDir, storage: s3, backupKey: secrets.BACKUP_KEY },
      createWriteStream(file),
    );
    expect(manifest.storage).toEqual({ kind: 's3', endpoint: 'http://127.0.0.1:9000', bucket: 'atelier-files', region: 'eu-west-3', files: 1, bytes: 1234 });
    expect(Object.keys(manifest.entries).filter((e) => e.startsWith('files/'))).toEqual([]);

    // No bucket answers there: the restore says it could not claim it (decision 057), and succeeds.
    const restore = await cli(['restore', file], { DATA_DIR: fresh('from-s3'), S3_ENDPOINT: 'http://127.0.0.1:9000', S3_BUCKET: 'atelier-files' });
    expect(restore.stderr).toMatch(
      new RegExp(
        String.raw`^Restored .+: \d+ rows in 38 tables, 1 files left in bucket atelier-files at http:\/\/127\.0\.0\.1:9000, migration ${LATEST}\nCould not mark the files' home as this installation's \(bucket atelier-files at http:\/\/127\.0\.0\.1:9000: [^\n]+\): the first start claims it\nFiles are not in the archive: they stay in bucket atelier-files at http:\/\/127\.0\.0\.1:9000; point STORAGE_URL or S3_\* at it\n$`,
      ),
    );
    expect(restore.status).toBe(0);
    // An archive holding files for the disk does not go to an instance that keeps them in a bucket.
    const refused = await cli(['restore', archive], { DATA_DIR: fresh('disk-to-s3'), S3_BUCKET: 'atelier-files' });
    expect(refused.stderr).toMatch(
      /^atelier-bva: This backup holds \d+ files for the disk while this instance keeps files in bucket atelier-files: restore with disk storage/,
    );
    expect(refused.status).toBe(1);
  });

  it('refuses a target that is not empty, unless --replace, which swaps its content whole', async () => {
    const dataDir = fresh('not-empty');
    const config = loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: secrets.ENCRYPTION_KEY, BACKUP_KEY: secrets.BACKUP_KEY });
    await restoreBackup(archive, config);
    const again = await cli(['restore', archive], { DATA_DIR: dataDir });
    expect(again.stderr).toBe(
      `atelier-bva: The target database in ${path.join(dataDir, 'db')} is not empty: restore onto an empty one, or add --replace to drop what it holds\n`,
    );
    expect(again.status).toBe(1);

    const database = await openDatabase(config);
    await database.db.execute(sql`delete from public.stock_movements where id in (select id from public.stock_movements limit 10)`);
    await database.close();
    const replaced = await cli(['restore', archive, '--replace'], { DATA_DIR: dataDir });
    expect(replaced.status).toBe(0);
    const after = await openDatabase(config);
    try {
      expect(await contentOf(after.db)).toEqual(expected.content);
    } finally {
      await after.close();
    }
  });

  it('refuses a damaged, truncated, altered or newer archive, or one holding a link, with one line, and leaves the target empty', async () => {
    const bytes = readFileSync(archive);
    const flipped = path.join(work, 'flipped.tar.gz');
    const copy = Buffer.from(bytes);
    copy[Math.floor(copy.length / 2)]! ^= 0xff;
    writeFileSync(flipped, copy);
    const truncated = path.join(work, 'truncated.tar.gz');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    // A row edited in place, as long as before, the manifest left as it was: the checksum tells.
    const edited = await tamper(archive, 'edited', (_m, dir) => {
      const users = path.join(dir, 'data/auth.users.ndjson');
      writeFileSync(users, readFileSync(users, 'utf8').replace('admin@demo.local', 'malin@demo.local'));
    });
    const newer = await tamper(archive, 'newer', (m) => {
      m.database.migration = { index: 99, tag: '0099_future', createdAt: m.database.migration.createdAt + 1, hash: 'x' };
      m.app.version = '9.0.0';
    });

    // A link in place of a file's bytes would restore any file of the machine as a workshop file.
    let linked = '';
    const link = await tamper(archive, 'link', (m, dir) => {
      linked = Object.keys(m.entries).find((e) => e.startsWith('files/'))!;
      rmSync(path.join(dir, linked));
      symlinkSync('/etc/hostname', path.join(dir, linked));
    });

    // A manifest that loads a table from another entry, or from a file outside the archive.
    const elsewhere = await tamper(archive, 'elsewhere', (m) => {
      m.tables[0]!.entry = '../../../../../../../../../etc/hostname';
    });
    const otherEntry = await tamper(archive, 'other-entry', (m) => {
      m.tables[0]!.entry = m.tables[1]!.entry;
    });

    const dataDir = fresh('refusals');
    const cases: [string, RegExp][] = [
      [
        elsewhere,
        /^atelier-bva: The archive .+elsewhere\.tar\.gz is damaged or incomplete \(the manifest reads table \w+\.\w+ from (\.\.\/)+etc\/hostname\): use another backup\n$/,
      ],
      [
        otherEntry,
        /^atelier-bva: The archive .+other-entry\.tar\.gz is damaged or incomplete \(the manifest reads table \w+\.\w+ from data\/\w+\.\w+\.ndjson\): use another backup\n$/,
      ],
      [flipped, /^atelier-bva: The archive .+flipped\.tar\.gz is damaged or incomplete \(.+\): use another backup\n$/],
      [truncated, /^atelier-bva: The archive .+truncated\.tar\.gz is damaged or incomplete \(.+\): use another backup\n$/],
      [
        edited,
        /^atelier-bva: The archive .+edited\.tar\.gz is damaged or incomplete \(the checksum of data\/auth\.users\.ndjson differs\): use another backup\n$/,
      ],
      [
        newer,
        new RegExp(
          String.raw`^atelier-bva: This backup is at migration 0099_future, newer than this version of Atelier BVA \(${LATEST}\): install version 9\.0\.0 or newer, then restore\n$`,
        ),
      ],
      [link, new RegExp(`^atelier-bva: The archive .+link\\.tar\\.gz holds ${linked}, which no backup of Atelier BVA holds: refused\n$`)],
    ];
    for (const [file, line] of cases) {
      const result = await cli(['restore', file], { DATA_DIR: dataDir });
      expect(result.stderr).toMatch(line);
      expect(result.status).toBe(1);
    }
    // Not a byte: no database, no staging directory, no key file made for the occasion.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('writes nothing when a row cannot load: the database stays empty and no file is left', async () => {
    // A well-formed archive whose file link names a file no row has: the foreign key refuses it.
    broken = await tamper(archive, 'broken', (m, dir) => {
      const entry = 'data/public.order_files.ndjson';
      const file = path.join(dir, entry);
      const lines = readFileSync(file, 'utf8').split('\n');
      lines[lines.length - 2] = lines.at(-2)!.replace(/"file_id": "[0-9a-f-]+"/, '"file_id": "00000000-0000-4000-8000-000000000000"');
      writeFileSync(file, lines.join('\n'));
      const data = readFileSync(file);
      m.entries[entry] = { bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
    });
    const dataDir = fresh('failed');
    const result = await cli(['restore', broken], { DATA_DIR: dataDir });
    expect(result.stderr).toMatch(
      /^atelier-bva: The restore failed and wrote nothing: insert or update on table "order_files" violates foreign key constraint "\w+" \(Key \(file_id\)=\(00000000-0000-4000-8000-000000000000\) is not present in table "files"\.\)\n$/,
    );
    expect(result.status).toBe(1);
    // The fresh DATA_DIR is as it was: what the restore created (the database, the files, the stage) is gone.
    expect(readdirSync(dataDir)).toEqual([]);
    // On PostgreSQL, the one transaction leaves the database as it found it: not even the migrations' schemas.
    const target = loadConfig({ ...secrets }, { dataDir: fresh('failed-postgres'), databaseUrl: await createPostgresDatabase() });
    await expect(restoreBackup(broken, target)).rejects.toThrow(/^The restore failed and wrote nothing: .+violates foreign key constraint/);
    const database = await openDatabase(target);
    try {
      expect(await isEmpty(database.db)).toBe(true);
      const schemas = await queryRows<{ name: string }>(
        database.db,
        sql`select nspname as name from pg_namespace where nspname in ('auth', 'storage', 'drizzle')`,
      );
      expect(schemas).toEqual([]);
      expect(await queryRows(database.db, sql`select 1 from pg_class where relnamespace = 'public'::regnamespace`)).toEqual([]);
    } finally {
      await database.close();
    }
    expect(readdirSync(target.dataDir).filter((f) => f !== 'secrets')).toEqual([]);
    // The same archive unbroken restores there afterwards.
    copyFileSync(archive, path.join(work, 'again.tar.gz'));
    expect((await cli(['restore', path.join(work, 'again.tar.gz')], { DATA_DIR: dataDir })).status).toBe(0);
  });

  it("restores last night's backup onto the same machine: a failed --replace gives today's bytes back, a done one drops stale thumbnails", async () => {
    // Last night's archive: its files dated two days back, as old as an orphan sweep's grace allows.
    const old = new Date(Date.now() - 2 * 24 * 60 * 60_000);
    const nightly = await tamper(archive, 'nightly', (m, dir) => {
      for (const entry of Object.keys(m.entries)) if (entry.startsWith('files/')) utimesSync(path.join(dir, entry), old, old);
    });
    const dataDir = fresh('same-machine');
    const config = loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: secrets.ENCRYPTION_KEY, BACKUP_KEY: secrets.BACKUP_KEY });
    const filesDir = path.join(dataDir, 'files');
    const started = Date.now();
    await restoreBackup(nightly, config);
    // Dated now, not by the archive: a running instance's sweep gives them its grace period.
    const dates = readdirSync(filesDir)
      .filter(isFileId)
      .map((f) => statSync(path.join(filesDir, f)).mtimeMs);
    expect(dates.length).toBeGreaterThan(30);
    expect(Math.min(...dates)).toBeGreaterThanOrEqual(started - 1000);

    // Today the photo got other bytes under the same id, and a thumbnail of them.
    const today = Buffer.from('octets du jour');
    const todayEtag = `"${md5(today)}"`;
    let database = await openDatabase(config);
    const [photo] = await queryRows<{ id: string }>(database.db, sql`select id::text as id from storage.files where name = 'boitier.png'`);
    await database.db.execute(sql`update storage.files set etag = ${todayEtag}, size = ${today.length} where id = ${photo!.id}`);
    await database.close();
    writeFileSync(path.join(filesDir, photo!.id), today);
    mkdirSync(path.join(filesDir, 'thumbnails'), { recursive: true });
    writeFileSync(path.join(filesDir, 'thumbnails', `${photo!.id}-96.webp`), 'vignette du jour');

    // A --replace that fails keeps today's rows, and so today's bytes under them.
    await expect(restoreBackup(broken, config, { replace: true })).rejects.toThrow(/violates foreign key constraint/);
    database = await openDatabase(config);
    const [row] = await queryRows<{ etag: string }>(database.db, sql`select etag from storage.files where id = ${photo!.id}`);
    await database.close();
    expect(row!.etag).toBe(todayEtag);
    expect(readFileSync(path.join(filesDir, photo!.id))).toEqual(today);
    expect(readdirSync(path.join(dataDir, 'backups'))).toEqual([]);

    // One that succeeds serves last night's photo, and a thumbnail made from it.
    await restoreBackup(nightly, config, { replace: true });
    const restored = await start('pglite', { dataDir });
    closing.push(() => restored.close());
    expect(await filesOf(restored)).toEqual(expected.files);
    const token = (await postJson(`${restored.url}/api/auth/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD })).body.session
      .accessToken;
    const thumbnail = await fetch(`${restored.url}/api/storage/files/${photo!.id}?w=96`, { headers: { authorization: `Bearer ${token}` } });
    expect(thumbnail.status).toBe(200);
    expect(
      Buffer.from(await thumbnail.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe('RIFF');
  });

  it('holds the bytes of an upload whose row committed before they moved in, from their staged key', async () => {
    const source = await start('pglite', { env: { DEMO_DATA: '0', ADMIN_EMAIL: 'chef@garage.fr', ADMIN_PASSWORD: 'Chef-Garage-2026!' } });
    closing.push(() => source.close());
    const id = randomUUID();
    const bytes = pdf('en attente');
    await source.database.db.execute(
      sql`insert into storage.files (id, bucket_id, name, size, mime_type, etag) values (${id}, 'documents', 'attente.pdf', ${bytes.length}, 'application/pdf', ${`"${md5(bytes)}"`})`,
    );
    writeFileSync(path.join(source.config.dataDir, 'files', `${id}.staged.${md5(bytes)}`), bytes);
    const manifest = await writeBackup(
      source.database,
      { ...source.config, backupKey: secrets.BACKUP_KEY },
      createWriteStream(path.join(work, 'staged.tar.gz')),
    );
    expect(manifest.storage).toEqual({ kind: 'disk', files: 1, bytes: bytes.length, missing: [] });
    expect(manifest.entries[`files/${id}`]).toEqual({ bytes: bytes.length, sha256: sha256(bytes) });
  });
});
