// What a backup reads from the database's own catalogue, the same on PGlite and PostgreSQL:
// our tables (any schema but the system's and drizzle's), their columns, keys and foreign keys,
// and the migrations applied.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { type Db, queryRows } from '#server/db/client.ts';
import type { Manifest } from './archive.ts';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), '../db/migrations');

/**
 * Tables whose rows a backup leaves out: throwaway state. auth.challenges holds WebAuthn and
 * identity-provider ceremonies that expire within minutes and are used once; auth.rate_counters
 * the rate limits' windows and the throttles' failures (decision 053).
 */
export const LEFT_OUT = new Set(['auth.challenges', 'auth.rate_counters']);

export type TableInfo = {
  oid: number;
  /** schema.table, unquoted (our names are lower-case identifiers). */
  name: string;
  /** Columns a row is written with: generated ones are left to the database. */
  columns: string[];
  notNull: string[];
  primaryKey: string[];
};

export type ForeignKey = { child: number; parent: number; columns: string[] };

const SYSTEM = sql`n.nspname not in ('pg_catalog', 'information_schema', 'drizzle') and n.nspname not like 'pg\\_%'`;

export const quoteName = (name: string) =>
  name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');

export async function listTables(db: Db): Promise<TableInfo[]> {
  const rows = await queryRows<{ oid: number; name: string; columns: string[]; not_null: string[]; primary_key: string[] }>(
    db,
    sql`select c.oid::int as oid, n.nspname || '.' || c.relname as name,
      array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = '' order by a.attnum) as columns,
      array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attnotnull order by a.attnum) as not_null,
      array(select a.attname::text from pg_constraint k cross join unnest(k.conkey) with ordinality u(attnum, ord)
        join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.attnum
        where k.conrelid = c.oid and k.contype = 'p' order by u.ord) as primary_key
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and ${SYSTEM}
      and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
    order by 2`,
  );
  return rows.map((r) => ({ oid: Number(r.oid), name: r.name, columns: r.columns, notNull: r.not_null, primaryKey: r.primary_key }));
}

export async function listForeignKeys(db: Db): Promise<ForeignKey[]> {
  const rows = await queryRows<{ child: number; parent: number; columns: string[] }>(
    db,
    sql`select k.conrelid::int as child, k.confrelid::int as parent,
      array(select a.attname::text from unnest(k.conkey) u(attnum) join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.attnum) as columns
    from pg_constraint k where k.contype = 'f'`,
  );
  return rows.map((r) => ({ child: Number(r.child), parent: Number(r.parent), columns: r.columns }));
}

/** Sequences of our schemas with their current value (null: never used). */
export async function listSequences(db: Db): Promise<{ name: string; lastValue: string | null }[]> {
  const rows = await queryRows<{ name: string; last_value: string | null }>(
    db,
    sql`select s.schemaname || '.' || s.sequencename as name, s.last_value::text as last_value
    from pg_sequences s join pg_namespace n on n.nspname = s.schemaname where ${SYSTEM} order by 1`,
  );
  return rows.map((r) => ({ name: r.name, lastValue: r.last_value }));
}

/** True when the database holds no table of ours (nor drizzle's migrations). */
export async function isEmpty(db: Db): Promise<boolean> {
  const [row] = await queryRows<{ count: number }>(
    db,
    sql`select count(*)::int as count from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
      and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`,
  );
  return Number(row?.count) === 0;
}

export type Migration = { index: number; tag: string; createdAt: number; hash: string; statements: string[] };

/** The code's migrations, in order, as drizzle's migrator reads them. */
export function codeMigrations(): Migration[] {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string; when: number }[];
  };
  const files = readMigrationFiles({ migrationsFolder });
  return journal.entries.map((entry, i) => ({
    index: entry.idx,
    tag: entry.tag,
    createdAt: entry.when,
    hash: files[i]!.hash,
    statements: files[i]!.sql,
  }));
}

/** The last migration applied to this database, named from the code's journal. */
export async function appliedMigration(db: Db): Promise<Manifest['database']['migration']> {
  const [last] = await queryRows<{ hash: string; created_at: string }>(
    db,
    sql`select hash, created_at::text as created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
  );
  if (!last) throw new Error('the database has no migration applied: nothing to back up');
  const createdAt = Number(last.created_at);
  const known = codeMigrations().find((m) => m.createdAt === createdAt);
  if (!known) throw new Error('the database has a migration this version of Atelier BVA does not know: back it up with the version that runs it');
  return { index: known.index, tag: known.tag, createdAt, hash: last.hash };
}
