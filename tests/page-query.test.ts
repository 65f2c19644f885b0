// One schema per list page for its URL (issue 14, item 8): invalid values fall back to defaults.
import { describe, expect, it } from 'vitest';
import { readGearboxesQuery } from '../src/lib/gearboxes.ts';
import { readOrdersQuery } from '../src/lib/repair-orders.ts';
import { readStockQuery } from '../src/lib/stock.ts';
import { readUsersQuery } from '../src/lib/users.ts';

const MODEL = '6F1C2A9E-1B2C-4D3E-8F90-123456789ABC';
const q = (text: string) => new URLSearchParams(text);

describe('list page queries', () => {
  it('reads what the screens write', () => {
    expect(readOrdersQuery(q(`recherche=OR-12&du=2026-02-28&au=2026-03-31&categorie=gearbox_only&type=automatic&modele=${MODEL}&tri=numero&ordre=desc&page=3`))).toEqual({
      search: 'OR-12', from: '2026-02-28', to: '2026-03-31', category: 'gearbox_only', type: 'automatic', modelId: MODEL.toLowerCase(), sort: 'numero', descending: true, page: 3,
    });
    expect(readStockQuery(q('onglet=historique&rayon=b&etat=used&page=2'))).toMatchObject({ view: 'historique', rack: 'B', condition: 'used', page: 2 });
    expect(readGearboxesQuery(q('annee=2015&type=variator'))).toEqual({ search: '', type: 'variator', year: 2015, page: 1 });
    expect(readUsersQuery(q('recherche=Dupont&page=2'))).toEqual({ search: 'Dupont', page: 2 });
  });

  it('falls back to defaults for impossible, huge or hostile values', () => {
    expect(readOrdersQuery(q('du=2026-02-31&au=99999-01-01&categorie=x&tri=__proto__&page=99999999999999999999&modele=..%2F'))).toEqual({
      search: '', from: null, to: null, category: null, type: null, modelId: null, sort: 'date', descending: true, page: 1,
    });
    expect(readOrdersQuery(q(`recherche=${'x'.repeat(500)}`)).search).toHaveLength(80);
    expect(readGearboxesQuery(q('page=1e20&annee=99999&type=constructor'))).toEqual({ search: '', type: null, year: null, page: 1 });
    expect(readStockQuery(q('onglet=autre&rayon=%3Cscript%3E&page=-4&modele=1'))).toMatchObject({ view: 'stock', rack: null, page: 1, modelId: null });
    expect(readUsersQuery(q('page=0.5'))).toEqual({ search: '', page: 1 });
  });
});
