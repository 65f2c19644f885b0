// Issue 19, item 3 (decision 036): SIGTERM drains. The server as an operator runs it stops taking
// connections, lets a request in flight finish, tells live sockets it is going away (1001, so
// their clients reconnect elsewhere), closes the database last and exits 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
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

describe('a connection whose answer had begun when the drain started', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('is ended once that answer is done, and /readyz asked on it meanwhile says 503', { timeout: 60_000 }, async () => {
    t = await startTestApp('pglite');
    const token = await signInToken(t.url, 'diagnostic@demo.local');
    const form = new FormData();
    form.append('bucket-id', 'documents');
    form.append('file[]', new Blob([new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(16 * 1024 * 1024)]))]), 'plan.pdf');
    const stored = await fetch(`${t.url}/api/storage/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const { id } = ((await stored.json()) as { processedFiles: { id: string }[] }).processedFiles[0]!;
    // A 16 MB download read slowly: its headers have left, its answer lasts.
    const { port } = new URL(t.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = Buffer.alloc(0);
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const first = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        // The 16 MB themselves are not kept: each chunk's ends, where an answer's head can be.
        const firstChunk = received.length === 0;
        received = Buffer.concat([received, chunk.length > 8192 ? Buffer.concat([chunk.subarray(0, 4096), chunk.subarray(-4096)]) : chunk]);
        if (firstChunk) {
          socket.pause();
          resolve();
        }
      }),
    );
    socket.write(`GET /api/storage/files/${id} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    await first;
    expect(received.toString('latin1')).toMatch(/^HTTP\/1\.1 200[\s\S]*keep-alive/i);
    const closing = t.app.close();
    // The proxy's next check, on the same connection.
    socket.write(`GET /readyz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    socket.resume();
    await ended;
    await closing;
    const text = received.toString('latin1');
    const answers = text.match(/^HTTP\/1\.1 \d{3}.*$/gm) ?? [];
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200/);
    // Never «ready» while draining: no answer at all (the connection ended), or 503.
    for (const answer of answers.slice(1)) expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(text).not.toMatch(/"status":"ok"/);
  });
});
