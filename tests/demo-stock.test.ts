// The demo stock as drawn (server/demo/stock.ts): the same at every load, and each box's
// movements telling its story to its current state. What the database holds is checked in
// database.test.ts.
import { describe, expect, it } from 'vitest';
import { demoDossiers } from '#server/demo/dossiers.ts';
import { DEMO_STOCK_DAY, demoStockItems, demoStockPeople } from '#server/demo/stock.ts';
import { gearboxConditions } from '#lib/stock/stock.ts';

const items = demoStockItems();
const current = items.filter((i) => !i.outOn);
const gone = items.filter((i) => i.outOn);
const tally = (values: string[]) => values.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {});

describe('the demo stock', () => {
  it('is drawn the same at every load', () => {
    expect(JSON.stringify(demoStockItems())).toBe(JSON.stringify(items));
    expect(current).toHaveLength(120);
    expect(gone).toHaveLength(40);
  });

  it('spreads over the nine demo models, more of the common ones, on racks A–F and levels 1–4', () => {
    const perModel = tally(current.map((i) => i.model));
    expect(Object.keys(perModel).sort()).toEqual(Object.keys(demoDossiers).sort());
    for (const common of ['VW DQ200 0AM', 'ZF 6HP26', 'Aisin TF-80SC', 'Jatco JF011E']) expect(perModel[common]).toBeGreaterThanOrEqual(16);
    expect(perModel['PSA ETG6']).toBeLessThan(10);
    expect(Object.keys(tally(current.map((i) => i.rack))).sort()).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    expect(Object.keys(tally(current.map((i) => String(i.level)))).sort()).toEqual(['1', '2', '3', '4']);
  });

  it('is mostly used or reconditioned, with some new, out of order and old material', () => {
    const conditions = tally(current.map((i) => i.condition));
    expect(Object.keys(conditions).sort()).toEqual([...gearboxConditions].sort());
    expect(conditions.used! + conditions.refurbished!).toBeGreaterThan(current.length / 2);
    expect(conditions.old_material).toBeLessThan(conditions.out_of_order!);
  });

  it('gives most boxes a gearbox code of their model with its doctor code', () => {
    const withCode = items.filter((i) => i.gearboxCode);
    expect(withCode.length).toBeGreaterThan(items.length / 2);
    for (const item of items) {
      if (!item.doctorCode) {
        expect(item.gearboxCode).toBeNull();
        continue;
      }
      const doctor = demoDossiers[item.model]!.doctorCodes.find((d) => d.code === item.doctorCode);
      expect(doctor, `${item.model} ${item.doctorCode}`).toBeDefined();
      if (item.gearboxCode) expect(doctor!.gearboxCodes).toContain(item.gearboxCode);
    }
  });

  it('dates every box within the two years before its fixed day, out after in', () => {
    const start = new Date(Date.parse(`${DEMO_STOCK_DAY}T00:00:00Z`) - 730 * 86_400_000).toISOString().slice(0, 10);
    for (const item of items) {
      expect(item.addedOn >= start && item.addedOn < DEMO_STOCK_DAY).toBe(true);
      if (item.outOn) expect(item.outOn >= item.addedOn && item.outOn < DEMO_STOCK_DAY).toBe(true);
    }
    // Numbers follow the order the boxes came in.
    expect(items.map((i) => i.addedOn)).toEqual(items.map((i) => i.addedOn).sort());
  });

  it("tells each box's story in order, ending at its current place and condition, with its version", () => {
    const people = demoStockPeople.map((p) => p.email as string);
    for (const item of items) {
      const [added, ...rest] = item.movements;
      expect(added).toMatchObject({ kind: 'added', fromRack: null, fromCondition: null });
      expect(added!.at.toISOString().slice(0, 10)).toBe(item.addedOn);
      let place = { rack: added!.toRack, level: added!.toLevel };
      let condition = added!.toCondition;
      let previous = added!.at;
      for (const [i, m] of rest.entries()) {
        expect(m.at.getTime()).toBeGreaterThan(previous.getTime());
        previous = m.at;
        if (m.kind === 'moved') {
          expect({ rack: m.fromRack, level: m.fromLevel }).toEqual(place);
          expect({ rack: m.toRack, level: m.toLevel }).not.toEqual(place);
          place = { rack: m.toRack, level: m.toLevel };
        } else if (m.kind === 'condition') {
          expect(m.fromCondition).toBe(condition);
          expect(m.toCondition).not.toBe(condition);
          condition = m.toCondition;
        } else {
          expect(m.kind).toBe('removed');
          expect(i).toBe(rest.length - 1);
          expect(m).toMatchObject({ fromRack: place.rack, fromLevel: place.level, reason: item.outReason });
          expect(m.at.toISOString().slice(0, 10)).toBe(item.outOn);
        }
      }
      expect({ rack: item.rack, level: item.level, condition: item.condition }).toEqual({ ...place, condition });
      expect(item.version).toBe(1 + rest.length);
      expect(rest.some((m) => m.kind === 'removed')).toBe(!!item.outOn);
      for (const m of item.movements) expect(people).toContain(m.by);
    }
  });

  it('has moves and condition changes, and gone boxes with a French reason', () => {
    const kinds = tally(items.flatMap((i) => i.movements.map((m) => m.kind)));
    expect(kinds).toMatchObject({ added: 160, removed: 40 });
    expect(kinds.moved).toBeGreaterThan(30);
    expect(kinds.condition).toBeGreaterThan(20);
    for (const item of gone)
      expect(item.outReason).toMatch(/^(Vendue — |Posée sur OR-\d{4}-\d{4}$|Envoyée en reconditionnement|Mise au rebut : |Échange standard — )/);
    expect(items.filter((i) => i.comment).length).toBeGreaterThan(items.length / 3);
  });
});
