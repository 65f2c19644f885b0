// Issue 19, item 3 (decision 036): SIGTERM drains. The server as an operator runs it stops taking
// connections, lets a request in flight finish, tells live sockets it is going away (1001, so
// their clients reconnect elsewhere), closes the database last and exits 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './support/postgres-server.ts';
import { root, signInToken, spawnServer, waitReady } from '../scripts/bench/support.ts';
import { sigtermDuringUpload } from '../scripts/faults/checks.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-drain-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('SIGTERM', () => {
  it('finishes the request in flight, refuses new connections, closes live sockets with 1001 and exits 0', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawnServer([path.join(root, 'server/main.ts')], { DATA_DIR: dataDir, PORT: String(port) }, 'pipe');
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    await waitReady(url, child, 100_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${stderr}`);
    });
    const seen = await sigtermDuringUpload(url, child, await signInToken(url, 'diagnostic@demo.local'));
    expect(seen.socketCode).toBe(1001);
    // No new connection is taken while the upload is still in flight.
    expect(seen.refused).toBe(true);
    expect(seen.status).toBe(201);
    // Its answer closes its kept-alive connection: no more requests come on it while draining.
    expect(seen.connection).toBe('close');
    expect(JSON.parse(seen.text).processedFiles[0].name).toBe('plan.pdf');
    expect(seen.code).toBe(0);
  });
});
