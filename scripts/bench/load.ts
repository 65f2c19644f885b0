// npm run bench -- load (issue 17, part 1): requests per second and latency percentiles under 10
// and 50 connections, by autocannon, over the bookmarked pages and the GraphQL list queries, on
// PGlite and on PostgreSQL, with the demo workshop and with 100,000 orders more. The unknown
// path's redirect and the sign-in page are the floors each figure is read against: the machine
// is shared, so ratios measured in one run are what compare.
import path from 'node:path';
import autocannon from 'autocannon';
import { benchOrders, freePort, gql, pct, rssOf, sessionCookie, signInToken, spawnServer, startEmbeddedPostgres, stop, waitReady } from './support.ts';
import { buildWorkshop, ORDER_COUNT } from './workshop.ts';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 3);
const CONNECTIONS = [10, 50] as const;

type Target = { name: string; path: string; status: number; headers?: Record<string, string>; body?: string };
type Figures = { rps: number; p50: number; p95: number; p99: number; errors: number };

/** The method, headers and body of a target, for autocannon and fetch alike. */
const requestOf = (target: Target) => ({
  method: target.body ? ('POST' as const) : ('GET' as const),
  headers: { ...target.headers, ...(target.body ? { 'content-type': 'application/json' } : {}) },
  body: target.body,
});

/** One autocannon run; any status but the expected one, a socket error or a timeout is an error. */
async function hammer(url: string, target: Target, connections: number): Promise<Figures> {
  const latencies: number[] = [];
  let unexpected = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}${target.path}`,
        ...requestOf(target),
        connections,
        duration: SECONDS,
        timeout: 10,
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      latencies.push(responseTime);
      if (status !== target.status) unexpected++;
    });
  });
  return {
    rps: latencies.length / SECONDS,
    p50: pct(latencies, 50),
    p95: pct(latencies, 95),
    p99: pct(latencies, 99),
    errors: unexpected + result.errors + result.timeouts,
  };
}

/** The bookmarked pages of the four roles and the lists' GraphQL queries, on this server's data. */
async function targetsOf(url: string): Promise<Target[]> {
  const cookies = {
    diagnostician: await sessionCookie(url, 'diagnostic@demo.local'),
    commercial: await sessionCookie(url, 'commercial@demo.local'),
    admin: await sessionCookie(url, 'admin@demo.local'),
  };
  const token = await signInToken(url, 'diagnostic@demo.local');
  const adminToken = await signInToken(url, 'admin@demo.local');
  const { order, followed, closed } = await benchOrders(url, token);
  const model = (await gql(url, token, '{ gearboxModels(limit: 1, search: "8HP") { id } }')).gearboxModels[0].id as string;
  const page = (name: string, pagePath: string, cookie: string = cookies.diagnostician): Target => ({ name, path: pagePath, status: 200, headers: { cookie } });
  const list = (name: string, query: string, bearer = token): Target => ({
    name,
    path: '/graphql',
    status: 200,
    headers: { authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ query }),
  });
  const targets: Target[] = [
    { name: '/healthz', path: '/healthz', status: 200 },
    { name: 'unknown path → sign-in (redirect floor)', path: '/nulle-part', status: 302 },
    { name: '/sign-in (page floor)', path: '/sign-in', status: 200 },
    page('/repair-orders', '/repair-orders'),
    page('/repair-orders?recherche=8hp', '/repair-orders?recherche=8hp'),
    page('/repair-order/{id}', `/repair-order/${order.id}`),
    page('/repair-order/{id}?onglet=procedure', `/repair-order/${followed.id}?onglet=procedure`),
    page('/repair-order/{id}/diagnostic', `/repair-order/${order.id}/diagnostic`),
    page('/repair-order/{id}/report', `/repair-order/${closed.id}/report`),
    page('/gearboxes', '/gearboxes'),
    page('/gearbox/{id}', `/gearbox/${model}`),
    page('/symptoms-conditions-base', '/symptoms-conditions-base'),
    page('/stock', '/stock', cookies.commercial),
    page('/users', '/users', cookies.admin),
    list(
      'GraphQL repairOrders (20, search)',
      '{ repairOrders(search: "8hp", limit: 20) { id number openedOn status interventionCategory gearboxCode model { id model type constructorName } } repairOrdersAggregate(search: "8hp") { count } }',
    ),
    list('GraphQL gearboxModels (20)', '{ gearboxModels(limit: 20) { id model type constructorName startYear endYear } }'),
    list('GraphQL stockItems (20)', '{ stockItems(limit: 20) { id reference condition rack level model { id model } } }'),
    list('GraphQL users (15)', '{ users(limit: 15) { id displayName email defaultRole disabled } }', adminToken),
  ];
  // Each target answers as expected once before it is timed.
  for (const target of targets) {
    const res = await fetch(`${url}${target.path}`, { ...requestOf(target), redirect: 'manual' });
    const text = await res.text();
    if (res.status !== target.status || (target.body && JSON.parse(text).errors)) throw new Error(`${target.name}: ${res.status} ${text.slice(0, 200)}`);
  }
  return targets;
}

/** A figure, or a dash when no answer came back within the run. */
const fixed = (v: number | undefined, digits = 0) => (v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));

/** One server, every target at each connection count, printed as a Markdown table. */
async function loadOn(label: string, env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: url, AUTH_RATE_LIMIT_FACTOR: '1000', ...env });
  try {
    const t0 = performance.now();
    await waitReady(url, child);
    const ready = performance.now() - t0;
    // Idle: ready, then a second for the start's own work to settle.
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssOf(child.pid!);
    const targets = await targetsOf(url);
    console.log(`\n### ${label}\n`);
    console.log(`Start to /readyz ${fixed(ready)} ms; RSS idle ${fixed(idle)} MiB.\n`);
    console.log(
      `${SECONDS} s per row, autocannon in the same 2-core machine as the server. Ratios: to the redirect (sign-in page) and to the sign-in page (other pages).\n`,
    );
    console.log('| target | conn. | req/s | ratio | p50 ms | p95 ms | p99 ms | errors |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const connections of CONNECTIONS) {
      const floors: Record<string, number> = {};
      for (const target of targets) {
        const f = await hammer(url, target, connections);
        floors[target.name] = f.rps;
        const redirect = floors['unknown path → sign-in (redirect floor)']!;
        const signIn = floors['/sign-in (page floor)'];
        const ratio = target.name.startsWith('/sign-in')
          ? f.rps / redirect
          : target.name.startsWith('/') && signIn && target.name !== '/healthz'
            ? f.rps / signIn
            : null;
        console.log(
          `| ${target.name} | ${connections} | ${fixed(f.rps)} | ${ratio === null ? '' : fixed(ratio, 2)} | ${fixed(f.p50)} | ${fixed(f.p95)} | ${fixed(f.p99)} | ${f.errors} |`,
        );
      }
    }
    console.log(`\nRSS after the runs: ${fixed(rssOf(child.pid!))} MiB.`);
  } finally {
    await stop(child);
  }
}

export async function loadBench(dataDir: string): Promise<void> {
  const secrets = { JWT_SECRET: 'b'.repeat(40), SESSION_SECRET: 'c'.repeat(40), ENCRYPTION_KEY: 'e'.repeat(40) };
  const demo = { DEMO_DATA: '1', ...secrets };
  // BENCH_LOAD_ON=pglite or postgres: one database only (a run disturbed on a shared machine).
  const on = process.env.BENCH_LOAD_ON;
  console.log('\n## Load (autocannon)');
  if (on !== 'postgres') {
    await loadOn('PGlite, demo workshop', { ...demo, DATA_DIR: path.join(dataDir, 'load-demo') });
    console.log(`\nPGlite, ${ORDER_COUNT.toLocaleString('en')} orders more:`);
    await (await buildWorkshop({ ...demo, DATA_DIR: path.join(dataDir, 'load-100k') })).close();
    await loadOn(`PGlite, demo workshop + ${ORDER_COUNT.toLocaleString('en')} orders`, { ...demo, DATA_DIR: path.join(dataDir, 'load-100k') });
  }
  if (on === 'pglite') return;
  const server = await startEmbeddedPostgres('atelier-bench-pg-');
  try {
    await loadOn('PostgreSQL, demo workshop', { ...demo, DATA_DIR: path.join(dataDir, 'load-pg'), DATABASE_URL: await server.database('load') });
    const big = { ...demo, DATA_DIR: path.join(dataDir, 'load-pg-100k'), DATABASE_URL: await server.database('load100k') };
    console.log(`\nPostgreSQL, ${ORDER_COUNT.toLocaleString('en')} orders more:`);
    await (await buildWorkshop(big)).close();
    await loadOn(`PostgreSQL, demo workshop + ${ORDER_COUNT.toLocaleString('en')} orders`, big);
  } finally {
    await server.stop();
  }
}
