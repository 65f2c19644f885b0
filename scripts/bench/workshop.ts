// The 100,000-order workshop for the repair orders' search (SPEC §2.7) and the load runs, written
// straight in SQL, and the database opened beside the server.
import { freePort, ms, spawnServer, stop, waitReady } from './support.ts';

export const ORDER_COUNT = 100_000;
export const BENCH_ADMIN = { ADMIN_EMAIL: 'banc@atelier.test', ADMIN_PASSWORD: 'Banc-Atelier-2026!' };
export const benchModels = ['ZF 8HP', 'ZF 6HP', 'Aisin TF-', 'Aisin AW', 'Jatco JF0', 'VW DQ', 'Getrag DCT', 'Mercedes 7G-', 'GM 6T', 'Ford 6F'].flatMap((f) =>
  ['30', '45', '50', '70'].map((v) => `${f}${v}`),
);
/** The letters of order i's gearbox code, as the insert below computes them (about 2,000 codes, 50 orders each). */
export const codeLetters = (i: number) => {
  const h = (((i * 7919) % 2000) * 8887) % 17576;
  return String.fromCharCode(65 + (h % 26), 65 + (Math.floor(h / 26) % 26), 65 + (Math.floor(h / 676) % 26));
};
export const ORDERS_SQL = `
  insert into gearbox_models (model, type, constructor_name, start_year, gears)
  select m, (array['automatic', 'double_clutch', 'variator', 'robotic'])[1 + k % 4], split_part(m, ' ', 1), 1995 + k % 25, 5 + k % 5
  from unnest($1::text[]) with ordinality as t(m, k)
  on conflict do nothing;
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
export function searchTerms(runs: number): Record<string, string[]> {
  const at = (k: number) => 1 + ((k * 48_271) % ORDER_COUNT);
  return {
    'number fragment': Array.from({ length: runs }, (_, k) => String(at(k)).padStart(6, '0').slice(1, 5)),
    'gearbox code': Array.from({ length: runs }, (_, k) => codeLetters(at(k)).toLowerCase()),
    'model name': Array.from({ length: runs }, (_, k) => benchModels[k % benchModels.length]!.toLowerCase()),
  };
}

/** The database outside the server: raw queries, and the app's own service whose SQL is kept. */
export async function openOrdersDb(env: Record<string, string>) {
  const { openDatabase, openPostgresClient } = await import('#server/db/client.ts');
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
    // The thread answers as PGlite does for what drizzle calls (query, transaction).
    db = drizzle(pglite as never, { schema, logger });
    raw = async (text, params) => {
      if (params) return pglite.query(text, params) as Promise<{ rows: Record<string, unknown>[] }>;
      const results = await pglite.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    };
    close = () => database.close();
  } else {
    await database.close();
    // The server's client (decision 084), with a logger of the queries.
    const opened = openPostgresClient(env.DATABASE_URL!, 2, logger);
    const client = opened.client;
    db = opened.db;
    raw = async (text, params) => ({ rows: await client.unsafe(text, params as never[]) });
    close = () => client.end();
  }
  // The service's own functions, as a signed-in reader calls them (the list reads the same for every role).
  const orders = createRepairOrdersService({ db: db as never });
  const reader = { id: '00000000-0000-0000-0000-000000000000', role: 'diagnostician' as const, sessionId: 'bench' };
  const service = {
    list: (filter: Parameters<typeof orders.list>[1]) => orders.list(reader, filter),
    count: (filter: Parameters<typeof orders.count>[1]) => orders.count(reader, filter),
  };
  return { raw, service, queries, close, db };
}

export type WorkshopDb = Awaited<ReturnType<typeof openOrdersDb>>;

/**
 * A new workshop with 100,000 more orders: the server's first start applies the migrations and
 * creates its users (and the demo, if `DEMO_DATA` says so), then the orders go in SQL.
 */
export async function buildWorkshop(env: Record<string, string>): Promise<WorkshopDb> {
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
  return handle;
}
