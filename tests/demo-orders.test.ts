// The demo repair orders as drawn (server/demo/orders.ts): the same at every load, numbered as
// the workshop numbers them, on vehicles that carry the model's box, and naming the boxes the demo
// stock fitted. What the database holds is checked in database.test.ts.
import { describe, expect, it } from 'vitest';
import { demoDossiers } from '#server/demo/dossiers.ts';
import { DEMO_ORDERS_DAY, DEMO_ORDERS_FROM, demoOrderReferents, demoRepairOrders } from '#server/demo/orders.ts';
import { demoStockItems } from '#server/demo/stock.ts';
import { demoErrorCodes } from '#server/demo/seed.ts';
import { energies, engineSizes, interventionCategories, mileageBands, repairOrderSchema } from '#lib/repair-orders/repair-orders.ts';

const orders = demoRepairOrders();
const tally = (values: string[]) => values.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {});
const DAY = 86_400_000;
const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY;
const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();

describe('the demo repair orders', () => {
  it('are drawn the same at every load: about sixty over the nine demo models', () => {
    expect(JSON.stringify(demoRepairOrders())).toBe(JSON.stringify(orders));
    expect(orders).toHaveLength(60);
    const perModel = tally(orders.map((o) => o.model));
    expect(Object.keys(perModel).sort()).toEqual(Object.keys(demoDossiers).sort());
    expect(perModel['VW DQ200 0AM']).toBeGreaterThan(perModel['PSA ETG6']!);
  });

  it('are numbered within their year, rising with the opening date, on working days of the fourteen months', () => {
    expect(orders[0]!.openedOn >= DEMO_ORDERS_FROM).toBe(true);
    expect(daysBetween(DEMO_ORDERS_FROM, DEMO_ORDERS_DAY)).toBeGreaterThanOrEqual(14 * 30);
    for (const [i, order] of orders.entries()) {
      expect(order.number).toMatch(new RegExp(`^OR-${order.openedOn.slice(0, 4)}-\\d{4}$`));
      expect(order.openedOn < DEMO_ORDERS_DAY).toBe(true);
      expect([0, 6]).not.toContain(weekday(order.openedOn));
      const before = orders[i - 1];
      if (!before) continue;
      expect(order.openedOn >= before.openedOn).toBe(true);
      if (before.number.slice(0, 7) === order.number.slice(0, 7)) expect(order.number > before.number).toBe(true);
    }
    expect(new Set(orders.map((o) => o.number.toUpperCase())).size).toBe(orders.length);
  });

  it('closes the older half, a few days to three weeks after the opening; the most recent are in progress', () => {
    const closed = orders.filter((o) => o.status === 'CLOSED');
    expect(closed.length).toBeGreaterThanOrEqual(25);
    expect(closed.length).toBeLessThanOrEqual(35);
    for (const order of orders) {
      if (order.status === 'IN_PROGRESS') {
        expect(order.closedOn).toBeNull();
        continue;
      }
      expect(order.closedOn! < DEMO_ORDERS_DAY).toBe(true);
      expect([0, 6]).not.toContain(weekday(order.closedOn!));
      expect(daysBetween(order.openedOn, order.closedOn!)).toBeGreaterThanOrEqual(1);
      expect(daysBetween(order.openedOn, order.closedOn!)).toBeLessThanOrEqual(21);
      expect(order.updatedAt.getTime()).toBeGreaterThanOrEqual(order.createdAt.getTime());
    }
    const latestClosed = closed
      .map((o) => o.openedOn)
      .sort()
      .at(-1)!;
    const inProgress = orders.filter((o) => o.status === 'IN_PROGRESS');
    // The ten most recent are all in progress.
    expect(orders.slice(-10).every((o) => o.status === 'IN_PROGRESS')).toBe(true);
    expect(inProgress.filter((o) => o.openedOn > latestClosed).length).toBeGreaterThan(inProgress.length / 2);
  });

  it("puts each model's box in vehicles that carry it, with one of its gearbox codes and a coherent vehicle", () => {
    for (const order of orders) {
      const codes = demoDossiers[order.model]!.doctorCodes.flatMap((d) => d.gearboxCodes);
      if (order.gearboxCode) expect(codes, `${order.number} ${order.model}`).toContain(order.gearboxCode);
      else expect(order.comment).toContain('code non relevé');
      expect(order.vehicleBrand).not.toBe('');
      expect(order.vehicleModel).not.toBe('');
      expect(energies).toContain(order.energy);
      expect(engineSizes).toContain(order.engineSize);
      expect(mileageBands).toContain(order.mileage);
      expect(interventionCategories).toContain(order.interventionCategory);
      expect(order.constructionYear).toBeLessThan(Number(order.openedOn.slice(0, 4)));
      expect(order.constructionYear).toBeGreaterThanOrEqual(2000);
      // Fault codes quoted are the model's.
      for (const code of order.comment.match(/\bP[0-9A-F]{4}\b/g) ?? []) expect(demoErrorCodes[order.model], `${order.number} ${code}`).toContain(code);
      // The mileage read in the comment falls in the band.
      const read = /Kilométrage relevé : ([\d ]+) km/.exec(order.comment)?.[1];
      if (read) {
        const km = Number(read.replace(/ /g, ''));
        const band = mileageBands.indexOf(order.mileage);
        expect(km, order.number).toBeGreaterThanOrEqual([0, 50_000, 100_000, 150_000, 200_000][band]!);
        if (band < 4) expect(km, order.number).toBeLessThan([50_000, 100_000, 150_000, 200_000][band]!);
      }
    }
    const byModel = (model: string) => orders.filter((o) => o.model === model);
    expect(byModel('ZF 8HP45').every((o) => o.vehicleBrand === 'BMW')).toBe(true);
    expect(byModel('ZF 6HP26').every((o) => o.engineSize === '2.5L_to_7.0L')).toBe(true);
    expect(byModel('VW DQ200 0AM').every((o) => o.engineSize === '0.6L_to_1.6L')).toBe(true);
    expect(byModel('PSA ETG6').every((o) => o.energy === 'diesel' && ['Peugeot', 'Citroën'].includes(o.vehicleBrand))).toBe(true);
    expect(Object.keys(tally(orders.map((o) => o.interventionCategory))).sort()).toEqual([...interventionCategories].sort());
    expect(Object.keys(tally(orders.map((o) => o.energy))).sort()).toEqual(['diesel', 'petrol']);
  });

  it('says what was found and done, leaves the diagnostic to come on the orders just opened, and keeps 0 to 3 earlier interventions', () => {
    for (const order of orders) {
      expect(order.comment.length).toBeGreaterThan(10);
      expect(order.interventions.length).toBeGreaterThan(0);
      if (order.status === 'CLOSED') expect(order.outageParts.length).toBeGreaterThan(0);
      expect(order.history.length).toBeLessThanOrEqual(3);
      const mileages = order.history.map((h) => h.mileage);
      expect(mileages).toEqual([...mileages].sort((a, b) => a - b));
      for (const h of order.history) {
        expect(Number.isInteger(h.mileage) && h.mileage > 0).toBe(true);
        expect(h.intervention).not.toBe('');
      }
      // What the order form and the API would accept.
      const parsed = repairOrderSchema.safeParse({
        ...order,
        referentId: undefined,
        gearboxModelId: '00000000-0000-4000-8000-000000000000',
        constructionYear: String(order.constructionYear),
      });
      expect(parsed.error?.issues ?? [], order.number).toEqual([]);
    }
    expect(orders.some((o) => o.status === 'IN_PROGRESS' && o.outageParts.length === 0)).toBe(true);
    const rows = tally(orders.map((o) => String(o.history.length)));
    expect(Object.keys(rows).sort()).toEqual(['0', '1', '2', '3']);
  });

  it('shares the orders among the diagnosticians and admins, Julien Moreau most', () => {
    const referents = tally(orders.map((o) => o.referent));
    expect(Object.keys(referents).every((email) => demoOrderReferents.some((r) => r.email === email))).toBe(true);
    const most = Object.entries(referents).sort((a, b) => b[1] - a[1])[0]![0];
    expect(most).toBe('diagnostic@demo.local');
  });

  it("includes the orders the demo stock fitted a box on, on that box's model and code, after it was opened", () => {
    const fitted = demoStockItems().filter((i) => i.outOn && i.outOn >= DEMO_ORDERS_FROM && /^Posée sur OR-/.test(i.outReason));
    expect(fitted.length).toBeGreaterThan(3);
    for (const box of fitted) {
      const number = box.outReason.replace('Posée sur ', '');
      const order = orders.find((o) => o.number === number);
      expect(order, number).toBeDefined();
      expect(order!.model).toBe(box.model);
      expect(order!.fittedBox).toBe(box.outReason);
      if (box.gearboxCode) expect(order!.gearboxCode).toBe(box.gearboxCode);
      expect(order!.openedOn <= box.outOn!).toBe(true);
      if (order!.closedOn) expect(order!.closedOn > box.outOn!).toBe(true);
      expect(order!.interventions.some((line) => line.endsWith(' du stock'))).toBe(true);
    }
    // No other order takes a number the stock gives to a box of another model.
    const named = new Map(
      demoStockItems()
        .filter((i) => /^Posée sur OR-/.test(i.outReason))
        .map((i) => [i.outReason.replace('Posée sur ', ''), i.model]),
    );
    for (const order of orders) if (named.has(order.number)) expect(order.model).toBe(named.get(order.number));
    expect(orders.filter((o) => o.fittedBox)).toHaveLength(fitted.length);
  });
});
