// npm run bench -- profile (issue 31, item 6): where a page's time goes. The built server under
// autocannon, a CPU profile of its main thread for each target taken through the inspector for
// the run alone (start-up left out), the server's CPU milliseconds per request (all threads, and
// the main thread's), and a summary by function, module and area (cpuprofile.ts).
// PROFILE_ON=pglite|postgres, PROFILE_SECONDS (8), PROFILE_CONNECTIONS (50,1), PROFILE_TARGETS
// (healthz,sign-in,repair-orders,order,procedure,diagnostic,report,gearboxes,stock: all by default), PROFILE_OUT (a
// directory to keep the .cpuprofile files in, for Chrome's DevTools).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { type CpuProfile, printSummary, summarize } from './cpuprofile.ts';
import { benchOrders, freePort, pct, sessionCookie, signInToken, spawnServer, startEmbeddedPostgres, stop, waitReady } from './support.ts';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 8);
const CONNECTIONS = (process.env.PROFILE_CONNECTIONS ?? '50,1').split(',').map(Number);

/** The inspector of the server: one WebSocket, commands answered by id. */
async function inspector(port: number) {
  const [{ webSocketDebuggerUrl }] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id) waiting.get(message.id)?.(message.result);
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      const id = next++;
      waiting.set(id, resolve as (r: unknown) => void);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

/** User + system CPU milliseconds of a process (or one of its threads) so far. */
const cpuMs = (stat: string) => {
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
/** The whole server's CPU, and its main thread's (the one that renders pages). */
const cpuOf = (pid: number) => ({ all: cpuMs(`/proc/${pid}/stat`), main: cpuMs(`/proc/${pid}/task/${pid}/stat`) });

async function run(label: string, env: Record<string, string>, wanted: string[], out: string) {
  const port = await freePort();
  const inspect = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer([`--inspect=127.0.0.1:${inspect}`, 'server/main.ts'], {
    PORT: String(port),
    PUBLIC_URL: url,
    AUTH_RATE_LIMIT_FACTOR: '1000',
    ...env,
  });
  try {
    await waitReady(url, child);
    const cookie = await sessionCookie(url, 'diagnostic@demo.local');
    const commercial = await sessionCookie(url, 'commercial@demo.local');
    const admin = await sessionCookie(url, 'admin@demo.local');
    const token = await signInToken(url, 'diagnostic@demo.local');
    const { order, followed, closed } = await benchOrders(url, token);
    const targets = [
      { name: 'healthz', path: '/healthz', headers: {} },
      { name: 'sign-in', path: '/sign-in', headers: {} },
      { name: 'repair-orders', path: '/repair-orders', headers: { cookie } },
      { name: 'order', path: `/repair-order/${order.id}`, headers: { cookie } },
      { name: 'procedure', path: `/repair-order/${followed.id}?onglet=procedure`, headers: { cookie } },
      { name: 'diagnostic', path: `/repair-order/${order.id}/diagnostic`, headers: { cookie } },
      { name: 'report', path: `/repair-order/${closed.id}/report`, headers: { cookie } },
      { name: 'gearboxes', path: '/gearboxes', headers: { cookie } },
      { name: 'stock', path: '/stock', headers: { cookie: commercial } },
      { name: 'users', path: '/users', headers: { cookie: admin } },
    ].filter((t) => !wanted.length || wanted.includes(t.name));
    const cdp = await inspector(inspect);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    console.log(`\n# ${label}\n`);
    console.log('| target | conn. | req/s | p50 ms | p99 ms | errors | server CPU ms/req | main thread CPU ms/req |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const profiles: [string, CpuProfile][] = [];
    for (const target of targets) {
      for (const connections of CONNECTIONS) {
        // Warm: the code paths compiled before they are timed.
        await autocannon({ url: `${url}${target.path}`, headers: target.headers, connections, amount: 200 });
        const latencies: number[] = [];
        let wrong = 0;
        await cdp.send('Profiler.start');
        const cpu0 = cpuOf(child.pid!);
        const result = await new Promise<autocannon.Result>((resolve, reject) => {
          const instance = autocannon({ url: `${url}${target.path}`, headers: target.headers, connections, duration: SECONDS, timeout: 10 }, (e, r) =>
            e ? reject(e) : resolve(r),
          );
          instance.on('response', (_c, status, _b, ms) => {
            latencies.push(ms);
            if (status !== 200) wrong++;
          });
        });
        const cpu1 = cpuOf(child.pid!);
        const { profile } = await cdp.send<{ profile: CpuProfile }>('Profiler.stop');
        const name = `${target.name}-${connections}`;
        writeFileSync(path.join(out, `${name}.cpuprofile`), JSON.stringify(profile));
        profiles.push([name, profile]);
        console.log(
          `| ${target.name} | ${connections} | ${(latencies.length / SECONDS).toFixed(0)} | ${pct(latencies, 50).toFixed(0)} | ${pct(latencies, 99).toFixed(0)} | ${wrong + result.errors + result.timeouts} | ${((cpu1.all - cpu0.all) / latencies.length).toFixed(2)} | ${((cpu1.main - cpu0.main) / latencies.length).toFixed(2)} |`,
        );
      }
    }
    cdp.close();
    for (const [name, profile] of profiles) {
      console.log(`\n## ${label}: ${name}\n`);
      console.log(printSummary(summarize(profile)));
    }
    console.log(`\nProfiles in ${out}`);
  } finally {
    await stop(child);
  }
}

export async function profileBench(dataDir: string): Promise<void> {
  const out = process.env.PROFILE_OUT ?? mkdtempSync(path.join(tmpdir(), 'atelier-profile-'));
  mkdirSync(out, { recursive: true });
  const secrets = { DEMO_DATA: '1', JWT_SECRET: 'b'.repeat(40), SESSION_SECRET: 'c'.repeat(40), ENCRYPTION_KEY: 'e'.repeat(40) };
  const wanted = process.env.PROFILE_TARGETS?.split(',') ?? [];
  if (process.env.PROFILE_ON === 'postgres') {
    const server = await startEmbeddedPostgres('atelier-profile-pg-');
    try {
      await run('PostgreSQL, demo workshop', { ...secrets, DATA_DIR: path.join(dataDir, 'pg'), DATABASE_URL: await server.database('profile') }, wanted, out);
    } finally {
      await server.stop();
    }
  } else {
    await run('PGlite, demo workshop', { ...secrets, DATA_DIR: path.join(dataDir, 'pglite') }, wanted, out);
  }
}
