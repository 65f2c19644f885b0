// The evidence beside a ranked outage (walk11 F4): the similar closed orders counted in French,
// one in the singular.
import { describe, expect, it } from 'vitest';
import { evidenceOf } from '#lib/repair-orders/diagnostic-page.ts';

describe("an outage's evidence", () => {
  it('says «sur 1 similaire» for one similar order, «similaires» for more', () => {
    expect(evidenceOf({ confirmedOrders: 0, similarOrders: 1 })).toBe('0 OR sur 1 similaire');
    expect(evidenceOf({ confirmedOrders: 1, similarOrders: 1 })).toBe('1 OR sur 1 similaire');
    expect(evidenceOf({ confirmedOrders: 2, similarOrders: 5 })).toBe('2 OR sur 5 similaires');
  });
});
