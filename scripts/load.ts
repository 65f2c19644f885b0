// npm run test:load (issue 19, item 4; decision 037): 50 simulated staff of mixed roles, each signed
// in with a live list open, working with think times (order lists searched and filtered, order
// pages, checkpoint answers or measure updates, stock moves and lists, uploads and downloads), for
// 5 minutes on one instance, then on two behind nginx; PostgreSQL and an S3 bucket. Prints per
// action count, errors and percentiles, each instance's memory, the live events received; exits
// non-zero on any error. LOAD_SECONDS shortens it, LOAD_STAFF changes the headcount, LOAD_ON=one
// or two runs one setup, LOAD_STORAGE=disk keeps files on the instance's disk (one instance
// only). The V8 heap comes from a diagnostic report each instance writes on SIGUSR2 (without its
// environment: the secrets), read and deleted at once.
import { randomBytes } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { type Cluster, startCluster } from '../tests/support/cluster.ts';
import { DEMO_PASSWORD, pct, startEmbeddedPostgres } from './bench/support.ts';
import {
  checkpointsOf,
  chooseRepair,
  createModel,
  createOrder,
  createOutage,
  createProcedure,
  createStockItems,
  finishDiagnostic,
} from '../tests/kit/builders.ts';
import { M } from '../tests/kit/documents.ts';
import { type Api, type Document, postGraphql } from '../tests/kit/graphql.ts';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 300);
const STAFF = Number(process.env.LOAD_STAFF ?? 50);
const ON = process.env.LOAD_ON ?? 'both';
const STORAGE = process.env.LOAD_STORAGE === 'disk' ? 'disk' : 's3';
/** A person reads a page or fills a field between two actions. */
const THINK_MS = [1_000, 4_000] as const;
const SAMPLE_MS = 10_000;

type Role = 'app_admin' | 'diagnostician' | 'mechanic' | 'commercial';
/** A workshop's mix, per ten people. */
const MIX: Role[] = [
  'app_admin',
  'diagnostician',
  'diagnostician',
  'diagnostician',
  'mechanic',
  'mechanic',
  'mechanic',
  'mechanic',
  'commercial',
  'commercial',
];

type Stats = { ms: number[]; errors: number; firstErrors: string[] };
const stats = new Map<string, Stats>();
function record(action: string, ms: number, error?: string) {
  let s = stats.get(action);
  if (!s) stats.set(action, (s = { ms: [], errors: 0, firstErrors: [] }));
  if (error) {
    s.errors++;
    if (s.firstErrors.length < 3) s.firstErrors.push(error.slice(0, 300));
  } else s.ms.push(ms);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const think = () => sleep(THINK_MS[0] + Math.random() * (THINK_MS[1] - THINK_MS[0]));
const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;

/** A person at a terminal: a page session (cookie) and the islands' API token, as a browser has. */
class Person {
  cookies = new Map<string, string>();
  token = '';
  live?: Client;
  events = 0;
  readonly base: string;
  readonly email: string;
  readonly role: Role;
  constructor(base: string, email: string, role: Role) {
    this.base = base;
    this.email = email;
    this.role = role;
  }

  private take(res: Response) {
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const [name, ...value] = pair!.split('=');
      if (/max-age=0/i.test(header) || value.join('=') === '') this.cookies.delete(name!);
      else this.cookies.set(name!, value.join('='));
    }
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(`${this.base}${path}`, { redirect: 'manual', ...init, headers });
    this.take(res);
    return res;
  }

  async signIn() {
    const form = await this.fetch('/sign-in', {
      method: 'POST',
      headers: { origin: this.base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: this.email, password: DEMO_PASSWORD }),
    });
    await form.arrayBuffer();
    if (form.status !== 303 || !this.cookies.has('atelier_session')) throw new Error(`sign-in form of ${this.email}: ${form.status}`);
    const api = await fetch(`${this.base}/api/auth/signin/email-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: this.email, password: DEMO_PASSWORD }),
    });
    const json = (await api.json()) as { session?: { accessToken: string } };
    if (!json.session) throw new Error(`sign-in API of ${this.email}: ${api.status}`);
    this.token = json.session.accessToken;
  }

  /** A page as the browser gets it: 200 and the whole document. */
  async page(path: string) {
    const res = await this.fetch(path);
    const body = await res.text();
    if (res.status !== 200 || !body.includes('</html>')) throw new Error(`${path}: ${res.status}`);
  }

  /** The data of a call, typed by its document; a refusal is thrown with its status and message. */
  async gql<Result = any, Variables = Record<string, unknown>>(document: Document<Result, Variables>, variables?: Variables): Promise<Result> {
    const { status, body } = await postGraphql(this.base, this.token, document, variables);
    if (body.errors?.length || !body.data) throw new Error(`GraphQL ${status}: ${body.errors?.[0]?.message}`);
    return body.data;
  }

  /** The same calls as a builder's client (tests/kit). */
  readonly api: Api = async (document, variables) => (await postGraphql(this.base, this.token, document, variables)).body;

  async upload(bytes: Buffer, name: string): Promise<string> {
    const form = new FormData();
    form.append('bucket-id', 'measure');
    form.append('file[]', new Blob([new Uint8Array(bytes)]), name);
    const res = await fetch(`${this.base}/api/storage/files`, { method: 'POST', headers: { authorization: `Bearer ${this.token}` }, body: form });
    const json = (await res.json()) as { processedFiles?: { id: string }[] };
    if (res.status !== 201 || !json.processedFiles?.[0]) throw new Error(`upload: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    return json.processedFiles[0].id;
  }

  async download(id: string, expected?: Buffer) {
    const res = await fetch(`${this.base}/api/storage/files/${id}`, { headers: { authorization: `Bearer ${this.token}` } });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`download: ${res.status}`);
    if (expected && !body.equals(expected)) throw new Error('download: other bytes than uploaded');
  }

  async remove(id: string) {
    const res = await fetch(`${this.base}/api/storage/files/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${this.token}` } });
    await res.arrayBuffer();
    if (res.status !== 204 && res.status !== 200) throw new Error(`delete: ${res.status}`);
  }

  /** The live list the person keeps open on screen; every change it receives is counted. */
  openLive(query: string, variables: object): Promise<void> {
    const origin = this.base;
    class BrowserSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { origin } });
      }
    }
    this.live = createClient({
      url: `${this.base.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: BrowserSocket,
      retryAttempts: 0,
      connectionParams: { headers: { Authorization: `Bearer ${this.token}` } },
    });
    return new Promise((resolve, reject) => {
      let first = true;
      this.live!.subscribe(
        { query, variables: variables as Record<string, unknown> },
        {
          next: (value) => {
            if (value.errors) record('live list', 0, value.errors[0]!.message);
            if (first) {
              first = false;
              resolve();
            } else this.events++;
          },
          error: (error) => {
            const message = error instanceof Error ? error.message : `closed ${(error as { code?: number }).code ?? ''}`;
            if (first) reject(new Error(message));
            else if (!stopping) record('live list', 0, message);
          },
          complete: () => {
            if (!stopping) record('live list', 0, 'completed by the server');
          },
        },
      );
    });
  }
}

let stopping = false;

/** What each person works on, made through the API before the clock starts. */
type Work = {
  modelId: string;
  demoOrders: string[];
  sharedFile: { id: string; bytes: Buffer };
  followed: { orderId: string; checkpointIds: string[] }[];
};

const csv = (rows: number) => Buffer.from(`temps;pression\n${Array.from({ length: rows }, (_, i) => `${i};${(4 + Math.random()).toFixed(3)}`).join('\n')}\n`);

async function prepareAccounts(databaseUrl: string, count: number): Promise<{ email: string; role: Role }[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // The demo accounts and the colleagues who have a password (server/demo/seed.ts).
    const { rows } = await client.query<{ email: string; role: Role }>(
      "select email, default_role as role from auth.users where password_hash is not null and not disabled and email like '%@demo.local' order by email",
    );
    const people: { email: string; role: Role }[] = [];
    const free = [...rows];
    for (let i = 0; i < count; i++) {
      const role = MIX[i % MIX.length]!;
      const at = free.findIndex((r) => r.role === role);
      if (at >= 0) {
        people.push(free.splice(at, 1)[0]!);
        continue;
      }
      // More colleagues of the same workshop, with the demo password (its hash, copied).
      const email = `charge.${role.replace('_', '-')}.${i}@demo.local`;
      await client.query(
        `insert into auth.users (email, display_name, default_role, email_verified, password_hash)
         select $1, $2, $3, true, password_hash from auth.users where email = 'admin@demo.local'`,
        [email, `Collègue ${i}`, role],
      );
      people.push({ email, role });
    }
    return people;
  } finally {
    await client.end();
  }
}

async function prepareWork(admin: Person, diagnostician: Person, people: Person[]): Promise<{ work: Work; plans: Map<Person, Plan> }> {
  const tag = randomBytes(3).toString('hex');
  const modelId = await createModel(admin.api, { model: `Charge ${tag}`, type: 'automatic', constructorName: 'ZF', startYear: 2012 });
  const outageId = await createOutage(diagnostician.api, modelId, { component: 'Mécatronique', outageType: 'Usure' });
  const procedureId = await createProcedure(diagnostician.api, modelId, {
    name: 'Remplacement mécatronique',
    steps: ['Vidanger', 'Déposer', 'Reposer'],
    checkpoints: [{ name: 'Pression de ligne' }, { name: 'Essai routier' }],
  });
  let n = 0;
  const newOrder = () =>
    createOrder(diagnostician.api, { number: `CH-${tag}-${++n}`, openedOn: '2026-11-20', interventionCategory: 'gearbox_only', gearboxModelId: modelId });
  /** An order whose procedure is on the floor: two checkpoints to answer. */
  const followedOrder = async () => {
    const orderId = await newOrder();
    await chooseRepair(diagnostician.api, orderId, { outageId, procedureId });
    await finishDiagnostic(diagnostician.api, orderId, { symptom: { symptom: 'Patinage', temporality: 'during' }, measuresDone: true });
    return { orderId, checkpointIds: (await checkpointsOf(diagnostician.api, orderId)).map((c) => c.id) };
  };

  const demoOrders: string[] = (await admin.gql('{ repairOrders(limit: 60) { id } }')).repairOrders.map((o: { id: string }) => o.id);
  const bytes = csv(400);
  const sharedFile = { id: await diagnostician.upload(bytes, 'courbe-pression.csv'), bytes };

  // Two people follow each order on the floor, one checkpoint each: no answer conflicts by design.
  const followers = people.filter((p) => p.role === 'mechanic' || p.role === 'app_admin');
  const followed: Work['followed'] = [];
  for (let i = 0; i < followers.length; i += 2) followed.push(await followedOrder());
  const commercials = people.filter((p) => p.role === 'commercial');
  const boxes = commercials.length
    ? await createStockItems(admin.api, {
        gearboxModelId: modelId,
        condition: 'used',
        rack: 'C1',
        level: 1,
        addedOn: '2026-11-20',
        quantity: commercials.length,
      })
    : [];
  const plans = new Map<Person, Plan>();
  for (const [i, person] of followers.entries()) {
    const order = followed[Math.floor(i / 2)]!;
    plans.set(person, { order: order.orderId, checkpoint: { id: order.checkpointIds[i % 2]!, version: 0 } });
  }
  for (const [i, person] of commercials.entries()) plans.set(person, { order: pick(demoOrders), box: { id: boxes[i]!, version: 1, rack: 'C1', level: 1 } });
  for (const person of people.filter((p) => p.role === 'diagnostician')) {
    const orderId = await newOrder();
    await diagnostician.gql(M.setMeasuresDone, { o: orderId, d: true });
    const measureId = (await diagnostician.gql(M.insertOrderMeasure, { o: orderId, m: { name: 'Pression de ligne', unit: 'bar', measuredValue: 4.2 } }))
      .insertOrderMeasure;
    plans.set(person, { order: orderId, measure: measureId, watch: pick(followed).orderId });
  }
  return { work: { modelId, demoOrders, sharedFile, followed }, plans };
}

type Plan = {
  order: string;
  checkpoint?: { id: string; version: number };
  box?: { id: string; version: number; rack: string; level: number };
  measure?: string;
  /** The order on the floor a diagnostician keeps an eye on. */
  watch?: string;
};

const SEARCHES = [
  '',
  'recherche=8hp',
  'recherche=zf',
  'recherche=aisin',
  'categorie=gearbox_only',
  'recherche=CH-',
  'type=automatic&tri=date&ordre=desc',
  'page=2',
];

/** One person's working day, action after action, until the clock stops. */
async function workDay(person: Person, plan: Plan, work: Work, until: number) {
  const act = async (action: string, run: () => Promise<void>) => {
    const t0 = performance.now();
    try {
      await run();
      record(action, performance.now() - t0);
    } catch (error) {
      record(action, performance.now() - t0, error instanceof Error ? error.message : String(error));
    }
    await think();
  };
  const list = () => act('order list (search, filter)', () => person.page(`/repair-orders?${pick(SEARCHES)}`));
  const orderPage = (id: string) => act('order page', () => person.page(`/repair-order/${id}`));
  const results = ['ok', 'nok', 'high_tolerance', 'low_tolerance'] as const;
  const checkpoint = () =>
    act('checkpoint answer', async () => {
      const c = plan.checkpoint!;
      const answer = await person.gql(M.answerOrderCheckpoint, {
        id: c.id,
        v: c.version,
        o: { checkResult: pick(results), measuredValue: (3 + Math.random() * 2).toFixed(2) },
      });
      c.version = answer.answerOrderCheckpoint.version;
    });
  const measure = () =>
    act('measure update', async () => {
      await person.gql(M.updateOrderMeasure, {
        id: plan.measure!,
        m: { name: 'Pression de ligne', unit: 'bar', measuredValue: Number((3 + Math.random() * 2).toFixed(2)) },
      });
    });
  const stockPage = () => act('stock list', () => person.page(`/stock?${pick(['', 'rayon=C1', 'recherche=8hp'])}`));
  const stockMove = () =>
    act('stock move', async () => {
      const box = plan.box!;
      // Always somewhere else: a box left where it is keeps its version.
      const places = ['C1', 'C2', 'C3'].flatMap((rack) => [1, 2, 3, 4].map((level) => ({ rack, level })));
      const to = pick(places.filter((p) => p.rack !== box.rack || p.level !== box.level));
      await person.gql(M.moveStockItem, {
        id: box.id,
        v: box.version,
        r: to.rack,
        l: to.level,
      });
      Object.assign(box, to, { version: box.version + 1 });
    });
  const uploadAndDownload = async () => {
    const bytes = csv(50 + Math.floor(Math.random() * 200));
    let id: string | undefined;
    await act('upload', async () => {
      id = await person.upload(bytes, `mesure-${randomBytes(3).toString('hex')}.csv`);
    });
    if (!id) return;
    await act('download (own upload)', () => person.download(id!, bytes));
    await act('file delete', () => person.remove(id!));
  };
  const download = () => act('download', () => person.download(work.sharedFile.id, work.sharedFile.bytes));

  const day: Record<Role, (() => Promise<void>)[]> = {
    mechanic: [list, () => orderPage(plan.order), checkpoint, () => orderPage(pick(work.demoOrders)), download, () => orderPage(plan.order), checkpoint],
    app_admin: [list, () => orderPage(plan.order), checkpoint, stockPage, uploadAndDownload],
    diagnostician: [list, () => orderPage(plan.order), measure, stockPage, uploadAndDownload, () => orderPage(pick(work.demoOrders))],
    commercial: [list, stockPage, stockMove, () => orderPage(plan.order), download, stockPage],
  };
  // Not all at the same step: each starts somewhere in its round, after a first read.
  const steps = day[person.role];
  let step = Math.floor(Math.random() * steps.length);
  await sleep(Math.random() * THINK_MS[1]);
  while (Date.now() < until) await steps[step++ % steps.length]!();
}

/** The table's order: sign-in, then as a day goes. */
const ORDER = [
  'sign-in (form and API)',
  'order list (search, filter)',
  'order page',
  'checkpoint answer',
  'measure update',
  'stock list',
  'stock move',
  'upload',
  'download (own upload)',
  'file delete',
  'download',
  'live list',
];

const fixed = (v: number | undefined, digits = 0) => (v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));

async function run(label: string, cluster: Cluster): Promise<number> {
  stats.clear();
  stopping = false;
  console.log(`\n## ${label}\n`);
  const accounts = await prepareAccounts(cluster.databaseUrl, STAFF);
  const people = accounts.map((a) => new Person(cluster.url, a.email, a.role));
  // Sign-ins five at a time (argon2 is the heavy part), timed but before the clock starts.
  for (let i = 0; i < people.length; i += 5) {
    await Promise.all(
      people.slice(i, i + 5).map(async (p) => {
        const t0 = performance.now();
        await p.signIn();
        record('sign-in (form and API)', performance.now() - t0);
      }),
    );
  }
  const admin = people.find((p) => p.role === 'app_admin')!;
  const diagnostician = people.find((p) => p.role === 'diagnostician')!;
  const { work, plans } = await prepareWork(admin, diagnostician, people);
  for (const person of people) {
    const plan = plans.get(person)!;
    if (person.role === 'commercial')
      await person.openLive('subscription($m: uuid) { stockItems(modelId: $m) { id rack level version } }', { m: work.modelId });
    else
      await person.openLive('subscription($o: uuid!) { orderCheckpoints(repairOrderId: $o) { id checkResult measuredValue version } }', {
        o: plan.watch ?? plan.order,
      });
  }
  const signIns = stats.get('sign-in (form and API)')!;
  stats.clear();
  stats.set('sign-in (form and API)', signIns);

  const samples = new Map(cluster.instances.map((i) => [i, { rss: [] as number[], heap: [] as number[] }]));
  const sample = async () => {
    for (const [instance, values] of samples) {
      values.rss.push(instance.rss());
      const heap = await instance.heap();
      if (heap !== undefined) values.heap.push(heap);
    }
  };
  await sample();
  const sampler = setInterval(() => void sample(), SAMPLE_MS);
  const requestsBefore = new Map(cluster.instances.map((i) => [i, i.requests]));
  const started = Date.now();
  const until = started + SECONDS * 1000;
  const roles = Object.entries(countRoles(people)).map(([role, n]) => `${n} ${role}`);
  console.log(
    `${people.length} people (${roles.join(', ')}), ${SECONDS} s, think time ${THINK_MS[0] / 1000}–${THINK_MS[1] / 1000} s, files on ${cluster.storage}.\n`,
  );
  await Promise.all(people.map((p) => workDay(p, plans.get(p)!, work, until)));
  const elapsed = (Date.now() - started) / 1000;
  clearInterval(sampler);
  await sample();
  stopping = true;
  const events = people.reduce((sum, p) => sum + p.events, 0);
  await Promise.all(people.map((p) => p.live?.dispose()));

  console.log('| action | count | errors | per s | p50 ms | p95 ms | p99 ms | max ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  let errors = 0;
  const rows = [...stats].sort(([a], [b]) => ORDER.indexOf(a) - ORDER.indexOf(b));
  for (const [action, s] of rows) {
    errors += s.errors;
    const per = action.startsWith('sign-in') ? '' : fixed(s.ms.length / elapsed, 1);
    console.log(
      `| ${action} | ${s.ms.length + s.errors} | ${s.errors} | ${per} | ${fixed(pct(s.ms, 50))} | ${fixed(pct(s.ms, 95))} | ${fixed(pct(s.ms, 99))} | ${fixed(Math.max(...s.ms))} |`,
    );
  }
  console.log(`\nLive lists: ${people.length} open for the whole run, ${events} changes received (${fixed(events / elapsed, 1)} per s).\n`);
  console.log('| instance | requests | memory MiB | start | middle | end | max | end − start |');
  console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [instance, values] of samples) {
    for (const [kind, series] of [
      ['RSS', values.rss],
      ['V8 heap used', values.heap],
    ] as const) {
      if (!series.length) continue;
      const start = series[0]!;
      const end = series.at(-1)!;
      const who = kind === 'RSS' ? `${instance.name} (pid ${instance.child.pid}) | ${instance.requests - requestsBefore.get(instance)!}` : ' | ';
      console.log(
        `| ${who} | ${kind} | ${fixed(start)} | ${fixed(series[Math.floor(series.length / 2)])} | ${fixed(end)} | ${fixed(Math.max(...series))} | ${end - start >= 0 ? '+' : ''}${fixed(end - start)} |`,
      );
    }
  }
  for (const [instance, values] of samples) {
    console.log(`
Instance ${instance.name}, every ${SAMPLE_MS / 1000} s, RSS: ${values.rss.map((x) => fixed(x)).join(' ')}`);
    if (values.heap.length) console.log(`Instance ${instance.name}, every ${SAMPLE_MS / 1000} s, V8 heap used: ${values.heap.map((x) => fixed(x)).join(' ')}`);
  }
  for (const instance of cluster.instances) {
    errors += instance.errors.length;
    for (const line of instance.errors.slice(0, 3)) console.log(`instance ${instance.name} logged: ${JSON.stringify(line).slice(0, 300)}`);
  }
  for (const [action, s] of stats) for (const message of s.firstErrors) console.log(`error in ${action}: ${message}`);
  console.log(`\n${errors === 0 ? 'No error.' : `${errors} error(s).`}`);
  return errors;
}

function countRoles(people: Person[]) {
  const counts: Record<string, number> = {};
  for (const p of people) counts[p.role] = (counts[p.role] ?? 0) + 1;
  return counts;
}

const postgres = await startEmbeddedPostgres('atelier-load-pg-');
let failures = 0;
try {
  console.log(`# Load: ${STAFF} staff for ${SECONDS} s (npm run test:load)`);
  // Wider sign-in limits: the whole workshop signs in from this one address within a minute.
  const env = { AUTH_RATE_LIMIT_FACTOR: '100' };
  if (ON !== 'two') {
    const cluster = await startCluster({
      instances: 1,
      proxy: false,
      storage: STORAGE,
      databaseUrl: await postgres.database('load_one'),
      env,
      keepLines: false,
      heapReports: true,
    });
    try {
      failures += await run('One instance (PostgreSQL, no proxy)', cluster);
    } finally {
      await cluster.stop();
    }
  }
  if (ON !== 'one') {
    const cluster = await startCluster({
      instances: 2,
      storage: STORAGE,
      databaseUrl: await postgres.database('load_two'),
      env,
      keepLines: false,
      heapReports: true,
    });
    try {
      failures += await run('Two instances behind nginx (PostgreSQL, round robin)', cluster);
    } finally {
      await cluster.stop();
    }
  }
} finally {
  await postgres.stop();
}
process.exit(failures ? 1 : 0);
