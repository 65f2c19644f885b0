// Writes a backup archive of a running or stopped database (decision 035). The rows are read in
// one REPEATABLE READ, read-only transaction, so they match each other; with disk storage the
// files those rows name are hard-linked aside inside the same transaction, so a file deleted
// meanwhile still goes into the archive. Plain SQL through drizzle: PGlite and PostgreSQL alike.
import { createWriteStream, linkSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { sql } from 'drizzle-orm';
import type { Config } from '#server/config.ts';
import { type Db, type Database, queryRows } from '#server/db/client.ts';
import { stagedKey } from '#server/storage/blobs.ts';
import { appVersion, BackupError, FORMAT, FORMAT_VERSION, type Manifest, packArchive, sha256File, signManifest, tableEntry } from './archive.ts';
import { appliedMigration, LEFT_OUT, listSequences, listTables, quoteName } from './catalog.ts';

/** `backupKey`: the key whose MAC authenticates the archive (decision 051; `backupKeyOf`). */
export type BackupConfig = Pick<Config, 'dataDir' | 'storage'> & { backupKey: string };

const FETCH = 2000;

/** A temporary directory on DATA_DIR's disk, so that stored files can be hard-linked into it. */
export function stagingDir(dataDir: string, kind: 'backup' | 'restore'): string {
  const parent = path.join(dataDir, 'backups');
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(path.join(parent, `.${kind}-`));
}

async function dumpTable(tx: Db, table: { name: string; columns: string[]; primaryKey: string[] }, file: string) {
  const out = createWriteStream(file);
  const hash = createHash('sha256');
  let rows = 0;
  let bytes = 0;
  const cursor = `backup_${randomBytes(4).toString('hex')}`;
  const columns = table.columns.map(quoteName).join(', ');
  // Ordered by the key: two backups of the same rows are the same bytes.
  const order = (table.primaryKey.length ? table.primaryKey : table.columns).map(quoteName).join(', ');
  await tx.execute(
    sql.raw(
      `declare ${cursor} no scroll cursor for select to_jsonb(r)::text as line from (select ${columns} from ${quoteName(table.name)} order by ${order}) r`,
    ),
  );
  for (;;) {
    const batch = await queryRows<{ line: string }>(tx, sql.raw(`fetch ${FETCH} from ${cursor}`));
    if (!batch.length) break;
    const chunk = Buffer.from(`${batch.map((r) => r.line).join('\n')}\n`);
    hash.update(chunk);
    bytes += chunk.length;
    rows += batch.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  await tx.execute(sql.raw(`close ${cursor}`));
  out.end();
  await once(out, 'close');
  return { rows, entry: { bytes, sha256: hash.digest('hex') } };
}

type FileRow = { id: string; etag: string };

/** Hard-links (or copies, across disks) `from` to `to`; false when `from` is not there. */
function stageFile(from: string, to: string): boolean {
  try {
    linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code !== 'EXDEV' && code !== 'EPERM') throw error;
    try {
      copyFileSync(from, to);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw copyError;
    }
  }
  return true;
}

/**
 * Stages the bytes of the files the rows name; returns the rows without bytes. A row whose
 * upload has not moved its bytes in yet has them under its staged key, named by its etag (the
 * bytes' MD5): those are the row's bytes.
 */
function stageFiles(rows: FileRow[], filesDir: string, stage: string): FileRow[] {
  mkdirSync(path.join(stage, 'files'), { recursive: true });
  return rows.filter((row) => {
    const to = path.join(stage, 'files', row.id);
    return !stageFile(path.join(filesDir, row.id), to) && !stageFile(path.join(filesDir, stagedKey(row.id, row.etag)), to);
  });
}

/** Writes the archive of `database` to `out`; resolves to its manifest once `out` has it all. */
export async function writeBackup(database: Database, config: BackupConfig, out: Writable): Promise<Manifest> {
  const stage = stagingDir(config.dataDir, 'backup');
  try {
    mkdirSync(path.join(stage, 'data'));
    const storage = config.storage;
    const snapshot = await database.db.transaction(
      async (transaction) => {
        const tx = transaction as unknown as Db;
        // The first query takes the snapshot: the files' rows, then their bytes at once.
        const fileRows = await queryRows<{ id: string; size: string; etag: string }>(
          tx,
          sql`select id::text as id, size::text as size, etag from storage.files order by id`,
        );
        const filesDir = path.join(config.dataDir, 'files');
        let unstaged = storage.kind === 'disk' ? stageFiles(fileRows, filesDir, stage) : [];
        // Bytes may move between their staged key and their id right while we look: look again.
        if (unstaged.length) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          unstaged = stageFiles(unstaged, filesDir, stage);
        }
        const missing = unstaged.map((f) => f.id);
        // Not one file where the rows say: the backup runs with another DATA_DIR than the app's
        // (cron's default ./data), and would hold rows without their bytes.
        if (fileRows.length && missing.length === fileRows.length) {
          throw new BackupError(
            `Invalid DATA_DIR: none of the ${fileRows.length} files named by rows is in ${filesDir}: run the backup with the app's DATA_DIR`,
          );
        }
        const migration = await appliedMigration(tx);
        const all = await listTables(tx);
        const tables: Manifest['tables'] = [];
        const entries: Manifest['entries'] = {};
        for (const table of all) {
          if (LEFT_OUT.has(table.name)) continue;
          const entry = tableEntry(table.name);
          const dumped = await dumpTable(tx, table, path.join(stage, entry));
          entries[entry] = dumped.entry;
          tables.push({ name: table.name, entry, rows: dumped.rows, columns: table.columns });
        }
        const manifest: Manifest = {
          format: FORMAT,
          formatVersion: FORMAT_VERSION,
          app: { version: appVersion() },
          createdAt: new Date().toISOString(),
          database: { kind: database.kind, migration },
          tables,
          leftOut: all.filter((t) => LEFT_OUT.has(t.name)).map((t) => t.name),
          sequences: await listSequences(tx),
          storage:
            storage.kind === 's3'
              ? {
                  kind: 's3',
                  endpoint: storage.endpoint ?? null,
                  bucket: storage.bucket,
                  region: storage.region,
                  files: fileRows.length,
                  bytes: fileRows.reduce((sum, f) => sum + Number(f.size), 0),
                }
              : { kind: 'disk', files: 0, bytes: 0, missing },
          entries,
        };
        return { manifest, ids: fileRows.map((f) => f.id).filter((id) => !missing.includes(id)) };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    // Checksums of the files outside the transaction: PGlite serves nobody else during it.
    const result = snapshot.manifest;
    if (result.storage.kind === 'disk') {
      for (const id of snapshot.ids) {
        const entry = await sha256File(path.join(stage, 'files', id));
        result.entries[`files/${id}`] = entry;
        result.storage.files += 1;
        result.storage.bytes += entry.bytes;
      }
    }
    const manifestBytes = Buffer.from(`${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(path.join(stage, 'manifest.json'), manifestBytes);
    writeFileSync(path.join(stage, 'manifest.hmac'), signManifest(config.backupKey, manifestBytes));
    await packArchive(stage, result, out);
    return result;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * One line for the operator: what the archive holds, and where its files came from (a backup:
 * copied from the disk, or left in the bucket it names).
 */
export function summarize(manifest: Manifest, command: 'backup' | 'restore' = 'restore'): string {
  const rows = manifest.tables.reduce((sum, t) => sum + t.rows, 0);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const files =
    manifest.storage.kind === 's3'
      ? `${manifest.storage.files} files left in bucket ${manifest.storage.bucket}${manifest.storage.endpoint ? ` at ${manifest.storage.endpoint}` : ''}`
      : `${manifest.storage.files} files${command === 'backup' ? ' copied from disk' : ''} (${mb(manifest.storage.bytes)})`;
  const missing =
    manifest.storage.kind === 'disk' && manifest.storage.missing.length ? `, ${manifest.storage.missing.length} files named by rows had no bytes` : '';
  return `${rows} rows in ${manifest.tables.length} tables, ${files}${missing}, migration ${manifest.database.migration.tag}`;
}
