// Restores a backup archive onto an empty database, or one it empties (--replace) (decision 035):
// the code's migrations up to the backup's, then the rows in foreign-key order, then the
// sequences, in one transaction, so a failed restore leaves the target as it found it. Stored files go back under
// DATA_DIR/files first; if the database part fails they are taken away again and the bytes they
// replaced (the same ids: a restore onto the machine the backup came from) are put back. Every
// refusal known from the archive and the settings (its MAC, its entries, its level, the storage,
// the encryption keys its secrets need) comes before anything is created; a later failure takes
// away what the restore created in DATA_DIR (the database, the files, the stage), never what was there.
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'drizzle-orm';
import { createKeyring, forgetSealedSecrets, type Keyring, missingKeys } from '#server/auth/vault.ts';
import { backupKeyOf, type Config, ConfigError } from '#server/config.ts';
import { type Db, openDatabase, queryRows } from '#server/db/client.ts';
import { claimAfterRestore, homePlace } from '#server/storage/home.ts';
import { BackupError, checkArchive, type Manifest, readArchive } from './archive.ts';
import { codeMigrations, type ForeignKey, isEmpty, listForeignKeys, listTables, quoteName, type TableInfo } from './catalog.ts';
import { stagingDir } from './dump.ts';

export type RestoreOptions = {
  replace?: boolean;
  /** The archive's encryption key is lost: restore without the second factors and tokens it sealed (decision 050). */
  forgetSecrets?: boolean;
  /** An archive of format 1 has no MAC: the operator restores it knowingly (decision 051). */
  unauthenticated?: boolean;
};

/** `encryptionKeys` may be empty: an embedded DATA_DIR with no key file yet (a restore never makes one). */
export type RestoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'storage' | 'backupKey' | 'encryptionKeys'>;

/** The refusal of secrets sealed with keys this installation lacks (decision 050). */
const missingKeyError = (missing: string[]) =>
  new BackupError(
    `This backup's secrets are sealed with encryption key ${missing.join(', ')}, which this installation does not have: set ENCRYPTION_KEY to the key of the installation the backup came from (kept with the archive, never inside it), then restore; if that key is lost, add --forget-secrets to restore without the authenticator apps, recovery codes, personal access tokens and queued links or codes it sealed`,
  );

/**
 * Takes away what a failed restore created in DATA_DIR: the entries that were not there before
 * (`before`), and DATA_DIR itself when it did not exist (`before` null). What was there stays.
 */
function removeCreated(dataDir: string, before: Set<string> | null): void {
  if (!existsSync(dataDir)) return;
  if (before === null) {
    rmSync(dataDir, { recursive: true, force: true });
    return;
  }
  for (const name of readdirSync(dataDir)) if (!before.has(name)) rmSync(path.join(dataDir, name), { recursive: true, force: true });
}

const BATCH_ROWS = 1000;
const BATCH_BYTES = 2 * 1024 * 1024;

/** The code's migrations up to the backup's, refusing a backup made by a newer version. */
function migrationsUpTo(manifest: Manifest) {
  const all = codeMigrations();
  const level = manifest.database.migration;
  const last = all.at(-1)!;
  if (level.createdAt > last.createdAt || level.index > last.index) {
    throw new BackupError(
      `This backup is at migration ${level.tag}, newer than this version of Atelier BVA (${last.tag}): install version ${manifest.app.version} or newer, then restore`,
    );
  }
  const known = all.find((m) => m.index === level.index);
  if (!known || known.tag !== level.tag || known.createdAt !== level.createdAt) {
    throw new BackupError(
      `This backup is at migration ${level.tag}, which this version of Atelier BVA does not have: restore it with version ${manifest.app.version}`,
    );
  }
  return all.filter((m) => m.index <= level.index);
}

/** drizzle's migrator, inside our transaction: same table, same rows, so later starts go on from here. */
async function migrate(tx: Db, migrations: ReturnType<typeof codeMigrations>): Promise<void> {
  await tx.execute(sql`create schema if not exists drizzle`);
  await tx.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
  for (const migration of migrations) {
    for (const statement of migration.statements) await tx.execute(sql.raw(statement));
    await tx.execute(sql`insert into drizzle.__drizzle_migrations ("hash", "created_at") values (${migration.hash}, ${migration.createdAt})`);
  }
}

/** Everything of ours in the target, for --replace: our schemas, and what the migrations put in public. */
async function clear(tx: Db): Promise<void> {
  const notExtension = (classid: string, column: string) =>
    `not exists (select 1 from pg_depend d where d.classid = '${classid}'::regclass and d.objid = ${column} and d.deptype = 'e')`;
  const schemas = await queryRows<{ name: string }>(
    tx,
    sql.raw(
      `select nspname as name from pg_namespace n where nspname not in ('pg_catalog', 'information_schema', 'public') and nspname not like 'pg\\_%' and ${notExtension('pg_namespace', 'n.oid')}`,
    ),
  );
  for (const { name } of schemas) await tx.execute(sql.raw(`drop schema ${quoteName(name)} cascade`));
  const relations = await queryRows<{ name: string; kind: string }>(
    tx,
    sql.raw(
      `select quote_ident(c.relname) as name, c.relkind as kind from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'S') and ${notExtension('pg_class', 'c.oid')}`,
    ),
  );
  const dropOf: Record<string, string> = { r: 'table', p: 'table', v: 'view', m: 'materialized view', S: 'sequence' };
  for (const { name, kind } of relations) await tx.execute(sql.raw(`drop ${dropOf[kind]} if exists public.${name} cascade`));
  const functions = await queryRows<{ signature: string }>(
    tx,
    sql.raw(
      `select p.oid::regprocedure::text as signature from pg_proc p where p.pronamespace = 'public'::regnamespace and ${notExtension('pg_proc', 'p.oid')}`,
    ),
  );
  for (const { signature } of functions) await tx.execute(sql.raw(`drop routine if exists ${signature} cascade`));
}

/**
 * Tables parents first. A self-reference (a model's parent model) or a cycle cannot be ordered:
 * those columns are loaded empty, then set once every row is in.
 */
export function loadOrder(tables: TableInfo[], foreignKeys: ForeignKey[]): { table: TableInfo; deferred: string[] }[] {
  const byOid = new Map(tables.map((t) => [t.oid, t]));
  const deferred = new Map<number, Set<string>>(tables.map((t) => [t.oid, new Set()]));
  const edges = foreignKeys.filter((fk) => byOid.has(fk.child) && byOid.has(fk.parent));
  for (const fk of edges) if (fk.child === fk.parent) for (const c of fk.columns) deferred.get(fk.child)!.add(c);
  let pending = edges.filter((fk) => fk.child !== fk.parent);
  const order: TableInfo[] = [];
  const left = new Set(tables.map((t) => t.oid));
  while (left.size) {
    const ready = [...left].filter((oid) => !pending.some((fk) => fk.child === oid && left.has(fk.parent)));
    if (ready.length) {
      for (const oid of ready) {
        order.push(byOid.get(oid)!);
        left.delete(oid);
      }
      continue;
    }
    // A cycle: defer the nullable references of one table in it.
    const oid = [...left].find((o) =>
      pending.filter((fk) => fk.child === o && left.has(fk.parent)).every((fk) => fk.columns.every((c) => !byOid.get(o)!.notNull.includes(c))),
    );
    if (oid === undefined) throw new Error('the tables reference each other through required columns: no order loads them');
    for (const fk of pending.filter((f) => f.child === oid)) for (const c of fk.columns) deferred.get(oid)!.add(c);
    pending = pending.filter((fk) => fk.child !== oid);
  }
  return order.map((table) => ({ table, deferred: [...deferred.get(table.oid)!] }));
}

async function* batches(file: string): AsyncGenerator<string> {
  let lines: string[] = [];
  let bytes = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (!line) continue;
    lines.push(line);
    bytes += line.length;
    if (lines.length >= BATCH_ROWS || bytes >= BATCH_BYTES) {
      yield `[${lines.join(',')}]`;
      lines = [];
      bytes = 0;
    }
  }
  if (lines.length) yield `[${lines.join(',')}]`;
}

async function loadTable(tx: Db, stage: string, entry: Manifest['tables'][number], deferred: string[], primaryKey: string[]): Promise<void> {
  const name = quoteName(entry.name);
  const columns = entry.columns.map(quoteName).join(', ');
  const values = entry.columns.map((c) => (deferred.includes(c) ? 'null' : `r.${quoteName(c)}`)).join(', ');
  const file = path.join(stage, entry.entry);
  // The text cast keeps the rows as PostgreSQL wrote them: no value goes through JavaScript.
  for await (const batch of batches(file)) {
    await tx.execute(
      sql`${sql.raw(`insert into ${name} (${columns}) overriding system value select ${values} from jsonb_populate_recordset(null::${name}, `)}${batch}${sql.raw('::text::jsonb) r')}`,
    );
  }
  if (!deferred.length) return;
  const set = deferred.map((c) => `${quoteName(c)} = r.${quoteName(c)}`).join(', ');
  const match = primaryKey.map((c) => `t.${quoteName(c)} = r.${quoteName(c)}`).join(' and ');
  for await (const batch of batches(file)) {
    await tx.execute(
      sql`${sql.raw(`update ${name} t set ${set} from jsonb_populate_recordset(null::${name}, `)}${batch}${sql.raw(`::text::jsonb) r where ${match}`)}`,
    );
  }
}

export type RestoreSummary = {
  manifest: Manifest;
  rows: number;
  files: number;
  /** With forgetSecrets: the accounts whose authenticator app was removed, the tokens revoked, the queued messages given up. */
  forgotten?: { apps: number; tokens: number; messages: number };
  /**
   * The token the files' home is claimed by now; null for an archive from before the claims (its
   * start claims). `refused`: the home is another installation's, in the start's words (the start
   * on these settings is refused); `error`: the marker could not be written (the start claims).
   */
  home: { token: string | null; refused?: string; error?: string };
};

/** Restores `file` onto the database and storage `config` names. Throws BackupError with one clear line. */
export async function restoreBackup(file: string, config: RestoreConfig, options: RestoreOptions = {}): Promise<RestoreSummary> {
  // Everything about the archive is checked before a byte is written (decision 051): its MAC,
  // every entry against the manifest, the migration level, the storage.
  const keys = { key: backupKeyOf(config, false), unauthenticated: options.unauthenticated };
  const { manifest: checked, sealedKeyIds } = await checkArchive(file, keys);
  const migrations = migrationsUpTo(checked);
  const withFiles = checked.storage.kind === 'disk' && checked.storage.files > 0;
  if (withFiles && config.storage.kind === 's3') {
    throw new BackupError(
      `This backup holds ${checked.storage.files} files for the disk while this instance keeps files in bucket ${config.storage.bucket}: restore with disk storage (no STORAGE_URL nor S3_*), then copy them with npm run storage:migrate`,
    );
  }
  // The keys the archive's sealed secrets need, read from its rows: refused before a byte is written.
  const keyring: Keyring = config.encryptionKeys.length ? createKeyring(config.encryptionKeys) : { current: '', keys: new Map() };
  const lacking = sealedKeyIds.filter((id) => !keyring.keys.has(id));
  if (lacking.length && !options.forgetSecrets) throw missingKeyError(lacking);
  const before = existsSync(config.dataDir) ? new Set(readdirSync(config.dataDir)) : null;
  const filesDir = path.join(config.dataDir, 'files');
  let stage: string | undefined;
  let placed: ReturnType<typeof createPlacement> | undefined;
  let keepStage = false;
  try {
    // Inside the try: a DATA_DIR made here goes again if its staging directory cannot be made.
    mkdirSync(config.dataDir, { recursive: true });
    const staging = stagingDir(config.dataDir, 'restore');
    stage = staging;
    placed = createPlacement(filesDir, path.join(staging, 'aside'));
    // Read again to unpack, with the same checks: an archive changed in between stops there.
    const manifest = await readArchive(file, keys, staging);
    const database = await openDatabase(config);
    try {
      if (!(await isEmpty(database.db)) && !options.replace) {
        throw new BackupError(
          `The target database ${config.databaseUrl ? 'of DATABASE_URL' : `in ${path.join(config.dataDir, 'db')}`} is not empty: restore onto an empty one, or add --replace to drop what it holds`,
        );
      }
      // The bytes first: a row never names a file that is not there.
      if (withFiles) for (const name of Object.keys(manifest.entries).filter((e) => e.startsWith('files/'))) placed.put(path.join(staging, name));
      let rows = 0;
      let forgotten: RestoreSummary['forgotten'];
      await database.db.transaction(async (transaction) => {
        const tx = transaction as unknown as Db;
        if (options.replace) await clear(tx);
        await migrate(tx, migrations);
        const tables = new Map((await listTables(tx)).map((t) => [t.name, t]));
        const wanted = manifest.tables.map((entry) => {
          const table = tables.get(entry.name);
          const unknown = entry.columns.find((c) => !table?.columns.includes(c));
          if (!table || unknown)
            throw new BackupError(`The backup's table ${entry.name} does not match its migration level (${unknown ?? 'no such table'}): refused`);
          return table;
        });
        const entries = new Map(manifest.tables.map((t) => [t.name, t]));
        const order = loadOrder(wanted, await listForeignKeys(tx));
        for (const { table } of order) await tx.execute(sql.raw(`alter table ${quoteName(table.name)} disable trigger user`));
        for (const { table, deferred } of order) {
          await loadTable(tx, staging, entries.get(table.name)!, deferred, table.primaryKey);
          const [count] = await queryRows<{ n: number }>(tx, sql.raw(`select count(*)::int as n from ${quoteName(table.name)}`));
          if (Number(count?.n) !== entries.get(table.name)!.rows) throw new BackupError(`The table ${table.name} did not load all its rows: refused`);
          rows += Number(count?.n);
        }
        for (const { table } of order) await tx.execute(sql.raw(`alter table ${quoteName(table.name)} enable trigger user`));
        // The orders counted per model are derived from the orders (decision 075): rebuilt from
        // those just loaded, never taken on the archive's word.
        const counts = tables.get('repair_order_counts');
        if (counts) {
          await tx.execute(sql`delete from repair_order_counts`);
          // An archive from before migration 0030 has no closed count: that migration fills it at the next start.
          await tx.execute(
            counts.columns.includes('closed')
              ? sql`insert into repair_order_counts (gearbox_model_id, n, closed) select gearbox_model_id, count(*)::int, (count(*) filter (where status = 'CLOSED'))::int from repair_orders group by gearbox_model_id`
              : sql`insert into repair_order_counts (gearbox_model_id, n) select gearbox_model_id, count(*)::int from repair_orders group by gearbox_model_id`,
          );
        }
        for (const sequence of manifest.sequences) {
          if (sequence.lastValue !== null) await tx.execute(sql`select setval(${quoteName(sequence.name)}::regclass, ${sequence.lastValue}::bigint, true)`);
        }
        // Secrets at rest (decision 050): without the key that sealed them, refuse rather than
        // restore authenticator apps, recovery codes and tokens that could never be checked. The
        // archive's rows were read for this before writing; the loaded rows have the last word.
        const missing = await missingKeys(tx, keyring);
        if (missing.length && options.forgetSecrets) forgotten = await forgetSealedSecrets(tx, missing);
        else if (missing.length) throw missingKeyError(missing);
      });
      placed.keep();
      // The restored installation's files' home is claimed by its token (decision 057), so that it
      // starts; the rows are in whatever happens here: another installation's home is said as the
      // start will say it, a failure is said, and the start claims.
      const home = await claimAfterRestore(database.db, config).then(
        (token) => ({ token }),
        (error: unknown) =>
          error instanceof ConfigError ? { token: null, refused: error.message } : { token: null, error: `${homePlace(config)}: ${(error as Error).message}` },
      );
      return { manifest, rows, files: withFiles ? manifest.storage.files : 0, home, ...(forgotten ? { forgotten } : {}) };
    } finally {
      await database.close();
    }
  } catch (error) {
    const stranded = placed?.undo() ?? 0;
    if (stranded && stage) {
      // Never delete the only copy of a file's bytes: say where they wait.
      keepStage = true;
      throw new BackupError(
        `The restore failed, and ${stranded} files it replaced could not go back: their bytes are in ${path.join(stage, 'aside')}, move them into ${filesDir}`,
      );
    }
    // The database is closed: a fresh DATA_DIR goes back to as it was (no 40 MB database left behind).
    removeCreated(config.dataDir, before);
    if (error instanceof BackupError) throw error;
    // The database's own words, not the query drizzle wraps around them.
    const cause = ((error as Error).cause ?? error) as Error & { detail?: string };
    throw new BackupError(`The restore failed and wrote nothing: ${cause.message}${cause.detail ? ` (${cause.detail})` : ''}`);
  } finally {
    if (stage && !keepStage) rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Puts the archive's files under DATA_DIR/files, and undoes that if the rows do not commit.
 * A file already there under the same id (a backup restored onto the machine it came from) is
 * moved aside first and put back on failure; each placed file is dated now, so that an orphan
 * sweep running meanwhile (decision 036) gives it its grace period. Thumbnails of every restored
 * id go, success or not: they may have been made from other bytes.
 */
function createPlacement(filesDir: string, asideDir: string) {
  const created: string[] = [];
  const replaced: { target: string; saved: string }[] = [];
  const ids = new Set<string>();
  const dropThumbnails = () => {
    const dir = path.join(filesDir, 'thumbnails');
    if (!ids.size || !existsSync(dir)) return;
    for (const name of readdirSync(dir)) if (name[36] === '-' && ids.has(name.slice(0, 36))) rmSync(path.join(dir, name), { force: true });
  };
  return {
    put(from: string) {
      if (!ids.size) for (const dir of [asideDir, filesDir]) mkdirSync(dir, { recursive: true });
      const id = path.basename(from);
      const target = path.join(filesDir, id);
      ids.add(id);
      const now = new Date();
      utimesSync(from, now, now);
      if (existsSync(target)) {
        const saved = path.join(asideDir, id);
        renameSync(target, saved);
        replaced.push({ target, saved });
      } else {
        created.push(target);
      }
      renameSync(from, target);
    },
    /** The rows committed: the replaced bytes go with the staging directory. */
    keep() {
      dropThumbnails();
    },
    /** Returns how many replaced files could not be put back. */
    undo(): number {
      for (const target of created) rmSync(target, { force: true });
      let stranded = 0;
      for (const { target, saved } of replaced) {
        try {
          renameSync(saved, target);
        } catch {
          stranded += 1;
        }
      }
      dropThumbnails();
      return stranded;
    },
  };
}
