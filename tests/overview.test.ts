// The workshop at a glance (issue 32, decision 089): a history of 18 orders written by hand, whose
// every figure is known, counted by the service on each database: ages on a given day, referents,
// ISO weeks across the end of summer time, the days from opening to closing (median, 90th
// percentile), reopenings on either side of Paris's midnight, the outages ranked as the dossier
// counts them, the stock. Each figure's link, read by the orders list, counts the same orders.
import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import { queryRows } from '#server/db/client.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '#server/db/schema/index.ts';
import { ageBuckets, ageHref, overviewLinks, overviewPeriod, overviewPresets, weekInPeriod, weekLabel } from '#lib/repair-orders/overview.ts';
import * as ordersScreen from '#pages/_repair-orders.screen.ts';
import { databaseKinds, SOMEONE, startTestApp, type TestApp } from './support/app.ts';

const PERIOD = { from: '2026-09-01', to: '2026-11-29' };
const TODAY = '2026-11-29';

type Seed = {
  number: string;
  opened: string;
  closed?: string;
  category: 'mechatronics_only' | 'complete_car' | 'gearbox_only';
  ref: 'A' | 'D' | null;
  model?: 'X' | 'Y';
};
const M = 'mechatronics_only';
const C = 'complete_car';
const G = 'gearbox_only';
const ORDERS: Seed[] = [
  // In progress, by age on 29/11: 0 and 6 days, 7 and 29, 30 and 89, 90 and more.
  { number: 'OV-O1', opened: '2026-11-29', category: M, ref: 'A' },
  { number: 'OV-O2', opened: '2026-11-23', category: C, ref: 'A' },
  { number: 'OV-O3', opened: '2026-11-22', category: G, ref: 'D' },
  { number: 'OV-O4', opened: '2026-10-31', category: M, ref: null },
  { number: 'OV-O5', opened: '2026-10-30', category: M, ref: 'D' },
  { number: 'OV-O6', opened: '2026-09-01', category: C, ref: 'A' },
  { number: 'OV-O7', opened: '2026-08-31', category: G, ref: 'D' },
  { number: 'OV-O8', opened: '2025-01-10', category: M, ref: null },
  // Closed in the period: mechatronics in 2, 4, 6 and 10 days; complete car in 3, 7, 20; gearbox in 12.
  { number: 'OV-C1', opened: '2026-10-23', closed: '2026-10-25', category: M, ref: 'A' },
  { number: 'OV-C2', opened: '2026-10-22', closed: '2026-10-26', category: M, ref: 'D' },
  { number: 'OV-C3', opened: '2026-08-28', closed: '2026-09-03', category: M, ref: 'A' },
  { number: 'OV-C4', opened: '2026-11-10', closed: '2026-11-20', category: M, ref: null },
  { number: 'OV-C5', opened: '2026-09-07', closed: '2026-09-10', category: C, ref: 'D' },
  { number: 'OV-C6', opened: '2026-09-14', closed: '2026-09-21', category: C, ref: 'D' },
  { number: 'OV-C7', opened: '2026-10-01', closed: '2026-10-21', category: C, ref: 'A' },
  { number: 'OV-C8', opened: '2026-11-16', closed: '2026-11-28', category: G, ref: 'A' },
  // Closed before the period: history, but no figure of the period.
  { number: 'OV-C9', opened: '2026-08-20', closed: '2026-08-31', category: M, ref: 'D' },
  { number: 'OV-C10', opened: '2026-06-01', closed: '2026-06-10', category: G, ref: null, model: 'Y' },
];
/** Reopenings: Paris is UTC+2 until 25/10 at 3:00, then UTC+1. */
const REOPENINGS: [string, string][] = [
  ['OV-O7', '2026-08-31T21:30:00Z'], // 31/08 23:30 in Paris: before the period
  ['OV-C3', '2026-08-31T22:30:00Z'], // 01/09 00:30 in Paris: its first day
  ['OV-C1', '2026-10-24T22:30:00Z'], // 25/10 00:30, summer time
  ['OV-C1', '2026-10-25T10:00:00Z'], // 25/10 11:00, winter time
  ['OV-O2', '2026-11-29T22:59:00Z'], // 29/11 23:59: its last day
  ['OV-C1', '2026-11-29T23:00:00Z'], // 30/11 00:00: after it
];
/** The outages the orders retained (only closed orders are history, decision 018). */
const RETAINED: [string, 'P1' | 'P2' | 'P3' | 'Q1'][] = [
  ['OV-C1', 'P1'],
  ['OV-C2', 'P1'],
  ['OV-C3', 'P1'],
  ['OV-C9', 'P1'],
  ['OV-O1', 'P1'],
  ['OV-C4', 'P2'],
  ['OV-C5', 'P2'],
  ['OV-C6', 'P3'],
  ['OV-C10', 'Q1'],
];
const MILEAGES: Record<string, string> = { 'OV-C1': '0_to_50000', 'OV-C2': '50000_to_100000', 'OV-C9': '100000_to_150000' };

describe.each(databaseKinds)('the workshop at a glance on %s', (kind) => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  let admin: { id: string; displayName: string };
  let diagnostician: { id: string; displayName: string };

  const one = async <T>(query: SQL) => (await queryRows<T>(t.database.db, query))[0]!;

  beforeAll(async () => {
    t = await startTestApp(kind);
    const db = t.database.db;
    // The workshop's own history only: the demo's orders and stock would change every figure.
    await db.execute(sql`delete from repair_orders`);
    await db.execute(sql`delete from stock_items`);
    const people = await db
      .select({ id: users.id, email: users.email, displayName: users.displayName })
      .from(users)
      .where(inArray(users.email, ['admin@demo.local', 'diagnostic@demo.local']));
    admin = people.find((p) => p.email === 'admin@demo.local')!;
    diagnostician = people.find((p) => p.email === 'diagnostic@demo.local')!;
    for (const name of ['X', 'Y']) {
      const row = await one<{ id: string }>(
        sql`insert into gearbox_models (model, type, constructor_name, start_year) values (${`OV-${name}`}, 'automatic', 'Test', 2010) returning id`,
      );
      ids[name] = row.id;
    }
    const component = await one<{ id: string }>(sql`insert into base_items (kind, name) values ('component', 'OV Embrayage') returning id`);
    const types = await Promise.all(
      ['OV Usure', 'OV Fuite', 'OV Casse'].map((name) =>
        one<{ id: string }>(sql`insert into base_items (kind, name) values ('outage_type', ${name}) returning id`),
      ),
    );
    for (const [i, outage] of (['P1', 'P2', 'P3', 'Q1'] as const).entries()) {
      const row = await one<{ id: string }>(
        sql`insert into outages (gearbox_model_id, component_id, outage_type_id) values (${ids[outage === 'Q1' ? 'Y' : 'X']}, ${component.id}, ${types[i % 3]!.id}) returning id`,
      );
      ids[outage] = row.id;
    }
    for (const o of ORDERS) {
      const referent = o.ref === 'A' ? admin.id : o.ref === 'D' ? diagnostician.id : null;
      const row = await one<{ id: string }>(
        sql`insert into repair_orders (number, opened_on, closed_on, status, intervention_category, gearbox_model_id, referent_id, mileage)
            values (${o.number}, ${o.opened}, ${o.closed ?? null}, ${o.closed ? 'CLOSED' : 'IN_PROGRESS'}, ${o.category}, ${ids[o.model ?? 'X']}, ${referent}, ${MILEAGES[o.number] ?? null})
            returning id`,
      );
      ids[o.number] = row.id;
    }
    for (const [number, at] of REOPENINGS)
      await db.execute(sql`insert into order_events (repair_order_id, kind, at) values (${ids[number]}, 'reopened', ${at}::timestamptz)`);
    for (const [number, outage] of RETAINED)
      await db.execute(sql`insert into order_outages (repair_order_id, outage_id, position) values (${ids[number]}, ${ids[outage]}, 1)`);
    // Stock: three boxes of X in A1, one of Y in B2; one of X taken out.
    for (const [model, rack, out] of [
      ['X', 'A1', null],
      ['X', 'A1', null],
      ['X', 'A1', null],
      ['Y', 'B2', null],
      ['X', 'A1', '2026-11-01'],
    ] as const)
      await db.execute(
        sql`insert into stock_items (gearbox_model_id, condition, rack, level, added_on, out_on) values (${ids[model]}, 'used', ${rack}, 1, '2026-10-01', ${out})`,
      );
  });
  afterAll(() => t?.close());

  const figures = () => t.app.domain.overview.orderFigures(SOMEONE, PERIOD, TODAY);
  /** What the orders list counts under a link's filters, read as the list reads its URL. */
  const listed = async (href: string) => {
    const query = ordersScreen.read(new URL(href, 'http://x').searchParams);
    return t.app.domain.repairOrders.count(SOMEONE, query);
  };

  it('counts the orders by status, and the open ones by age on the given day, as the list filtered by status and opening days', async () => {
    const f = await figures();
    expect(f.statuses).toEqual([
      { status: 'IN_PROGRESS', n: 8 },
      { status: 'CLOSED', n: 10 },
    ]);
    expect(f.ages).toEqual([
      { bucket: 'under7', n: 2 },
      { bucket: 'under30', n: 2 },
      { bucket: 'under90', n: 2 },
      { bucket: 'over90', n: 2 },
    ]);
    for (const { id } of ageBuckets) expect(await listed(ageHref(id, TODAY)), id).toBe(2);
    expect(await listed(overviewLinks.status('CLOSED'))).toBe(10);
    expect(await listed(overviewLinks.status('IN_PROGRESS'))).toBe(8);
  });

  it('counts per referent the open orders and those opened in the period, the orders without one apart', async () => {
    const f = await figures();
    expect(f.referents).toEqual([
      { referentId: admin.id, name: admin.displayName, open: 3, opened: 6 },
      { referentId: diagnostician.id, name: diagnostician.displayName, open: 3, opened: 5 },
      { referentId: null, name: null, open: 2, opened: 2 },
    ]);
    for (const r of f.referents) {
      expect(await listed(overviewLinks.referentOpen(r.referentId))).toBe(r.open);
      expect(await listed(overviewLinks.referentOpened(r.referentId, PERIOD))).toBe(r.opened);
    }
  });

  it('counts the orders opened and closed per ISO week, a Sunday of the change to winter time in its own week', async () => {
    const f = await figures();
    const weeks = Object.fromEntries(f.weeks.map((w) => [w.week, [w.opened, w.closed]]));
    expect(f.weeks.map((w) => w.week)).toEqual([
      '2026-08-31',
      '2026-09-07',
      '2026-09-14',
      '2026-09-21',
      '2026-09-28',
      '2026-10-05',
      '2026-10-12',
      '2026-10-19',
      '2026-10-26',
      '2026-11-02',
      '2026-11-09',
      '2026-11-16',
      '2026-11-23',
    ]);
    expect(weeks).toEqual({
      '2026-08-31': [1, 1],
      '2026-09-07': [1, 1],
      '2026-09-14': [1, 0],
      '2026-09-21': [0, 1],
      '2026-09-28': [1, 0],
      '2026-10-05': [0, 0],
      '2026-10-12': [0, 0],
      '2026-10-19': [2, 2],
      '2026-10-26': [2, 1],
      '2026-11-02': [0, 0],
      '2026-11-09': [1, 0],
      '2026-11-16': [2, 1],
      '2026-11-23': [2, 1],
    });
    for (const w of f.weeks) {
      const days = weekInPeriod(w.week, PERIOD);
      expect(await listed(overviewLinks.openedIn(days)), w.week).toBe(w.opened);
      expect(await listed(overviewLinks.closedIn(days)), w.week).toBe(w.closed);
    }
    // The period's first week starts on its Tuesday: the Monday before is not counted.
    expect(weekInPeriod('2026-08-31', PERIOD)).toEqual({ from: '2026-09-01', to: '2026-09-06' });
  });

  it('gives the median and the 90th percentile of the days from opening to closing per category, over the orders closed in the period', async () => {
    const f = await figures();
    expect(f.durations).toEqual([
      { category: 'complete_car', n: 3, median: 7, p90: 17.4 },
      { category: 'gearbox_only', n: 1, median: 12, p90: 12 },
      { category: 'mechatronics_only', n: 4, median: 5, p90: 8.8 },
    ]);
    for (const d of f.durations) expect(await listed(overviewLinks.closedIn(PERIOD, d.category))).toBe(d.n);
  });

  it('counts the orders reopened in the period by the day of Paris, midnight on either side', async () => {
    const f = await figures();
    expect(f.reopened).toEqual({ orders: 3, reopenings: 4 });
    expect(await listed(overviewLinks.reopenedIn(PERIOD))).toBe(3);
  });

  it('ranks the outages of each model as the dossier counts them, from closed orders only', async () => {
    const ranked = await t.app.domain.gearboxModels.mostFrequentOutages(SOMEONE, { models: 8, perModel: 2 });
    expect(ranked.map((o) => [o.model, o.id, o.orderCount, o.history, o.ordersAverageMileage])).toEqual([
      ['OV-X', ids.P1, 4, 9, 75000],
      ['OV-X', ids.P2, 2, 9, null],
      ['OV-Y', ids.Q1, 1, 1, null],
    ]);
    // The same numbers as the dossier's outages tab and its history.
    const dossier = await t.app.domain.gearboxModels.outagesOf(SOMEONE, ids.X!);
    for (const o of ranked.filter((r) => r.modelId === ids.X)) {
      const same = dossier.find((d) => d.id === o.id)!;
      expect([o.orderCount, o.ordersAverageMileage]).toEqual([same.orderCount, same.ordersAverageMileage]);
    }
    expect(await t.app.domain.gearboxModels.orderCountOf(SOMEONE, ids.X!)).toBe(9);
    // Each figure's link: the list of the closed orders behind it, as many as it says.
    for (const o of ranked) expect(await listed(overviewLinks.outage(o.modelId, o.id)), o.id).toBe(o.orderCount);
    // A status and a model alone are read from the models' counts: the same numbers.
    expect(await listed(`/repair-orders?statut=CLOSED&modele=${ids.X}`)).toBe(9);
    expect(await listed(`/repair-orders?statut=IN_PROGRESS&modele=${ids.X}`)).toBe(8);
    expect(await listed(`/repair-orders?statut=CLOSED&modele=${ids.Y}`)).toBe(1);
  });

  it('counts the boxes in stock by rack, those taken out left aside', async () => {
    expect(await t.app.domain.stock.rackCounts(SOMEONE)).toEqual([
      { rack: 'A1', n: 3 },
      { rack: 'B2', n: 1 },
    ]);
    expect(await t.app.domain.stock.count(SOMEONE, { rack: 'A1' })).toBe(3);
  });

  it('refuses a period whose day does not exist', async () => {
    await expect(t.app.domain.overview.orderFigures(SOMEONE, { from: '2026-02-31', to: TODAY })).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('offers the referent a list is filtered by in its select, even one who no longer is', async () => {
    const [mechanic] = await t.database.db.select({ id: users.id, name: users.displayName }).from(users).where(eq(users.email, 'mecanicien@demo.local'));
    const offered = async (also?: string) => (await t.app.domain.repairOrders.referents(SOMEONE, also)).map((r) => r.id);
    expect(await offered()).not.toContain(mechanic!.id);
    expect(await offered(mechanic!.id)).toContain(mechanic!.id);
    expect(await offered(mechanic!.id)).toContain(diagnostician.id);
  });

  it('refuses a period longer than 3 years, and a list day past 2999, as a bad value', async () => {
    await expect(t.app.domain.overview.orderFigures(SOMEONE, { from: '1900-01-01', to: '2999-12-31' })).rejects.toMatchObject({ kind: 'invalid' });
    await expect(t.app.domain.overview.orderFigures(SOMEONE, { from: '2023-11-29', to: '2026-11-30' })).rejects.toMatchObject({ kind: 'invalid' });
    expect((await t.app.domain.overview.orderFigures(SOMEONE, { from: '2023-11-29', to: '2026-11-29' })).weeks).toHaveLength(157);
    await expect(t.app.domain.repairOrders.count(SOMEONE, { reopenedFrom: '2026-01-01', reopenedTo: '9999-12-31' })).rejects.toMatchObject({ kind: 'invalid' });
    await expect(t.app.domain.repairOrders.count(SOMEONE, { closedTo: '9999-12-31' })).rejects.toMatchObject({ kind: 'invalid' });
  });
});

describe('the period of the overview', () => {
  it('shows the 12 weeks to today for a period longer than 3 years, and keeps the one asked to say so', () => {
    expect(overviewPeriod('1900-01-01', '2999-12-31', TODAY)).toEqual({
      from: '2026-09-07',
      to: TODAY,
      ignored: { from: '1900-01-01', to: '2999-12-31', why: 'tooLong' },
      capped: null,
    });
    expect(overviewPeriod('1900-01-01', null, TODAY)).toMatchObject({ from: '2026-09-07', to: TODAY });
    expect(overviewPeriod('2023-11-29', TODAY, TODAY)).toEqual({ from: '2023-11-29', to: TODAY, ignored: null, capped: null });
  });

  it('starts the default and the week presets on a Monday, so that no week of the chart is cut at its start', () => {
    // Thursday 26/11/2026: the 12 ISO weeks to it start on Monday 07/09.
    expect(overviewPeriod(null, null, '2026-11-26')).toEqual({ from: '2026-09-07', to: '2026-11-26', ignored: null, capped: null });
    expect(overviewPresets.map((p) => p.from('2026-11-26')).slice(0, 2)).toEqual(['2026-11-02', '2026-09-07']);
  });

  it('stops a period ending after today at today and keeps the end asked to say so', () => {
    // This calendar year asked in November: its figures to today, the page says where it stopped.
    expect(overviewPeriod('2026-01-01', '2026-12-31', TODAY)).toEqual({ from: '2026-01-01', to: TODAY, ignored: null, capped: '2026-12-31' });
    // An end alone far ahead: the 12 weeks to today, not 12 weeks of nothing before 2100.
    expect(overviewPeriod(null, '2100-01-01', TODAY)).toEqual({ from: '2026-09-07', to: TODAY, ignored: null, capped: '2100-01-01' });
    // Longer than 3 years once stopped at today: still too long, said as such.
    expect(overviewPeriod('2020-01-01', '2100-01-01', TODAY)).toMatchObject({ from: '2026-09-07', to: TODAY, ignored: { why: 'tooLong' } });
  });

  it('ignores a period starting after today, the 12 weeks to today shown instead', () => {
    expect(overviewPeriod('2027-01-01', '2027-03-31', TODAY)).toEqual({
      from: '2026-09-07',
      to: TODAY,
      ignored: { from: '2027-01-01', to: '2027-03-31', why: 'future' },
      capped: null,
    });
    expect(overviewPeriod('2026-12-01', null, TODAY)).toMatchObject({ from: '2026-09-07', to: TODAY, ignored: { why: 'future' } });
  });

  it('names each week of a 12-month period apart, by its number and its first day with the year', () => {
    const period = { from: '2025-11-30', to: TODAY };
    // Two weeks 48, a year apart.
    expect(weekLabel('2025-11-24', period)).toBe('S48 · 30/11/2025');
    expect(weekLabel('2026-11-23', period)).toBe('S48 · 23/11/2026');
    // Week 1 of 2026 starts in 2025: its first day says so.
    expect(weekLabel('2025-12-29', period)).toBe('S1 · 29/12/2025');
  });
});
