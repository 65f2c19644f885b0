// One database client per process: PGlite on disk by default, PostgreSQL with DATABASE_URL.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Logger, sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import postgres from 'postgres';
import * as schema from './schema/index.ts';
import { acquireLock } from './lock.ts';
import { copyClusterTemplate, hasCluster } from './pglite-template.ts';
import { PGliteThread } from './pglite-thread.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type Database = {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** True when the database had no tables before this process opened it. */
  isNew: boolean;
  migrate(): Promise<void>;
  ping(): Promise<void>;
  /**
   * LISTEN on a channel; resolves to the function that stops listening. `onReconnect` runs when
   * a lost connection is back: notifications sent meanwhile were missed.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** The embedded database's client, for tools that speak to it without drizzle (analyze, the bench). */
  pglite?: PGliteThread;
};

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Serialises migrations when several instances start on one PostgreSQL.
const MIGRATION_LOCK = 724_519_001;

export async function openDatabase(options: { dataDir: string; databaseUrl?: string }): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openPglite(path.join(options.dataDir, 'db'));
}

/** Rows of a raw query: PGlite answers `{ rows }`, postgres.js the rows themselves. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(query));
}

export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? result : (result as { rows: T[] }).rows;
}

/** Whether the database holds the application's tables (migrated at least once). */
export async function hasTables(db: Db): Promise<boolean> {
  const [row] = await queryRows<{ exists: boolean }>(
    db,
    sql`select exists (select 1 from information_schema.tables where table_schema = 'auth' and table_name = 'users') as exists`,
  );
  return Boolean(row?.exists);
}

async function openPglite(dir: string): Promise<Database> {
  mkdirSync(dir, { recursive: true });
  const release = acquireLock(`${dir}.lock`);
  let client: PGliteThread;
  try {
    if (!hasCluster(dir)) {
      const failed = await copyClusterTemplate(dir);
      if (failed) process.stderr.write(`atelier-bva: no copy of an empty cluster (${failed}); PGlite runs initdb itself\n`);
    }
    // PGlite runs a query synchronously in WASM and parses its answer on the thread that calls
    // it: in a thread of its own (decision 074), the server's thread renders pages meanwhile and
    // answers /healthz at once, however long the queue of queries (issue 14, item 3).
    // shared_buffers 32 MB instead of 128: PGlite keeps them in its WASM memory, resident from
    // the start (−150 MiB RSS), and 32 MB still holds 100,000 orders' table and search indexes.
    // Its thread lost (a crash), the process has no database: it says so and ends, for its
    // supervisor to start it again, rather than answer every request with an error.
    client = await PGliteThread.open({ dir, startParams: ['-c', 'shared_buffers=32MB'] }, (error) => {
      process.stderr.write(`atelier-bva: ${error.message}; stopping\n`);
      release();
      process.exit(1);
    });
  } catch (error) {
    release();
    throw error;
  }
  const db = drizzlePglite(client as never, { schema }) as unknown as Db;
  const isNew = !(await hasTables(db));
  let closed = false;
  return {
    kind: 'pglite',
    db,
    isNew,
    pglite: client,
    migrate: () => migratePglite(db as never, { migrationsFolder }),
    ping: async () => {
      await client.query('select 1');
    },
    listen: (channel, onMessage) => client.listen(channel, onMessage),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
}

/**
 * DATABASE_URL read as node-postgres reads it, the LISTEN connection's driver: its TLS settings
 * (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`) with node-postgres's meaning, and the libpq
 * keys it ignores (`channel_binding`, `keepalives`…) ignored, where postgres.js would send them to
 * the server as settings, which refuses the connection.
 */
export function postgresConnection(url: string) {
  const parsed = parseConnectionString(url);
  return {
    host: parsed.host ?? undefined,
    port: parsed.port ? Number(parsed.port) : undefined,
    database: parsed.database ?? undefined,
    user: parsed.user,
    password: parsed.password,
    ssl: typeof parsed.ssl === 'string' ? true : (parsed.ssl ?? false),
    connection: {
      ...(parsed.application_name ? { application_name: parsed.application_name } : {}),
      ...(parsed.options ? { options: parsed.options } : {}),
    },
  };
}

// postgres.js rather than node-postgres (decision 084): the queries a page sends at once share a
// connection's one write and one answer instead of one system call each on ten connections.
export function openPostgresClient(url: string, max: number, logger?: Logger) {
  const client = postgres({
    ...postgresConnection(url),
    max,
    connect_timeout: 10,
    onnotice: () => {},
    // `undefined` binds as null, as node-postgres did, instead of failing the query.
    transform: { undefined: null },
    // A connection that failed waits before it tries again, doubling from 50 ms to 1 s: the
    // default grows to 20 s, and held pages 6 s after PostgreSQL was back (decision 036: 0.8 s).
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
  });
  const db = drizzlePostgres(client, { schema, logger });
  // drizzle has postgres.js pass timestamps and JSON through as they come (its columns turn them
  // to text first): a `Date` or an object bound in SQL written by hand goes as node-postgres sent
  // it, instead of failing the query.
  const serializers = client.options.serializers as Record<number, (value: unknown) => unknown>;
  for (const oid of [1082, 1114, 1184]) serializers[oid] = (value) => (value instanceof Date ? value.toISOString() : value);
  for (const oid of [114, 3802]) serializers[oid] = (value) => (typeof value === 'string' ? value : JSON.stringify(value));
  return { client, db };
}

async function openPostgres(url: string): Promise<Database> {
  const { client, db: typed } = openPostgresClient(url, 10);
  const db = typed as unknown as Db;
  const isNew = !(await hasTables(db));
  let closed = false;
  return {
    kind: 'postgres',
    db,
    isNew,
    migrate: async () => {
      // One connection of its own: the advisory lock is the connection's, held across the migration.
      const one = openPostgresClient(url, 1);
      try {
        await one.client`select pg_advisory_lock(${MIGRATION_LOCK})`;
        await migratePostgres(one.db, { migrationsFolder });
      } finally {
        await one.client.end({ timeout: 5 });
      }
    },
    ping: async () => {
      await client`select 1`;
    },
    listen: (channel, onMessage, onReconnect) => listenPostgres(url, channel, onMessage, onReconnect),
    close: async () => {
      if (closed) return;
      closed = true;
      await client.end({ timeout: 5 });
    },
  };
}

/**
 * A dedicated connection for LISTEN, reconnected when it drops: every attempt that fails
 * schedules the next, 1 s to 5 s apart, so live lists come back within seconds of the server. A
 * connection cut without a word (a partition, a NAT forgetting it) is found by TCP keep-alive and
 * by a `select 1` every 30 s that must answer within 10 s.
 */
async function listenPostgres(url: string, channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let delay = 500;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const connect = async (initial: boolean): Promise<void> => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true, query_timeout: 10_000 });
    let failed = false;
    const fail = () => {
      if (failed || stopped) return;
      failed = true;
      if (client === c) client = null;
      clearInterval(heartbeat);
      c.end().catch(() => undefined);
      retry = setTimeout(() => void connect(false), Math.min((delay *= 2), 5_000));
      retry.unref();
    };
    c.on('notification', (message) => {
      if (message.channel === channel && message.payload) onMessage(message.payload);
    });
    c.on('error', fail);
    c.on('end', fail);
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      if (initial) {
        failed = true;
        c.end().catch(() => undefined);
        throw error;
      }
      return fail();
    }
    // Stopped while connecting: this connection is the last one, and it goes too.
    if (stopped) return void c.end().catch(() => undefined);
    delay = 500;
    clearInterval(heartbeat);
    heartbeat = setInterval(() => void c.query('select 1').catch(fail), 30_000);
    heartbeat.unref();
    if (!initial) onReconnect?.();
  };
  await connect(true);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(heartbeat);
    await client?.end().catch(() => undefined);
  };
}
