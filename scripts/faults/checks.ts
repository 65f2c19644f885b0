// The two checks of `npm run test:faults` after the crash cycles: SIGTERM drains (a request in
// flight finishes, new connections are refused, live sockets close with 1001, exit 0), and a
// PostgreSQL outage (503 pages and APIs, /readyz fails, /healthz stays up, then recovery
// without a restart, the live list resynchronised). Each returns lines to print and failures.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { freePort, sessionCookie, signInToken, spawnServer, waitReady } from '../bench/support.ts';
import { startEmbeddedPostgres } from '../../tests/support/postgres-server.ts';
import { PDF } from '../../tests/support/fixtures.ts';

const exited = (child: ChildProcess) =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

/**
 * SIGTERM to `child` while a live socket is open and an upload is half sent (the rest follows 1 s
 * later): what its clients see. `npm run test:faults` prints it, tests/drain.test.ts asserts it.
 */
export async function sigtermDuringUpload(url: string, child: ChildProcess, token: string) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; at: number }>((resolve) => socket.on('close', (code) => resolve({ code, at: performance.now() })));
  await new Promise<void>((resolve, reject) => {
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { headers: { authorization: `Bearer ${token}` } } })));
    socket.on('message', (data) => JSON.parse(String(data)).type === 'connection_ack' && resolve());
    socket.on('error', reject);
  });
  const boundary = 'drain';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="bucket-id"\r\n\r\ndocuments\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file[]"; filename="plan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
    PDF,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const half = Math.floor(body.length / 2);
  let upload!: ReturnType<typeof request>;
  // On a kept-alive connection, as a browser or a proxy sends it: the answer must close it.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answered = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
    upload = request(
      `${url}/api/storage/files`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text, connection: res.headers.connection }));
      },
    );
    upload.on('error', reject);
  });
  await new Promise<void>((resolve) => upload.write(body.subarray(0, half), () => resolve()));
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  child.kill('SIGTERM');
  const socketClosed = await closed;
  // No new connection is taken while the upload is still in flight.
  const refused = await fetch(`${url}/healthz`).then(
    () => false,
    () => true,
  );
  await new Promise((r) => setTimeout(r, 1_000));
  upload.end(body.subarray(half));
  const { status, text, connection } = await answered.catch(() => ({ status: 0, text: '', connection: undefined }));
  agent.destroy();
  const code = await exited(child);
  return { socketCode: socketClosed.code, socketClosedMs: socketClosed.at - t0, refused, status, text, connection, code, stoppedMs: performance.now() - t0 };
}

export async function drainCheck(): Promise<{ lines: string[]; failures: string[] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-faults-drain-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { DATA_DIR: dataDir, PORT: String(port), PUBLIC_URL: url });
  child.stdout!.resume();
  try {
    await waitReady(url, child);
    const seen = await sigtermDuringUpload(url, child, await signInToken(url, 'diagnostic@demo.local'));
    const failures = [
      ...(seen.socketCode === 1001 ? [] : [`drain: the live socket closed with ${seen.socketCode}, not 1001`]),
      ...(seen.refused ? [] : ['drain: a new connection was accepted after SIGTERM']),
      ...(seen.status === 201 ? [] : [`drain: the upload in flight answered ${seen.status}, not 201`]),
      ...(seen.connection === 'close' ? [] : ['drain: the answer in flight kept its connection open']),
      ...(seen.code === 0 ? [] : [`drain: exit code ${seen.code}`]),
    ];
    return {
      lines: [
        `Live socket closed with ${seen.socketCode} ${Math.round(seen.socketClosedMs)} ms after SIGTERM; a new connection ${seen.refused ? 'refused' : 'ACCEPTED'};`,
        `the upload in flight (its body finished 1 s after SIGTERM) answered ${seen.status}; the process exited ${seen.code} ${Math.round(seen.stoppedMs)} ms after SIGTERM.`,
      ],
      failures,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function outageCheck(outageMs = 8_000): Promise<{ outageSeconds: number; lines: string[]; failures: string[] }> {
  const postgres = await startEmbeddedPostgres('atelier-faults-outage-');
  const databaseUrl = await postgres.database('outage');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-faults-outage-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], {
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: url,
    DATABASE_URL: databaseUrl,
    SESSION_SECRET: randomBytes(32).toString('hex'),
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    AUTH_RATE_LIMIT_FACTOR: '1000',
    DEMO_DATA: '1',
  });
  child.stdout!.resume();
  const failures: string[] = [];
  try {
    await waitReady(url, child);
    const cookie = await sessionCookie(url, 'diagnostic@demo.local');
    const token = await signInToken(url, 'admin@demo.local');
    const live = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { headers: { authorization: `Bearer ${token}` } },
    });
    let last: string[] = [];
    let received = 0;
    live.subscribe<{ users: { displayName: string }[] }>(
      { query: 'subscription { users { displayName } }' },
      {
        next: (r) => {
          received += 1;
          last = r.data?.users.map((u) => u.displayName) ?? [];
        },
        error: () => failures.push('outage: the live subscription ended with an error'),
        complete: () => {},
      },
    );
    while (!received) await new Promise((r) => setTimeout(r, 50));
    // A change the app is not told of (triggers off): only a resynchronisation brings it.
    const renamed = `Renommé ${randomBytes(3).toString('hex')}`;
    const direct = new pg.Client({ connectionString: databaseUrl });
    await direct.connect();
    await direct.query(`set session_replication_role = replica; update auth.users set display_name = '${renamed}' where email = 'commercial@demo.local'`);
    await direct.end();

    await postgres.pause();
    const statuses: Record<string, Set<number>> = {
      '/healthz': new Set(),
      '/readyz': new Set(),
      'page /repair-orders': new Set(),
      'GraphQL query': new Set(),
      'auth sign-in': new Set(),
    };
    let french = true;
    let retryAfter = true;
    const until = performance.now() + outageMs;
    while (performance.now() < until) {
      statuses['/healthz']!.add((await fetch(`${url}/healthz`)).status);
      statuses['/readyz']!.add((await fetch(`${url}/readyz`)).status);
      const page = await fetch(`${url}/repair-orders`, { headers: { cookie } });
      statuses['page /repair-orders']!.add(page.status);
      french &&= /momentanément indisponible/.test(await page.text());
      retryAfter &&= page.headers.has('retry-after');
      const query = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ repairOrders(limit: 1) { id } }' }),
      });
      statuses['GraphQL query']!.add(query.status);
      const signIn = await fetch(`${url}/api/auth/signin/email-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'commercial@demo.local', password: 'Demo-Atelier-2026!' }),
      });
      statuses['auth sign-in']!.add(signIn.status);
      await new Promise((r) => setTimeout(r, 250));
    }
    const t0 = performance.now();
    await postgres.resume();
    const pgUp = performance.now() - t0;
    while ((await fetch(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 20));
    const ready = performance.now() - t0;
    while ((await fetch(`${url}/repair-orders`, { headers: { cookie } })).status !== 200) await new Promise((r) => setTimeout(r, 20));
    const pages = performance.now() - t0;
    const deadline = performance.now() + 30_000;
    while (!last.includes(renamed) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const resynced = last.includes(renamed) ? performance.now() - t0 : null;
    await live.dispose();

    const expected: Record<string, number> = { '/healthz': 200, '/readyz': 503, 'page /repair-orders': 503, 'GraphQL query': 503, 'auth sign-in': 503 };
    for (const [name, seen] of Object.entries(statuses)) {
      if (seen.size !== 1 || !seen.has(expected[name]!)) failures.push(`outage: ${name} answered ${[...seen].join(', ')}, expected ${expected[name]} only`);
    }
    if (!french) failures.push('outage: a page did not say "momentanément indisponible"');
    if (!retryAfter) failures.push('outage: a page had no Retry-After');
    if (resynced === null) failures.push('outage: the live subscription did not resynchronise within 30 s');
    if (child.exitCode !== null) failures.push('outage: the server exited');
    return {
      outageSeconds: outageMs / 1000,
      lines: [
        `During the outage: ${Object.entries(statuses)
          .map(([name, seen]) => `${name} ${[...seen].join('/')}`)
          .join(', ')}; pages in French with Retry-After: ${french && retryAfter ? 'yes' : 'NO'}.`,
        `PostgreSQL accepting again ${Math.round(pgUp)} ms after its start was asked; from then: /readyz 200 after ${Math.round(ready)} ms, pages 200 after ${Math.round(pages)} ms,`,
        `the live subscription resynchronised (a change made unannounced) after ${resynced === null ? 'NEVER' : `${Math.round(resynced)} ms`}; the same process throughout (no restart).`,
      ],
      failures,
    };
  } finally {
    child.kill('SIGTERM');
    await exited(child);
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
