// The symptoms and conditions base through the API: roles, uniqueness, items in use, live.
import { sql } from 'drizzle-orm';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { graphqlAs, M, signInAll, type DemoRole } from './kit/index.ts';

describe.each(databaseKinds)('base on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let tokens: Record<DemoRole, string>;
  const insert = (role: DemoRole, name: string, k = 'symptom') => gql(role, M.insertBaseItem, { k, n: name });

  beforeAll(async () => {
    t = await startTestApp(kind);
    tokens = await signInAll(t);
    gql = graphqlAs(t, tokens);
  });
  afterAll(() => t?.close());

  it('lets every role read the lists, sorted and searchable', async () => {
    for (const role of ['app_admin', 'diagnostician', 'mechanic', 'commercial'] as const) {
      const res = await gql(role, '{ baseItems(kind: outage_type) { name } }');
      expect(res.data.baseItems.map((i: { name: string }) => i.name)).toContain('Grippage');
    }
    const search = await gql('mechanic', '{ baseItems(kind: component, search: "HUILE") { name } }');
    expect(search.data.baseItems).toEqual([{ name: 'Pompe à huile' }]);
    const literal = await gql('mechanic', '{ baseItems(kind: component, search: "%") { name } }');
    expect(literal.data.baseItems).toEqual([]);
    // The search is its first 120 characters, on every edge: what comes after them is not looked for.
    const long = await gql('mechanic', 'query($s: String) { baseItems(kind: component, search: $s) { name } }', { s: `huile${' '.repeat(115)}introuvable` });
    expect(long.data.baseItems).toEqual([{ name: 'Pompe à huile' }]);
  });

  it('lets admins and diagnosticians write, and refuses the others', async () => {
    expect((await insert('app_admin', 'Claquement')).data.insertBaseItem.name).toBe('Claquement');
    expect((await insert('diagnostician', 'Odeur de brûlé')).data.insertBaseItem.name).toBe('Odeur de brûlé');
    for (const role of ['mechanic', 'commercial'] as const) {
      expect((await insert(role, 'Bruit de roulement')).errors![0]!.extensions.code).toBe('forbidden');
      const id = (await gql(role, '{ baseItems(kind: symptom) { id } }')).data.baseItems[0].id;
      expect((await gql(role, M.updateBaseItem, { id, n: 'X' })).errors![0]!.extensions.code).toBe('forbidden');
      expect((await gql(role, M.deleteBaseItem, { id })).errors![0]!.extensions.code).toBe('forbidden');
    }
  });

  it('refuses a name already in the list, whatever its case, and an empty one', async () => {
    expect((await insert('diagnostician', 'PATINAGE')).errors![0]).toMatchObject({ message: 'Cet item existe déjà', extensions: { code: 'conflict' } });
    // The same name in another list is another item.
    expect((await insert('diagnostician', 'Patinage', 'condition')).data.insertBaseItem.name).toBe('Patinage');
    expect((await insert('diagnostician', '   ')).errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.name': 'Champ obligatoire' } });
    const rows = await gql('diagnostician', '{ baseItems(kind: symptom, search: "patinage") { name } }');
    expect(rows.data.baseItems).toEqual([{ name: 'Patinage' }]);
  });

  it('refuses to delete an item in use with "Cet item est utilisé", and deletes one that is not', async () => {
    const used = (await insert('diagnostician', 'Sifflement aigu')).data.insertBaseItem.id;
    // Later domains reference the base the same way (ON DELETE RESTRICT).
    await t.database.db.execute(sql`create table if not exists test_base_refs (item_id uuid references base_items(id) on delete restrict)`);
    await t.database.db.execute(sql`insert into test_base_refs values (${used})`);
    const refused = await gql('diagnostician', M.deleteBaseItem, { id: used });
    expect(refused.errors![0]).toMatchObject({ message: 'Cet item est utilisé', extensions: { code: 'conflict', reason: 'item-in-use' } });
    await t.database.db.execute(sql`delete from test_base_refs`);
    expect((await gql('diagnostician', M.deleteBaseItem, { id: used })).data.deleteBaseItem.name).toBe('Sifflement aigu');
    expect((await gql('diagnostician', M.deleteBaseItem, { id: used })).errors![0]!.extensions.code).toBe('not-found');
  });

  it('keeps a list live', async () => {
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { headers: { Authorization: `Bearer ${tokens.mechanic}` } },
    });
    const seen: string[][] = [];
    const second = new Promise<void>((resolve) =>
      client.subscribe<{ baseItems: { name: string }[] }>(
        { query: 'subscription { baseItems(kind: outage_type, search: "corrosion") { name } }' },
        { next: (v) => (seen.push(v.data!.baseItems.map((i) => i.name)), seen.length === 2 && resolve()), error: () => undefined, complete: () => undefined },
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    await insert('diagnostician', 'Corrosion', 'outage_type');
    await second;
    expect(seen).toEqual([[], ['Corrosion']]);
    await client.dispose();
  });
});
