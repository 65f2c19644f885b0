// Issue 19, item 3 (decision 036): SIGTERM drains. The server as an operator runs it stops taking
// connections, lets a request in flight finish, tells live sockets it is going away (1001, so
// their clients reconnect elsewhere), closes the database last and exits 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/db/seed.ts';
import { postJson } from './support/app.ts';
import { PDF } from './support/fixtures.ts';
import { freePort } from './support/postgres-server.ts';
import { root, spawnServer, waitReady } from '../scripts/bench/support.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-drain-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('SIGTERM', () => {
  it('finishes the request in flight, refuses new connections, closes live sockets with 1001 and exits 0', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawnServer([path.join(root, 'server/main.ts')], { DATA_DIR: dataDir, PORT: String(port) }, 'pipe');
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitReady(url, child, 100_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${stderr}`);
    });
    const signIn = await postJson(`${url}/api/auth/signin/email-password`, { email: 'diagnostic@demo.local', password: DEMO_PASSWORD });
    const token = (signIn.body as { session: { accessToken: string } }).session.accessToken;

    // A live socket, acknowledged.
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { headers: { authorization: `Bearer ${token}` } } })));
      socket.on('message', (data) => {
        if (JSON.parse(String(data)).type === 'connection_ack') resolve();
      });
      socket.on('error', reject);
    });

    // An upload whose client sends half its body, then the rest once SIGTERM has arrived.
    const boundary = 'drain';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="bucket-id"\r\n\r\ndocuments\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file[]"; filename="plan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      PDF,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const half = Math.floor(body.length / 2);
    let upload!: ReturnType<typeof request>;
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      upload = request(
        `${url}/api/storage/files`,
        {
          method: 'POST',
          agent: false,
          headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      upload.on('error', reject);
    });
    await new Promise<void>((resolve) => upload.write(body.subarray(0, half), () => resolve()));
    await new Promise((r) => setTimeout(r, 200));

    child.kill('SIGTERM');
    expect(await closed).toBe(1001);
    // No new connection is taken while the upload is still in flight.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    upload.end(body.subarray(half));
    const result = await answered;
    expect(result.status).toBe(201);
    expect(JSON.parse(result.text).processedFiles[0].name).toBe('plan.pdf');
    expect(await exited).toBe(0);
  });
});
