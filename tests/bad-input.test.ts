// Issue 14, item 8: bad input gets a 4xx, never a 500, and a refused write writes nothing.
// Property-based (fast-check) over the list pages' URLs, two form posts and GraphQL mutations.
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { graphqlAs, M, signInAll, type DemoRole } from './kit/index.ts';
import { browser } from './support/browser.ts';

/** Text as an attacker types it: any unicode, NUL and controls, huge numbers, odd dates. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '2026-02-31',
    '99999-01-01',
    '0000-00-00',
    'abc',
    '1e20',
    '-1',
    '99999999999999999999',
    'NaN',
    '%',
    '%00',
    "'; drop table auth.users; --",
    '<script>',
    '\uD800',
    '🚗'.repeat(50),
  ),
  fc.integer().map(String),
);

const RUNS = 30;

describe('bad input never answers 5xx', () => {
  let t: TestApp;
  let b: ReturnType<typeof browser>;
  let gql: ReturnType<typeof graphqlAs>;
  let orderId: string;
  let modelId: string;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    b = browser(t.url);
    await b.signIn('admin@demo.local');
    gql = graphqlAs(t, (await signInAll(t)) as Record<DemoRole, string>);
    [{ id: orderId }] = await queryRows<{ id: string }>(t.database.db, sql`select id from repair_orders limit 1`);
    [{ id: modelId }] = await queryRows<{ id: string }>(t.database.db, sql`select id from gearbox_models limit 1`);
  });
  afterAll(() => t?.close());

  const count = async (table: string) => (await queryRows<{ n: number }>(t.database.db, sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;

  it.each([
    '/repair-orders?du=2026-02-31&au=99999-01-01',
    '/repair-orders?recherche=a%00b',
    '/repair-orders?page=99999999999999999999',
    '/gearboxes?page=1e20',
    '/gearboxes?page=99999999999999999999&annee=99999',
    '/users?page=99999999999999999999',
    '/stock?recherche=%00&page=-1',
    '/stock?rayon=%E9',
    '/symptoms-conditions-base?recherche=%00',
  ])('answers %s with a page or a 4xx', async (url) => {
    const res = await b.request(url);
    expect(res.status, url).toBeLessThan(500);
  });

  it('answers arbitrary query strings on every list and detail page below 500', async () => {
    const pages = [
      '/repair-orders',
      '/stock',
      '/gearboxes',
      '/users',
      '/symptoms-conditions-base',
      `/repair-order/${orderId}`,
      `/repair-order/${orderId}/diagnostic`,
      `/gearbox/${modelId}`,
    ];
    const names = fc.constantFrom(
      'recherche',
      'page',
      'du',
      'au',
      'categorie',
      'type',
      'modele',
      'tri',
      'ordre',
      'onglet',
      'etape',
      'vue',
      'rayon',
      'etat',
      'annee',
      'article',
      'confirmer',
      'format',
      'x',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pages), fc.dictionary(names, hostileText, { maxKeys: 4 }), async (page, query) => {
        const res = await b.request(`${page}?${new URLSearchParams(query)}`);
        await res.arrayBuffer();
        return res.status < 500;
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('refuses hostile path parameters below 500', async () => {
    await fc.assert(
      // Only what a URL can carry: a lone surrogate cannot even be encoded by the client.
      fc.asyncProperty(
        fc.constantFrom('/repair-order/', '/gearbox/', '/repair-order/x/measure/'),
        hostileText.filter((text) => text.isWellFormed()),
        async (prefix, id) => {
          const res = await b.request(prefix + encodeURIComponent(id));
          await res.arrayBuffer();
          return res.status < 500;
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('answers a hostile order form with its errors, and writes nothing', async () => {
    const before = await count('repair_orders');
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          number: hostileText,
          openedOn: hostileText,
          interventionCategory: hostileText,
          gearboxModelId: fc.constantFrom(modelId, 'x'),
          mileage: hostileText,
          constructionYear: hostileText,
          comment: hostileText,
        }),
        async (form) => {
          const res = await b.request('/repair-order', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(form).toString(),
          });
          await res.arrayBuffer();
          // A created order redirects (303); anything else must have written nothing.
          if (res.status === 303) return true;
          return res.status < 500 && (await count('repair_orders')) === before;
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('answers hostile GraphQL mutations with typed errors, never internal, and writes nothing', async () => {
    const mutations = [
      {
        table: 'base_items',
        query: M.insertBaseItem,
        vars: (text: string) => ({ k: 'symptom', n: text }),
      },
      {
        table: 'repair_orders',
        // The kit's documents: the schema's own shape (a selection under a scalar is refused before any rule runs).
        query: M.insertRepairOrder,
        vars: (text: string) => ({
          o: { number: `X${text}`, openedOn: text, interventionCategory: 'gearbox_only', gearboxModelId: modelId, comment: text, mileage: text },
        }),
      },
      {
        table: 'stock_items',
        query: M.insertStockItems,
        vars: (text: string) => ({ o: { gearboxModelId: modelId, condition: 'used', rack: text, level: 1, addedOn: text, quantity: 1, comment: text } }),
      },
    ];
    for (const mutation of mutations) {
      await fc.assert(
        fc.asyncProperty(hostileText, async (text) => {
          const before = await count(mutation.table);
          const res = await gql('app_admin', mutation.query, mutation.vars(text));
          const codes = (res.errors ?? []).map((e) => e.extensions.code);
          if (codes.includes('internal')) return false;
          if (!res.errors) return true;
          return (await count(mutation.table)) === before;
        }),
        { numRuns: RUNS },
      );
    }
  });
});
