// The gearbox stock through the API: who may read and write it, adding boxes, moving them,
// changing their condition and removing them, each kept as a movement; two people acting on
// the same box at once; the lists, filters and counts; codes and models a box keeps; live list.
// Each test works on models of its own, so demo stock cannot change its answers.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { createModel, type DemoRole, type Document, documentText, graphqlAs, M, type ModelFields, ok, signInAll } from './kit/index.ts';

const ITEM = `id reference version model { id model type constructorName } doctorCode gearboxCode condition rack level addedOn outOn outReason comment
  movements { kind at byName fromRack fromLevel toRack toLevel fromCondition toCondition reason }`;
const FILTER_VARS = '$h: Boolean, $s: String, $m: uuid, $t: stock_gearbox_type, $c: gearbox_condition, $r: String';
const FILTER_ARGS = 'history: $h, search: $s, modelId: $m, type: $t, condition: $c, rack: $r';

const Q = {
  condition: 'mutation($id: uuid!, $v: Int!, $c: gearbox_condition!) { changeStockItemCondition(id: $id, version: $v, condition: $c) }',
  item: `query($id: uuid!) { stockItem(id: $id) { ${ITEM} } }`,
  list: `query(${FILTER_VARS}, $limit: Int, $offset: Int) {
    stockItems(${FILTER_ARGS}, limit: $limit, offset: $offset) { id reference rack level condition gearboxCode model { model } }
    stockItemsAggregate(${FILTER_ARGS}) { count }
  }`,
  counts: `query(${FILTER_VARS}) { stockCounts(${FILTER_ARGS}) { modelId model condition count } stockItemsAggregate(${FILTER_ARGS}) { count } }`,
  racks: '{ stockRacks }',
};

type Item = {
  id: string;
  reference: string;
  version: number;
  model: { id: string; model: string; type: string; constructorName: string };
  doctorCode: string | null;
  gearboxCode: string | null;
  condition: string;
  rack: string;
  level: number;
  addedOn: string;
  outOn: string | null;
  outReason: string;
  comment: string;
  movements: {
    kind: string;
    at: string;
    byName: string;
    fromRack: string | null;
    fromLevel: number | null;
    toRack: string | null;
    toLevel: number | null;
    fromCondition: string | null;
    toCondition: string | null;
    reason: string;
  }[];
};
type Listed = { id: string; reference: string; rack: string; level: number; condition: string; gearboxCode: string | null; model: { model: string } };

const STALE = 'Cette boîte a été modifiée entre-temps par un collègue : voici son état actuel. Refaites votre action si elle est toujours utile.';
const REMOVED = 'Cette boîte a déjà été retirée du stock.';
/** What a movement says besides when. */
const said = (m: Item['movements'][number]) => {
  const { at: _at, ...rest } = m;
  return rest;
};
const movement = (kind: string, byName: string, fields: Partial<Item['movements'][number]> = {}) => ({
  kind,
  byName,
  fromRack: null,
  fromLevel: null,
  toRack: null,
  toLevel: null,
  fromCondition: null,
  toCondition: null,
  reason: '',
  ...fields,
});

describe.each(databaseKinds)('gearbox stock on %s', (kind) => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  let gql: ReturnType<typeof graphqlAs>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    tokens = await signInAll(t);
    gql = graphqlAs(t, tokens);
  });
  afterAll(() => t?.close());

  async function newModel(model: string, type: ModelFields['type'] = 'automatic'): Promise<string> {
    return await createModel(gql.diagnostician, { model, type, constructorName: 'ZF Friedrichshafen', startYear: 2010, gears: 8 });
  }
  /** A doctor code of the model, with gearbox codes when named. */
  async function newCodes(modelId: string, doctor: string, boxes: string[] = []) {
    const doctorId: string = ok(await gql('diagnostician', M.insertDoctorCode, { m: modelId, o: { code: doctor } })).insertDoctorCode.id;
    const boxIds: string[] = [];
    for (const code of boxes) boxIds.push(ok(await gql('diagnostician', M.insertGearboxCode, { d: doctorId, c: code })).insertGearboxCode.id);
    return { doctorId, boxIds };
  }
  const box = (modelId: string, overrides: object = {}) => ({
    gearboxModelId: modelId,
    condition: 'used',
    rack: 'T1',
    level: 1,
    addedOn: '2026-03-10',
    quantity: 1,
    ...overrides,
  });
  const insert = (role: DemoRole, object: object) => gql(role, M.insertStockItems, { o: object });
  async function add(modelId: string, overrides: object = {}, role: DemoRole = 'diagnostician'): Promise<string[]> {
    return ok(await insert(role, box(modelId, overrides))).insertStockItems;
  }
  const itemOf = async (id: string): Promise<Item> => ok(await gql('app_admin', Q.item, { id })).stockItem;
  const listOf = async (variables: object): Promise<{ items: Listed[]; count: number }> => {
    const data = ok(await gql('app_admin', Q.list, variables));
    return { items: data.stockItems, count: data.stockItemsAggregate.count };
  };
  const countOf = async (modelId: string, history = false) => (await listOf({ m: modelId, h: history })).count;

  it('lets admins, diagnosticians and commercials read and write the stock, and refuses mechanics everything', async () => {
    const modelId = await newModel('Essai rôles');
    for (const role of ['app_admin', 'diagnostician', 'commercial'] as const) {
      const [id] = await add(modelId, { rack: 'T1', level: 1 }, role);
      expect(ok(await gql(role, Q.item, { id })).stockItem).toMatchObject({ id, rack: 'T1', version: 1 });
      expect(ok(await gql(role, M.moveStockItem, { id, v: 1, r: 'T2', l: 3 })).moveStockItem).toBe(id);
      expect(ok(await gql(role, Q.condition, { id, v: 2, c: 'refurbished' })).changeStockItemCondition).toBe(id);
      const read = ok(
        await gql(
          role,
          `query($m: uuid) { stockItems(modelId: $m) { id } stockItemsAggregate(modelId: $m) { count } stockCounts(modelId: $m) { count } stockRacks }`,
          { m: modelId },
        ),
      );
      expect(read.stockItems.map((i: { id: string }) => i.id)).toContain(id);
      expect(read.stockRacks).toContain('T2');
    }
    const [id] = await add(modelId, { rack: 'T4' }, 'commercial');
    expect(ok(await gql('commercial', M.removeStockItem, { id, v: 1, d: '2026-03-11', r: 'Vendue' })).removeStockItem).toBe(id);
    expect((await itemOf(id)).outOn).toBe('2026-03-11');

    const [kept] = await add(modelId, { rack: 'T5' });
    const refused: [Document<any, any>, object][] = [
      ['{ stockItems { id } }', {}],
      ['{ stockItemsAggregate { count } }', {}],
      ['{ stockCounts { count } }', {}],
      [Q.racks, {}],
      [Q.item, { id: kept }],
      [M.insertStockItems, { o: box(modelId) }],
      [M.moveStockItem, { id: kept, v: 1, r: 'T9', l: 9 }],
      [Q.condition, { id: kept, v: 1, c: 'out_of_order' }],
      [M.removeStockItem, { id: kept, v: 1, d: '2026-03-12', r: 'Vendue' }],
    ];
    for (const [query, variables] of refused) {
      const res = await gql('mechanic', query, variables);
      expect(res.errors?.[0]?.extensions.code, documentText(query)).toBe('forbidden');
      expect(
        Object.values(res.data ?? {}).filter((v) => v !== null),
        documentText(query),
      ).toEqual([]);
    }
    // Nothing the mechanic asked was done.
    expect(await itemOf(kept!)).toMatchObject({ rack: 'T5', level: 1, condition: 'used', outOn: null, version: 1 });
    expect(await countOf(modelId)).toBe(4);

    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { headers: { Authorization: `Bearer ${tokens.mechanic}` } },
    });
    try {
      const result = await new Promise<unknown>((resolve) => {
        client.subscribe({ query: 'subscription { stockItems { id } }' }, { next: resolve, error: resolve, complete: () => resolve(null) });
      });
      expect(result).toMatchObject({ errors: [{ extensions: { code: 'forbidden' } }] });
    } finally {
      await client.dispose();
    }
  });

  it('adds several boxes with their own references, each with its “added” movement naming who', async () => {
    const modelId = await newModel('Essai ajout');
    const { boxIds } = await newCodes(modelId, 'EA-DOC', ['EAG']);
    const doctorOnly = await newCodes(modelId, 'EA-SEUL');
    const ids = await add(
      modelId,
      { code: `g:${boxIds[0]}`, condition: 'refurbished', rack: ' t 1 ', level: 2, quantity: 3, comment: '  Reconditionnée par ZF  ' },
      'commercial',
    );
    expect(ids).toHaveLength(3);
    const items = await Promise.all(ids.map(itemOf));
    const references = items.map((i) => i.reference);
    expect(new Set(references).size).toBe(3);
    for (const reference of references) expect(reference).toMatch(/^S-\d{6}$/);
    for (const item of items) {
      expect(item).toMatchObject({
        version: 1,
        model: { id: modelId, model: 'Essai ajout', type: 'automatic', constructorName: 'ZF Friedrichshafen' },
        doctorCode: 'EA-DOC',
        gearboxCode: 'EAG',
        condition: 'refurbished',
        rack: 'T1',
        level: 2,
        addedOn: '2026-03-10',
        outOn: null,
        outReason: '',
        comment: 'Reconditionnée par ZF',
      });
      expect(item.movements.map(said)).toEqual([movement('added', 'Sophie Laurent', { toRack: 'T1', toLevel: 2, toCondition: 'refurbished' })]);
    }
    // A doctor code alone; a date as the French write it.
    const [single] = await add(modelId, { code: `d:${doctorOnly.doctorId}`, addedOn: '09/03/2026' }, 'app_admin');
    expect(await itemOf(single!)).toMatchObject({ doctorCode: 'EA-SEUL', gearboxCode: null, addedOn: '2026-03-09' });
    expect((await itemOf(single!)).movements.map((m) => m.byName)).toEqual(['Claire Dubois']);
    // The form's check lets capitals through: they name the same code.
    const [upper] = await add(modelId, { code: `D:${doctorOnly.doctorId.toUpperCase()}` });
    expect(await itemOf(upper!)).toMatchObject({ doctorCode: 'EA-SEUL', gearboxCode: null });
    expect(await countOf(modelId)).toBe(5);

    const otherId = await newModel('Essai ajout bis');
    const foreign = await newCodes(otherId, 'EB-DOC', ['EBG']);
    const refusals: [object, object][] = [
      [{ code: `g:${foreign.boxIds[0]}` }, { 'object.code': "Ce code n'appartient pas à ce modèle" }],
      [{ code: `d:${foreign.doctorId}` }, { 'object.code': "Ce code n'appartient pas à ce modèle" }],
      [{ code: `g:${'-'.repeat(36)}` }, { 'object.code': "Ce code n'appartient pas à ce modèle" }],
      [{ code: `g:${'0'.repeat(36)}` }, { 'object.code': "Ce code n'appartient pas à ce modèle" }],
      [{ gearboxModelId: '00000000-0000-4000-8000-000000000000' }, { 'object.gearboxModelId': 'Modèle inconnu' }],
      [{ quantity: 0 }, { 'object.quantity': 'Entre 1 et 100 boîtes' }],
      [{ quantity: 10000 }, { 'object.quantity': 'Entre 1 et 100 boîtes' }],
      [{ rack: '  ' }, { 'object.rack': 'Champ obligatoire' }],
      [{ rack: 'T1!' }, { 'object.rack': 'Rayon invalide : lettres, chiffres ou tiret' }],
      [{ level: 0 }, { 'object.level': 'Minimum 1' }],
      [{ addedOn: '' }, { 'object.addedOn': 'Champ obligatoire' }],
      [{ addedOn: '2026-02-30' }, { 'object.addedOn': 'Date invalide' }],
      [{ addedOn: 'hier' }, { 'object.addedOn': 'Date invalide' }],
      // A box does not come in on a day still to come (walk31 F7).
      [{ addedOn: '31/12/2099' }, { 'object.addedOn': "Date postérieure à aujourd'hui" }],
    ];
    for (const [overrides, fields] of refusals) {
      const res = await insert('diagnostician', box(modelId, { quantity: 2, ...overrides }));
      expect(res.errors?.[0], JSON.stringify(overrides)).toMatchObject({ message: Object.values(fields)[0], extensions: { code: 'validation', fields } });
      expect(res.errors![0]!.extensions.fields).toEqual(fields);
    }
    // A level left empty does not reach the service.
    expect((await insert('diagnostician', box(modelId, { level: null }))).errors).toHaveLength(1);
    expect(await countOf(modelId)).toBe(5);
    expect(await countOf(otherId)).toBe(0);
  });

  it('keeps the history of moves and condition changes, and writes nothing for a move to the same place', async () => {
    const modelId = await newModel('Essai mouvements');
    const [id] = await add(modelId, { condition: 'new', rack: 'T2', level: 1 });
    expect(ok(await gql('app_admin', M.moveStockItem, { id, v: 1, r: ' t3 ', l: 4 })).moveStockItem).toBe(id);
    expect(await itemOf(id!)).toMatchObject({ rack: 'T3', level: 4, version: 2 });
    expect(ok(await gql('commercial', Q.condition, { id, v: 2, c: 'out_of_order' })).changeStockItemCondition).toBe(id);
    expect(await itemOf(id!)).toMatchObject({ condition: 'out_of_order', version: 3 });
    // The same place, the same condition: nothing changes.
    expect(ok(await gql('app_admin', M.moveStockItem, { id, v: 3, r: 'T3', l: 4 })).moveStockItem).toBe(id);
    expect(ok(await gql('app_admin', Q.condition, { id, v: 3, c: 'out_of_order' })).changeStockItemCondition).toBe(id);
    expect(ok(await gql('diagnostician', M.moveStockItem, { id, v: 3, r: 'T3', l: 5 })).moveStockItem).toBe(id);

    const item = await itemOf(id!);
    expect(item).toMatchObject({ rack: 'T3', level: 5, condition: 'out_of_order', version: 4, outOn: null });
    expect(item.movements.map(said)).toEqual([
      movement('added', 'Julien Moreau', { toRack: 'T2', toLevel: 1, toCondition: 'new' }),
      movement('moved', 'Claire Dubois', { fromRack: 'T2', fromLevel: 1, toRack: 'T3', toLevel: 4 }),
      movement('condition', 'Sophie Laurent', { fromCondition: 'new', toCondition: 'out_of_order' }),
      movement('moved', 'Julien Moreau', { fromRack: 'T3', fromLevel: 4, toRack: 'T3', toLevel: 5 }),
    ]);
    const times = item.movements.map((m) => Date.parse(m.at));
    expect(times.every((at) => Number.isFinite(at))).toBe(true);
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    const bad = await gql('app_admin', M.moveStockItem, { id, v: 4, r: '', l: 100 });
    expect(bad.errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.rack': 'Champ obligatoire', 'object.level': 'Nombre invalide' } });
    expect((await itemOf(id!)).version).toBe(4);
    expect((await gql('app_admin', M.moveStockItem, { id: '00000000-0000-4000-8000-000000000000', v: 1, r: 'T1', l: 1 })).errors![0]!.extensions.code).toBe(
      'not-found',
    );
  });

  it('removes a box with a date and a reason into the history, and refuses any change after', async () => {
    const modelId = await newModel('Essai sortie');
    const [id] = await add(modelId, { rack: 'T4', level: 2, addedOn: '2026-03-10' });
    const missing = await gql('commercial', M.removeStockItem, { id, v: 1, d: '', r: '  ' });
    expect(missing.errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.outOn': 'Champ obligatoire', 'object.outReason': 'Champ obligatoire' },
    });
    expect((await gql('commercial', M.removeStockItem, { id, v: 1, d: '2026-13-01', r: 'Vendue' })).errors![0]!.extensions.fields).toEqual({
      'object.outOn': 'Date invalide',
    });
    expect((await gql('commercial', M.removeStockItem, { id, v: 1, d: '01/01/2099', r: 'Vendue' })).errors![0]!.extensions.fields).toEqual({
      'object.outOn': "Date postérieure à aujourd'hui",
    });
    const early = await gql('commercial', M.removeStockItem, { id, v: 1, d: '2026-03-09', r: 'Vendue' });
    expect(early.errors![0]).toMatchObject({
      message: "La date de sortie précède la date d'entrée",
      extensions: { code: 'validation', fields: { 'object.outOn': "La date de sortie précède la date d'entrée" } },
    });
    expect(await itemOf(id!)).toMatchObject({ outOn: null, outReason: '', version: 1, movements: [{ kind: 'added' }] });
    expect((await itemOf(id!)).movements).toHaveLength(1);

    // The same day as it came in is fine, written the French way.
    expect(ok(await gql('commercial', M.removeStockItem, { id, v: 1, d: '10/03/2026', r: ' Vendue au garage Martin ' })).removeStockItem).toBe(id);
    const removed = await itemOf(id!);
    expect(removed).toMatchObject({ outOn: '2026-03-10', outReason: 'Vendue au garage Martin', version: 2, rack: 'T4', level: 2 });
    expect(removed.movements.map(said)).toEqual([
      movement('added', 'Julien Moreau', { toRack: 'T4', toLevel: 2, toCondition: 'used' }),
      movement('removed', 'Sophie Laurent', { fromRack: 'T4', fromLevel: 2, reason: 'Vendue au garage Martin' }),
    ]);
    expect((await listOf({ m: modelId })).items).toEqual([]);
    expect(await countOf(modelId)).toBe(0);
    const history = await listOf({ m: modelId, h: true });
    expect(history.items.map((i) => i.id)).toEqual([id]);
    expect(history.count).toBe(1);

    for (const [query, variables] of [
      [M.removeStockItem, { id, v: 2, d: '2026-03-12', r: 'Encore' }],
      [M.moveStockItem, { id, v: 2, r: 'T5', l: 1 }],
      [Q.condition, { id, v: 2, c: 'new' }],
    ] as const) {
      const res = await gql('diagnostician', query, variables);
      expect(res.errors?.[0], documentText(query)).toMatchObject({ message: REMOVED, extensions: { code: 'conflict' } });
    }
    const after = await itemOf(id!);
    expect(after).toMatchObject({ outOn: '2026-03-10', outReason: 'Vendue au garage Martin', version: 2, rack: 'T4', condition: 'used' });
    expect(after.movements).toHaveLength(2);
  });

  it('lets only one of two changes sent at once on the same version succeed, and writes nothing twice', async () => {
    const modelId = await newModel('Essai concurrence');
    const ids = await add(modelId, { rack: 'T6', level: 1, quantity: 6 });
    // Two removals of the same box by two people.
    for (const id of ids.slice(0, 3)) {
      const [a, b] = await Promise.all([
        gql('commercial', M.removeStockItem, { id, v: 1, d: '2026-03-11', r: 'Vendue' }),
        gql('diagnostician', M.removeStockItem, { id, v: 1, d: '2026-03-12', r: 'Mise au rebut' }),
      ]);
      const winners = [a, b].filter((res) => !res.errors);
      const losers = [a, b].filter((res) => res.errors);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(losers[0]!.errors![0]!.extensions.code).toBe('conflict');
      expect([REMOVED, STALE]).toContain(losers[0]!.errors![0]!.message);
      const winner =
        winners[0] === a
          ? { by: 'Sophie Laurent', outOn: '2026-03-11', reason: 'Vendue' }
          : { by: 'Julien Moreau', outOn: '2026-03-12', reason: 'Mise au rebut' };
      const item = await itemOf(id);
      expect(item).toMatchObject({ outOn: winner.outOn, outReason: winner.reason, version: 2 });
      expect(item.movements.map((m) => [m.kind, m.byName, m.reason])).toEqual([
        ['added', 'Julien Moreau', ''],
        ['removed', winner.by, winner.reason],
      ]);
    }
    // A move and a removal of the same box.
    for (const id of ids.slice(3)) {
      const [move, removal] = await Promise.all([
        gql('app_admin', M.moveStockItem, { id, v: 1, r: 'T7', l: 3 }),
        gql('commercial', M.removeStockItem, { id, v: 1, d: '2026-03-11', r: 'Vendue' }),
      ]);
      expect([move, removal].filter((res) => !res.errors)).toHaveLength(1);
      const item = await itemOf(id);
      expect(item.version).toBe(2);
      if (!move.errors) {
        expect(removal.errors![0]).toMatchObject({ message: STALE, extensions: { code: 'conflict' } });
        expect(item).toMatchObject({ rack: 'T7', level: 3, outOn: null });
        expect(item.movements.map((m) => m.kind)).toEqual(['added', 'moved']);
      } else {
        expect(move.errors[0]).toMatchObject({ message: REMOVED, extensions: { code: 'conflict' } });
        expect(item).toMatchObject({ rack: 'T6', level: 1, outOn: '2026-03-11' });
        expect(item.movements.map((m) => m.kind)).toEqual(['added', 'removed']);
      }
    }
  });

  it('refuses a change made on an older version, naming the conflict, and writes nothing', async () => {
    const modelId = await newModel('Essai version');
    const [id] = await add(modelId, { rack: 'T8', level: 1 });
    expect(ok(await gql('app_admin', M.moveStockItem, { id, v: 1, r: 'T8', l: 2 })).moveStockItem).toBe(id);
    for (const [query, variables] of [
      [M.moveStockItem, { id, v: 1, r: 'T9', l: 3 }],
      [Q.condition, { id, v: 1, c: 'new' }],
      [M.removeStockItem, { id, v: 1, d: '2026-03-12', r: 'Vendue' }],
      [M.moveStockItem, { id, v: 3, r: 'T9', l: 3 }],
    ] as const) {
      const res = await gql('commercial', query, variables);
      expect(res.errors?.[0], JSON.stringify(variables)).toMatchObject({ message: STALE, extensions: { code: 'conflict' } });
    }
    const item = await itemOf(id!);
    expect(item).toMatchObject({ rack: 'T8', level: 2, condition: 'used', outOn: null, version: 2 });
    expect(item.movements.map((m) => m.kind)).toEqual(['added', 'moved']);
  });

  it('searches by reference, code and model, filters by condition, rack, type and model, and counts current boxes per model and condition', async () => {
    const autoId = await newModel('Essai filtres');
    const cvtId = await newModel('Essai filtres CVT', 'variator');
    const { boxIds } = await newCodes(autoId, 'EF-DOC', ['QZXW']);
    const a = await add(autoId, { code: `g:${boxIds[0]}`, condition: 'used', rack: 'TA', level: 1, quantity: 2 });
    const b = await add(autoId, { condition: 'new', rack: 'TB', level: 2 });
    const c = await add(cvtId, { condition: 'used', rack: 'TB', level: 3, quantity: 3 });
    const [gone] = await add(cvtId, { condition: 'new', rack: 'TC', level: 1 });
    expect(ok(await gql('commercial', M.removeStockItem, { id: gone, v: 1, d: '2026-03-12', r: 'Vendue' })).removeStockItem).toBe(gone);

    const ids = (list: { items: Listed[] }) => list.items.map((i) => i.id).sort();
    const sorted = (...lists: string[][]) => lists.flat().sort();
    const target = await itemOf(c[1]!);
    const digits = target.reference.replace(/^S-0*/, '');
    expect(ids(await listOf({ s: target.reference }))).toEqual([target.id]);
    expect(ids(await listOf({ s: target.reference.toLowerCase() }))).toEqual([target.id]);
    // The number alone also matches codes and names containing it: within the model, only that box.
    expect(ids(await listOf({ s: digits, m: cvtId }))).toEqual([target.id]);
    expect((await listOf({ s: digits })).items.map((i) => i.id)).toContain(target.id);
    expect(ids(await listOf({ s: 'qzxw' }))).toEqual(sorted(a));
    expect(ids(await listOf({ s: 'EF-DOC' }))).toEqual(sorted(a));
    expect(ids(await listOf({ s: 'essai filtres cvt' }))).toEqual(sorted(c));
    expect(ids(await listOf({ s: 'Essai filtres' }))).toEqual(sorted(a, b, c));
    // The search is its first 120 characters, on every edge: what comes after them is not looked for.
    expect(ids(await listOf({ s: `Essai filtres${' '.repeat(107)}introuvable` }))).toEqual(sorted(a, b, c));
    expect(ids(await listOf({ s: 'Essai filtres', h: true }))).toEqual([gone]);
    expect(ids(await listOf({ m: autoId, c: 'used' }))).toEqual(sorted(a));
    expect(ids(await listOf({ s: 'Essai filtres', c: 'new' }))).toEqual(sorted(b));
    expect(ids(await listOf({ s: 'Essai filtres', r: 'TB' }))).toEqual(sorted(b, c));
    // A rack is found as it is written on add and move.
    expect(ids(await listOf({ s: 'Essai filtres', r: ' t b ' }))).toEqual(sorted(b, c));
    // A reference searched after texts on the same filters: the read built for a text (no number in its shape) does not answer it.
    expect(ids(await listOf({ s: target.reference, r: 'TB' }))).toEqual([target.id]);
    expect(ids(await listOf({ s: 'Essai filtres', t: 'variator' }))).toEqual(sorted(c));
    expect(ids(await listOf({ s: 'Essai filtres', t: 'automatic', r: 'TA' }))).toEqual(sorted(a));
    expect(ids(await listOf({ m: cvtId, r: 'TC' }))).toEqual([]);
    // Current stock reads by rack and level, then reference.
    expect((await listOf({ s: 'Essai filtres' })).items.map((i) => `${i.rack}-${i.level}`)).toEqual(['TA-1', 'TA-1', 'TB-2', 'TB-3', 'TB-3', 'TB-3']);
    const page = await listOf({ s: 'Essai filtres', limit: 2, offset: 2 });
    expect(page.items.map((i) => `${i.rack}-${i.level}`)).toEqual(['TB-2', 'TB-3']);
    expect(page.count).toBe(6);
    expect((await gql('app_admin', '{ stockItems(limit: 501) { id } }')).errors![0]!.extensions.code).toBe('validation');

    const counts = ok(await gql('commercial', Q.counts, { s: 'Essai filtres' }));
    type CountRow = { modelId: string; model: string; condition: string; count: number };
    const rows = (counts.stockCounts as CountRow[])
      .map((r) => [r.model, r.condition, r.count, r.modelId] as const)
      .sort((x, y) => x[0].localeCompare(y[0]) || x[1].localeCompare(y[1]));
    expect(rows).toEqual([
      ['Essai filtres', 'new', 1, autoId],
      ['Essai filtres', 'used', 2, autoId],
      ['Essai filtres CVT', 'used', 3, cvtId],
    ]);
    expect((counts.stockCounts as CountRow[]).map((r) => r.model)).toEqual(['Essai filtres', 'Essai filtres', 'Essai filtres CVT']);
    expect(counts.stockItemsAggregate.count).toBe(rows.reduce((sum, r) => sum + r[2], 0));
    // The counts are of the current stock, whatever list is shown.
    expect(ok(await gql('commercial', Q.counts, { s: 'Essai filtres', h: true })).stockCounts).toHaveLength(3);
    expect(ok(await gql('commercial', Q.counts, { m: cvtId, c: 'used' })).stockCounts).toEqual([
      { modelId: cvtId, model: 'Essai filtres CVT', condition: 'used', count: 3 },
    ]);

    const racks: string[] = ok(await gql('commercial', Q.racks)).stockRacks;
    expect(racks).toEqual(expect.arrayContaining(['TA', 'TB']));
    expect(racks).not.toContain('TC');
    expect([...racks].sort()).toEqual(racks);
  });

  it('keeps the codes a box carries and the model of stocked boxes', async () => {
    const modelId = await newModel('Essai codes utilisés');
    const withBox = await newCodes(modelId, 'EC-DOC', ['ECG']);
    const alone = await newCodes(modelId, 'EC-SEUL');
    const [first] = await add(modelId, { code: `g:${withBox.boxIds[0]}` });
    await add(modelId, { code: `d:${alone.doctorId}`, quantity: 2 });
    // Still carried once the box has left the stock.
    expect(ok(await gql('commercial', M.removeStockItem, { id: first, v: 1, d: '2026-03-11', r: 'Vendue' })).removeStockItem).toBe(first);

    expect((await gql('diagnostician', M.deleteGearboxCode, { id: withBox.boxIds[0] })).errors![0]).toMatchObject({
      message: 'Code utilisé',
      extensions: { code: 'conflict' },
    });
    expect((await gql('diagnostician', M.deleteDoctorCode, { id: alone.doctorId })).errors![0]).toMatchObject({
      message: 'Code utilisé',
      extensions: { code: 'conflict' },
    });
    const refused = await gql('app_admin', M.deleteGearboxModel, { id: modelId });
    expect(refused.errors![0]).toMatchObject({ message: 'Suppression impossible', extensions: { code: 'conflict' } });
    expect((refused.errors![0]!.extensions as { reasons?: string[] }).reasons).toEqual(['boîtes en stock (2)', 'historique du stock (1)']);
    const codes = ok(
      await gql('diagnostician', 'query($id: uuid!) { gearboxModel(id: $id) { doctorCodes { code gearboxCodes { code } } } }', { id: modelId }),
    ).gearboxModel;
    expect(codes.doctorCodes).toEqual([
      { code: 'EC-DOC', gearboxCodes: [{ code: 'ECG' }] },
      { code: 'EC-SEUL', gearboxCodes: [] },
    ]);
    expect(await itemOf(first!)).toMatchObject({ doctorCode: 'EC-DOC', gearboxCode: 'ECG' });
  });

  it('sends the stock list again after a removal', async () => {
    const modelId = await newModel('Essai en direct');
    const ids = await add(modelId, { rack: 'TD', level: 1, quantity: 2 });
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { headers: { Authorization: `Bearer ${tokens.commercial}` } },
    });
    try {
      const seen: string[][] = [];
      let first!: () => void;
      const started = new Promise<void>((resolve) => (first = resolve));
      const shrunk = new Promise<void>((resolve, reject) => {
        client.subscribe<{ stockItems: { id: string }[] }>(
          { query: 'subscription($m: uuid) { stockItems(modelId: $m) { id } }', variables: { m: modelId } },
          {
            next: (value) => {
              if (value.errors) return reject(new Error(value.errors[0]!.message));
              const list = value.data!.stockItems.map((i) => i.id);
              seen.push(list);
              first();
              if (list.length === 1) resolve();
            },
            error: reject,
            complete: () => undefined,
          },
        );
      });
      await started;
      expect(ok(await gql('diagnostician', M.removeStockItem, { id: ids[0], v: 1, d: '2026-03-11', r: 'Vendue' })).removeStockItem).toBe(ids[0]);
      await Promise.race([shrunk, new Promise((_, reject) => setTimeout(() => reject(new Error('the list was not sent again within 5 s')), 5000))]);
      expect(seen[0]!.sort()).toEqual([...ids].sort());
      expect(seen.at(-1)).toEqual([ids[1]]);
    } finally {
      await client.dispose();
    }
  });
});
