// Repair orders through the API: who may read and write them, an order and its history as
// written, a number taken once whatever its case, bad input in French, the model kept once the
// diagnostic has begun, a closed order kept as it is, the list's search, filters, sorts and
// pages, and deleting. Each test works on orders and models of its own ('T-…' numbers), so
// demo orders cannot change its answers.
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { databaseKinds, SOMEONE, startTestApp, type TestApp } from './support/app.ts';
import { createModel, type DemoRole, type Document, documentText, type GqlResult, graphqlAs, M, ok, signInAll } from './kit/index.ts';

const ORDER = `id number openedOn closedOn status interventionCategory gearboxCode
  model { id model type constructorName bvaId } referent { id displayName }
  vehicleBrand vehicleModel energy engineSize mileage constructionYear comment interventions outageParts
  history { mileage intervention } canReadFaultCodes measuresDone modelLocked`;
const FILTER_VARS = '$s: String, $from: String, $to: String, $c: intervention_category, $t: repair_order_gearbox_type, $m: uuid';
const FILTER_ARGS = 'search: $s, from: $from, to: $to, category: $c, type: $t, modelId: $m';

const Q = {
  order: `query($id: uuid!) { repairOrder(id: $id) { ${ORDER} } }`,
  referents: '{ repairOrderReferents { id displayName } }',
  list: `query(${FILTER_VARS}, $sort: repair_order_sort, $desc: Boolean, $limit: Int, $offset: Int) {
    repairOrders(${FILTER_ARGS}, sort: $sort, descending: $desc, limit: $limit, offset: $offset) { id number openedOn status interventionCategory gearboxCode model { id model type constructorName } }
    repairOrdersAggregate(${FILTER_ARGS}) { count }
  }`,
};

type Order = {
  id: string;
  number: string;
  openedOn: string;
  closedOn: string | null;
  status: string;
  interventionCategory: string;
  gearboxCode: string;
  model: { id: string; model: string; type: string; constructorName: string; bvaId: string };
  referent: { id: string; displayName: string } | null;
  history: { mileage: number; intervention: string }[];
  modelLocked: boolean;
  [field: string]: unknown;
};
type Listed = {
  id: string;
  number: string;
  openedOn: string;
  status: string;
  interventionCategory: string;
  gearboxCode: string;
  model: { id: string; model: string; type: string; constructorName: string };
};

const LOCKED = 'Le modèle de boîte ne peut plus changer : le diagnostic a commencé.';
const TAKEN = "Numéro de l'ordre de réparation non disponible";

describe.each(databaseKinds)('repair orders on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(t.database.db, query);
  async function newModel(model: string, overrides: object = {}): Promise<string> {
    return await createModel(gql.diagnostician, { model, type: 'automatic', constructorName: 'ZF Friedrichshafen', startYear: 2010, gears: 8, ...overrides });
  }
  const order = (modelId: string, overrides: object = {}) => ({
    number: 'T-0001',
    openedOn: '2026-03-10',
    interventionCategory: 'gearbox_only',
    gearboxModelId: modelId,
    ...overrides,
  });
  async function add(object: object, role: DemoRole = 'diagnostician'): Promise<string> {
    return ok(await gql(role, M.insertRepairOrder, { o: object })).insertRepairOrder;
  }
  const orderOf = async (id: string, role: DemoRole = 'app_admin'): Promise<Order | null> => ok(await gql(role, Q.order, { id })).repairOrder;
  const listOf = async (variables: object): Promise<{ items: Listed[]; count: number }> => {
    const data = ok(await gql('app_admin', Q.list, variables));
    return { items: data.repairOrders, count: data.repairOrdersAggregate.count };
  };
  /** Orders whose number holds `text`, counted in the table itself. */
  const stored = async (text: string) =>
    (await rows<{ n: number }>(sql`select count(*)::int as n from repair_orders where upper(number) like ${`%${text.toUpperCase()}%`}`))[0]!.n;
  const fieldsOf = (res: GqlResult) => {
    expect(res.errors?.[0]?.extensions.code).toBe('validation');
    return res.errors![0]!.extensions.fields;
  };

  it('lets every role read orders, and refuses writing to commercials and mechanics', async () => {
    const modelId = await newModel('Essai OR rôles');
    const id = await add(order(modelId, { number: 'T-ROLE-1', comment: 'Avant' }), 'app_admin');
    const other = await add(order(modelId, { number: 'T-ROLE-2' }), 'diagnostician');
    for (const role of ['app_admin', 'diagnostician', 'mechanic', 'commercial'] as const) {
      const read = ok(
        await gql(
          role,
          `query($m: uuid) { repairOrders(modelId: $m, sort: numero) { number } repairOrdersAggregate(modelId: $m) { count } repairOrderReferents { id } }`,
          { m: modelId },
        ),
      );
      expect(read.repairOrders).toEqual([{ number: 'T-ROLE-1' }, { number: 'T-ROLE-2' }]);
      expect(read.repairOrdersAggregate.count).toBe(2);
      expect(read.repairOrderReferents.length).toBeGreaterThan(0);
      expect(await orderOf(id, role)).toMatchObject({ id, number: 'T-ROLE-1', comment: 'Avant' });
    }
    // Admins and diagnosticians write.
    expect(ok(await gql('diagnostician', M.updateRepairOrder, { id, o: order(modelId, { number: 'T-ROLE-1', comment: 'Par D' }) })).updateRepairOrder).toBe(id);
    expect(ok(await gql('app_admin', M.updateRepairOrder, { id, o: order(modelId, { number: 'T-ROLE-1', comment: 'Par A' }) })).updateRepairOrder).toBe(id);

    for (const role of ['commercial', 'mechanic'] as const) {
      const attempts: [Document<any, any>, object][] = [
        [M.insertRepairOrder, { o: order(modelId, { number: `T-ROLE-${role}` }) }],
        [M.updateRepairOrder, { id, o: order(modelId, { number: 'T-ROLE-1', comment: role }) }],
        [M.deleteRepairOrder, { id: other }],
      ];
      for (const [query, variables] of attempts) {
        const res = await gql(role, query, variables);
        expect(res.errors?.[0]?.extensions.code, `${role} ${documentText(query)}`).toBe('forbidden');
        expect(
          Object.values(res.data ?? {}).filter((v) => v !== null),
          `${role} ${documentText(query)}`,
        ).toEqual([]);
      }
    }
    // Nothing they asked was done.
    expect(await stored('T-ROLE-')).toBe(2);
    expect(await orderOf(id)).toMatchObject({ comment: 'Par A' });
    expect(await orderOf(other)).toMatchObject({ number: 'T-ROLE-2' });
  });

  it('keeps every field of an order as written, its history in order, and offers only admins and diagnosticians as referents', async () => {
    const modelId = await newModel('Essai OR champs', { bvaId: 'BVA-CH-7', type: 'double_clutch', constructorName: 'Getrag' });
    const referents: { id: string; displayName: string }[] = ok(await gql('mechanic', Q.referents)).repairOrderReferents;
    const expected = await rows<{ id: string; display_name: string }>(
      sql`select id, display_name from auth.users where default_role in ('app_admin', 'diagnostician') and not disabled order by display_name`,
    );
    expect(referents).toEqual(expected.map((u) => ({ id: u.id, displayName: u.display_name })));
    const names = referents.map((r) => r.displayName);
    expect(names).toEqual(expect.arrayContaining(['Claire Dubois', 'Julien Moreau']));
    expect(names).not.toContain('Karim Benali');
    expect(names).not.toContain('Sophie Laurent');
    const julien = referents.find((r) => r.displayName === 'Julien Moreau')!;

    const full = {
      number: ' t-cr-2026/01 ',
      openedOn: '09/03/2026',
      interventionCategory: 'complete_car',
      gearboxModelId: modelId,
      gearboxCode: '  LQV ',
      referentId: julien.id,
      vehicleBrand: ' Volkswagen ',
      vehicleModel: 'Golf VII',
      energy: 'diesel',
      engineSize: '1.8L_to_2.5L',
      mileage: '100000_to_150000',
      constructionYear: 2015,
      comment: '  À-coups au passage 2→3  ',
      interventions: ['Vidange', ' ', '  Remplacement mécatronique '],
      outageParts: ['Mécatronique', 'Embrayage K1'],
      history: [
        { mileage: 120000, intervention: 'Vidange boîte' },
        { mileage: 60000, intervention: 'Mise à jour logiciel' },
        { mileage: 90000, intervention: 'Joint de carter' },
      ],
    };
    const id = await add(full);
    const read = await orderOf(id, 'commercial');
    expect(read).toEqual({
      id,
      number: 'T-CR-2026/01',
      openedOn: '2026-03-09',
      closedOn: null,
      status: 'IN_PROGRESS',
      interventionCategory: 'complete_car',
      gearboxCode: 'LQV',
      model: { id: modelId, model: 'Essai OR champs', type: 'double_clutch', constructorName: 'Getrag', bvaId: 'BVA-CH-7' },
      referent: { id: julien.id, displayName: 'Julien Moreau' },
      vehicleBrand: 'Volkswagen',
      vehicleModel: 'Golf VII',
      energy: 'diesel',
      engineSize: '1.8L_to_2.5L',
      mileage: '100000_to_150000',
      constructionYear: 2015,
      comment: 'À-coups au passage 2→3',
      interventions: ['Vidange', 'Remplacement mécatronique'],
      outageParts: ['Mécatronique', 'Embrayage K1'],
      history: full.history,
      canReadFaultCodes: null,
      measuresDone: null,
      modelLocked: false,
    });

    // Updating replaces the history with the new rows, in their new order, and clears what is left out.
    const history = [full.history[2]!, { mileage: 0, intervention: 'Contrôle à la livraison' }];
    ok(
      await gql('app_admin', M.updateRepairOrder, {
        id,
        o: order(modelId, { number: 'T-CR-2026/01', openedOn: '2026-03-11', interventionCategory: 'mechatronics_only', history }),
      }),
    );
    expect(await orderOf(id)).toMatchObject({
      number: 'T-CR-2026/01',
      openedOn: '2026-03-11',
      interventionCategory: 'mechatronics_only',
      gearboxCode: '',
      referent: null,
      vehicleBrand: '',
      energy: null,
      engineSize: null,
      mileage: null,
      constructionYear: null,
      comment: '',
      interventions: [],
      outageParts: [],
      history,
    });
    expect(
      (await rows<{ position: number }>(sql`select position from intervention_history where repair_order_id = ${id} order by position`)).map((r) => r.position),
    ).toEqual([1, 2]);
    // An order nobody has is not found.
    expect(
      (await gql('app_admin', M.updateRepairOrder, { id: '00000000-0000-4000-8000-000000000000', o: order(modelId, { number: 'T-CR-X' }) })).errors?.[0]
        ?.extensions.code,
    ).toBe('not-found');
    expect(await orderOf('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('refuses a number already taken, whatever its case, and writes nothing', async () => {
    const modelId = await newModel('Essai OR numéro');
    const first = await add(order(modelId, { number: 'T-UNIQ-7a' }));
    expect((await orderOf(first))!.number).toBe('T-UNIQ-7A');
    for (const number of ['t-uniq-7a', 'T-UNIQ-7A', ' T-Uniq-7A ']) {
      expect(fieldsOf(await gql('diagnostician', M.insertRepairOrder, { o: order(modelId, { number }) }))).toEqual({ 'object.number': TAKEN });
    }
    const second = await add(order(modelId, { number: 'T-UNIQ-8' }));
    expect(fieldsOf(await gql('app_admin', M.updateRepairOrder, { id: second, o: order(modelId, { number: 't-uniq-7A', comment: 'Changé' }) }))).toEqual({
      'object.number': TAKEN,
    });
    expect(await stored('T-UNIQ-')).toBe(2);
    expect(await orderOf(second)).toMatchObject({ number: 'T-UNIQ-8', comment: '' });
    // Its own number, in another case, is still its own.
    ok(await gql('app_admin', M.updateRepairOrder, { id: second, o: order(modelId, { number: 't-uniq-8', comment: 'Changé' }) }));
    expect(await orderOf(second)).toMatchObject({ number: 'T-UNIQ-8', comment: 'Changé' });
  });

  it('refuses bad input in French and writes nothing', async () => {
    const modelId = await newModel('Essai OR saisie');
    const base = order(modelId, { number: 'T-BAD-1' });
    const [{ id: mechanicId }] = await rows<{ id: string }>(sql`select id from auth.users where email = 'mecanicien@demo.local'`);
    const refusals: [object, Record<string, string>][] = [
      [{ constructionYear: 201 }, { 'object.constructionYear': 'Année invalide' }],
      [{ constructionYear: 1900 }, { 'object.constructionYear': 'Année invalide' }],
      [
        {
          history: [
            { mileage: 1000, intervention: 'Vidange' },
            { mileage: -5, intervention: 'Vidange' },
          ],
        },
        { 'object.history': 'Nombre invalide' },
      ],
      [{ history: [{ mileage: 1000, intervention: ' ' }] }, { 'object.history': 'Champ obligatoire' }],
      [{ number: 'T#1' }, { 'object.number': 'Numéro invalide : lettres, chiffres, espace, . / _ ou -' }],
      [{ number: '-T-1' }, { 'object.number': 'Numéro invalide : lettres, chiffres, espace, . / _ ou -' }],
      [{ number: '  ' }, { 'object.number': 'Champ obligatoire' }],
      [{ openedOn: '2026-02-30' }, { 'object.openedOn': 'Date invalide' }],
      // An order is not opened on a day still to come (walk31 F1).
      [{ openedOn: '2099-12-31' }, { 'object.openedOn': "Date postérieure à aujourd'hui" }],
      [{ energy: 'charbon' }, { 'object.energy': 'Valeur inconnue' }],
      [{ engineSize: '9L' }, { 'object.engineSize': 'Valeur inconnue' }],
      [{ mileage: 'beaucoup' }, { 'object.mileage': 'Valeur inconnue' }],
      [{ gearboxModelId: '00000000-0000-4000-8000-000000000000' }, { 'object.gearboxModelId': 'Modèle inconnu' }],
      // Only admins and diagnosticians may be the referent (the form offers only them).
      [{ referentId: '00000000-0000-4000-8000-000000000000' }, { 'object.referentId': 'Référent inconnu' }],
      [{ referentId: mechanicId }, { 'object.referentId': 'Référent inconnu' }],
    ];
    for (const [overrides, fields] of refusals) {
      expect(fieldsOf(await gql('diagnostician', M.insertRepairOrder, { o: { ...base, ...overrides } })), JSON.stringify(overrides)).toEqual(fields);
    }
    expect(await stored('T-BAD-')).toBe(0);
    // The same refusals on an update leave the order as it was.
    const id = await add({ ...base, constructionYear: 2012, history: [{ mileage: 5000, intervention: 'Vidange' }] });
    for (const [overrides, fields] of refusals) {
      expect(
        fieldsOf(await gql('diagnostician', M.updateRepairOrder, { id, o: { ...base, comment: 'Changé', ...overrides } })),
        JSON.stringify(overrides),
      ).toEqual(fields);
    }
    expect(await orderOf(id)).toMatchObject({
      number: 'T-BAD-1',
      comment: '',
      constructionYear: 2012,
      model: { id: modelId },
      history: [{ mileage: 5000, intervention: 'Vidange' }],
    });
    expect(await stored('T-BAD-')).toBe(1);
  });

  it('keeps the model once the diagnostic has begun, and keeps a closed order as it is', async () => {
    const modelId = await newModel('Essai OR verrou');
    const otherModel = await newModel('Essai OR verrou bis');
    const id = await add(order(modelId, { number: 'T-LOCK-1' }));
    // Before the diagnostic, the model may change.
    ok(await gql('diagnostician', M.updateRepairOrder, { id, o: order(otherModel, { number: 'T-LOCK-1' }) }));
    expect(await orderOf(id)).toMatchObject({ model: { id: otherModel }, modelLocked: false });

    await t.database.db.execute(sql`update repair_orders set can_read_fault_codes = true where id = ${id}`);
    expect(await orderOf(id)).toMatchObject({ canReadFaultCodes: true, measuresDone: null, modelLocked: true });
    expect(fieldsOf(await gql('diagnostician', M.updateRepairOrder, { id, o: order(modelId, { number: 'T-LOCK-1', comment: 'Changé' }) }))).toEqual({
      'object.gearboxModelId': LOCKED,
    });
    expect(await orderOf(id)).toMatchObject({ model: { id: otherModel }, comment: '' });
    // Everything else still changes, and the diagnostic's answers are kept.
    ok(
      await gql('app_admin', M.updateRepairOrder, {
        id,
        o: order(otherModel, { number: 'T-LOCK-1', comment: 'Changé', gearboxCode: 'ABC', history: [{ mileage: 10, intervention: 'Essai' }] }),
      }),
    );
    expect(await orderOf(id)).toMatchObject({
      model: { id: otherModel },
      comment: 'Changé',
      gearboxCode: 'ABC',
      history: [{ mileage: 10, intervention: 'Essai' }],
      canReadFaultCodes: true,
      modelLocked: true,
    });

    // Measures alone lock it too.
    const measured = await add(order(modelId, { number: 'T-LOCK-2' }));
    await t.database.db.execute(sql`update repair_orders set measures_done = false where id = ${measured}`);
    expect(await orderOf(measured)).toMatchObject({ modelLocked: true });
    expect(fieldsOf(await gql('diagnostician', M.updateRepairOrder, { id: measured, o: order(otherModel, { number: 'T-LOCK-2' }) }))).toEqual({
      'object.gearboxModelId': LOCKED,
    });

    // A symptom alone too: the order's read says so before a change is tried.
    const described = await add(order(modelId, { number: 'T-LOCK-4' }));
    ok(await gql('diagnostician', M.insertOrderSymptom, { o: described, s: { symptom: 'Sifflement', temporality: 'during' } }));
    expect(await orderOf(described)).toMatchObject({ canReadFaultCodes: null, measuresDone: null, modelLocked: true });

    const closed = await add(order(modelId, { number: 'T-LOCK-3', comment: 'Avant' }));
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED', closed_on = '2026-03-20' where id = ${closed}`);
    const res = await gql('app_admin', M.updateRepairOrder, { id: closed, o: order(modelId, { number: 'T-LOCK-3', comment: 'Après' }) });
    expect(res.errors?.[0]).toMatchObject({
      message: 'Cet ordre de réparation est clôturé : il ne peut plus être modifié.',
      extensions: { code: 'conflict', reason: 'closed' },
    });
    expect(await orderOf(closed)).toMatchObject({ status: 'CLOSED', closedOn: '2026-03-20', comment: 'Avant' });
  });

  it('searches by number, gearbox code and model, filters, sorts both ways and pages, counting alike', async () => {
    const alpha = await newModel('Essai Tri Alpha', { type: 'robotic', constructorName: 'Constructeur A', bvaId: 'BVA-TRI-A' });
    const beta = await newModel('Essai Tri Beta', { type: 'variator', constructorName: 'Constructeur B' });
    const specs = [
      { number: 'T-SRT-01', openedOn: '2019-01-10', interventionCategory: 'gearbox_only', gearboxModelId: alpha, gearboxCode: 'QXA1' },
      { number: 'T-SRT-02', openedOn: '2019-01-20', interventionCategory: 'complete_car', gearboxModelId: beta, gearboxCode: 'QXB2' },
      { number: 'T-SRT-03', openedOn: '2019-01-31', interventionCategory: 'mechatronics_only', gearboxModelId: alpha, gearboxCode: 'QXB3' },
      { number: 'T-SRT-04', openedOn: '2019-01-09', interventionCategory: 'complete_car', gearboxModelId: beta, gearboxCode: 'ZZQX%' },
      { number: 'T-SRT-05', openedOn: '2019-02-01', interventionCategory: 'gearbox_only', gearboxModelId: beta, gearboxCode: 'SRT5' },
    ];
    const ids = new Map<string, string>();
    for (const spec of specs) ids.set(spec.number, await add(spec));
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED', closed_on = '2019-02-02' where id = ${ids.get('T-SRT-03')!}`);
    const numbersOf = async (variables: object) => {
      const { items, count } = await listOf({ limit: 100, ...variables });
      expect(count, JSON.stringify(variables)).toBe(items.length);
      return items.map((i) => i.number);
    };
    const sorted = (list: string[]) => [...list].sort();

    // Search: a part of the number, of the gearbox code, of the model's name or BVA id, any case.
    expect(sorted(await numbersOf({ s: 't-srt-0' }))).toEqual(['T-SRT-01', 'T-SRT-02', 'T-SRT-03', 'T-SRT-04', 'T-SRT-05']);
    expect(await numbersOf({ s: 'srt-04' })).toEqual(['T-SRT-04']);
    // Found by its number and by its gearbox code, an order is listed and counted once.
    expect(sorted(await numbersOf({ s: 'srt' }))).toEqual(['T-SRT-01', 'T-SRT-02', 'T-SRT-03', 'T-SRT-04', 'T-SRT-05']);
    expect(sorted(await numbersOf({ s: 'qxb' }))).toEqual(['T-SRT-02', 'T-SRT-03']);
    expect(sorted(await numbersOf({ s: 'qx' }))).toEqual(['T-SRT-01', 'T-SRT-02', 'T-SRT-03', 'T-SRT-04']);
    // `%` is a character, not a wildcard.
    expect(await numbersOf({ s: 'qx%' })).toEqual(['T-SRT-04']);
    expect(await numbersOf({ s: 'T-SRT_0' })).toEqual([]);
    expect(sorted(await numbersOf({ s: 'essai tri beta' }))).toEqual(['T-SRT-02', 'T-SRT-04', 'T-SRT-05']);
    expect(sorted(await numbersOf({ s: 'TRI ALPHA' }))).toEqual(['T-SRT-01', 'T-SRT-03']);
    expect(sorted(await numbersOf({ s: 'bva-tri' }))).toEqual(['T-SRT-01', 'T-SRT-03']);
    expect(await numbersOf({ s: 'T-SRT-09' })).toEqual([]);

    // Dates: both ends included.
    expect(sorted(await numbersOf({ s: 'T-SRT', from: '2019-01-10', to: '2019-01-31' }))).toEqual(['T-SRT-01', 'T-SRT-02', 'T-SRT-03']);
    expect(sorted(await numbersOf({ s: 'T-SRT', from: '2019-01-20' }))).toEqual(['T-SRT-02', 'T-SRT-03', 'T-SRT-05']);
    expect(sorted(await numbersOf({ s: 'T-SRT', to: '2019-01-10' }))).toEqual(['T-SRT-01', 'T-SRT-04']);
    expect(await numbersOf({ s: 'T-SRT', from: '2019-01-20', to: '2019-01-20' })).toEqual(['T-SRT-02']);
    // Category, type and model, alone and together.
    expect(sorted(await numbersOf({ s: 'T-SRT', c: 'complete_car' }))).toEqual(['T-SRT-02', 'T-SRT-04']);
    expect(sorted(await numbersOf({ s: 'T-SRT', t: 'robotic' }))).toEqual(['T-SRT-01', 'T-SRT-03']);
    expect(sorted(await numbersOf({ m: beta }))).toEqual(['T-SRT-02', 'T-SRT-04', 'T-SRT-05']);
    expect(await numbersOf({ m: beta, c: 'gearbox_only', from: '2019-01-15' })).toEqual(['T-SRT-05']);
    expect(await numbersOf({ m: alpha, t: 'variator' })).toEqual([]);

    // Sorts, each way; equal values fall back to the number, last first.
    const listed = (await listOf({ s: 'T-SRT', limit: 100 })).items;
    const keys: Record<string, (o: Listed) => string> = {
      numero: (o) => o.number,
      date: (o) => o.openedOn,
      categorie: (o) => o.interventionCategory,
      type: (o) => o.model.type,
      constructeur: (o) => o.model.constructorName,
      modele: (o) => o.model.model,
      statut: (o) => o.status,
    };
    const byNumberDesc = (a: Listed, b: Listed) => (a.number < b.number ? 1 : a.number > b.number ? -1 : 0);
    for (const [sort, key] of Object.entries(keys)) {
      for (const desc of [false, true]) {
        const expected = [...listed]
          .sort((a, b) => (key(a) === key(b) ? byNumberDesc(a, b) : (key(a) < key(b) ? -1 : 1) * (desc ? -1 : 1)))
          .map((o) => o.number);
        expect(await numbersOf({ s: 'T-SRT', sort, desc }), `${sort} ${desc ? 'desc' : 'asc'}`).toEqual(expected);
      }
    }
    // Newest first unless told otherwise.
    expect(await numbersOf({ s: 'T-SRT' })).toEqual(['T-SRT-05', 'T-SRT-03', 'T-SRT-02', 'T-SRT-01', 'T-SRT-04']);
    expect((await listOf({ s: 'T-SRT', sort: 'statut', limit: 1 })).items[0]!.number).toBe('T-SRT-03');

    // Pages of two make up the whole list, and the count is the whole list's.
    const all = await numbersOf({ s: 'T-SRT', sort: 'numero' });
    const pages: string[] = [];
    for (const offset of [0, 2, 4, 6]) {
      const page = await listOf({ s: 'T-SRT', sort: 'numero', limit: 2, offset });
      expect(page.count).toBe(5);
      expect(page.items.length).toBe(Math.max(0, Math.min(2, 5 - offset)));
      pages.push(...page.items.map((i) => i.number));
    }
    expect(pages).toEqual(all);
    expect((await listOf({ s: 'T-SRT', limit: 0 })).items).toEqual([]);

    // Bad dates and limits are refused by name, in French.
    for (const [variables, field, message] of [
      [{ from: '10/01/2019' }, 'from', 'Date invalide'],
      [{ to: '2019-1-5' }, 'to', 'Date invalide'],
      [{ from: '2019-02-30' }, 'from', 'Date invalide'],
      [{ to: '2019-13-01' }, 'to', 'Date invalide'],
      [{ limit: 101 }, 'limit', 'Entre 0 et 100'],
      [{ offset: -1 }, 'offset', 'Minimum 0'],
    ] as const) {
      expect(fieldsOf(await gql('mechanic', Q.list, variables)), JSON.stringify(variables)).toEqual({ [field]: message });
    }
    const count = await gql('mechanic', 'query($from: String) { repairOrdersAggregate(from: $from) { count } }', { from: '2019-02-30' });
    expect(fieldsOf(count)).toEqual({ from: 'Date invalide' });
  });

  it('counts the list exactly as orders come, change model and go, with a page past the end counted too', async () => {
    const gamma = await newModel('Essai Compte Gamma', { type: 'robotic', bvaId: 'BVA-CPT-G' });
    const delta = await newModel('Essai Compte Delta', { type: 'variator' });
    // What the table holds, for each filter the list counts without dates or a category.
    const filters: [object, SQL][] = [
      [{}, sql`true`],
      [{ m: gamma }, sql`r.gearbox_model_id = ${gamma}`],
      [{ t: 'robotic' }, sql`m.type = 'robotic'`],
      [{ s: 'compte gamma' }, sql`r.gearbox_model_id = ${gamma}`],
      // The model's orders and, of another model, one whose number or code says it.
      [{ s: 'cpt' }, sql`r.gearbox_model_id = ${gamma} or upper(r.number) like '%CPT%' or upper(r.gearbox_code) like '%CPT%'`],
      [{ s: 'cpt', t: 'variator' }, sql`m.type = 'variator' and (upper(r.number) like '%CPT%' or upper(r.gearbox_code) like '%CPT%')`],
      [{ s: 'cpt', m: delta }, sql`r.gearbox_model_id = ${delta} and (upper(r.number) like '%CPT%' or upper(r.gearbox_code) like '%CPT%')`],
      [{ s: 'essai compte' }, sql`r.gearbox_model_id in (${gamma}, ${delta})`],
    ];
    const expectExact = async (step: string) => {
      for (const [variables, where] of filters) {
        const [held] = await rows<{ n: number }>(
          sql`select count(*)::int as n from repair_orders r join gearbox_models m on m.id = r.gearbox_model_id where ${where}`,
        );
        expect((await listOf({ limit: 0, ...variables })).count, `${step} ${JSON.stringify(variables)}`).toBe(held!.n);
      }
    };
    await expectExact('before');
    const first = await add(order(gamma, { number: 'T-CPT-1' }));
    await add(order(delta, { number: 'T-CPT-2', gearboxCode: 'XCPTX' }));
    await add(order(delta, { number: 'T-AUTRE-3' }));
    await expectExact('added');
    ok(await gql('diagnostician', M.updateRepairOrder, { id: first, o: order(delta, { number: 'T-CPT-1' }) }));
    await expectExact('model changed');
    ok(await gql('diagnostician', M.updateRepairOrder, { id: first, o: order(delta, { number: 'T-CPT-1', comment: 'Même modèle' }) }));
    await expectExact('changed, same model');
    await rows(
      sql`insert into repair_orders (number, opened_on, intervention_category, gearbox_model_id) select 'T-LOT-' || i, '2020-01-01', 'gearbox_only', ${gamma} from generate_series(1, 30) i`,
    );
    await expectExact('30 added in one statement');
    await rows(sql`delete from repair_orders where number like 'T-LOT-%' and number <> 'T-LOT-7'`);
    ok(await gql('app_admin', M.deleteRepairOrder, { id: first }));
    await expectExact('deleted');

    // The list's screen reads a page and its total together; past the end, the total still.
    const { page } = t.app.domain.repairOrders;
    const asked = { search: 'essai compte', sort: 'numero' as const, descending: false, limit: 1 };
    expect(await page(SOMEONE, { ...asked, offset: 2 })).toEqual({ rows: [expect.objectContaining({ number: 'T-LOT-7' })], total: 3 });
    expect(await page(SOMEONE, { ...asked, offset: 5 })).toEqual({ rows: [], total: 3 });
    expect(await page(SOMEONE, { ...asked, search: 'T-CPT-9', offset: 0 })).toEqual({ rows: [], total: 0 });
  });

  it('lets only admins and diagnosticians delete an order, which goes with its history', async () => {
    const modelId = await newModel('Essai OR suppression');
    const history = [
      { mileage: 1000, intervention: 'Vidange' },
      { mileage: 2000, intervention: 'Filtre' },
    ];
    const id = await add(order(modelId, { number: 'T-DEL-1', history }));
    const byDiagnostician = await add(order(modelId, { number: 'T-DEL-2' }));
    const historyCount = async (orderId: string) =>
      (await rows<{ n: number }>(sql`select count(*)::int as n from intervention_history where repair_order_id = ${orderId}`))[0]!.n;
    expect(await historyCount(id)).toBe(2);
    for (const role of ['commercial', 'mechanic'] as const) {
      expect((await gql(role, M.deleteRepairOrder, { id })).errors?.[0]?.extensions.code).toBe('forbidden');
    }
    expect(await orderOf(id)).toMatchObject({ number: 'T-DEL-1', history });

    expect(ok(await gql('app_admin', M.deleteRepairOrder, { id })).deleteRepairOrder).toBe(id);
    expect(await orderOf(id, 'mechanic')).toBeNull();
    expect(await historyCount(id)).toBe(0);
    expect((await listOf({ m: modelId })).items.map((i) => i.number)).toEqual(['T-DEL-2']);
    // Gone means gone: a second delete finds nothing.
    expect((await gql('app_admin', M.deleteRepairOrder, { id })).errors?.[0]?.extensions.code).toBe('not-found');

    expect(ok(await gql('diagnostician', M.deleteRepairOrder, { id: byDiagnostician })).deleteRepairOrder).toBe(byDiagnostician);
    expect(await stored('T-DEL-')).toBe(0);
  });

  it('refuses deleting a closed order, to the admin too: it is a record', async () => {
    const modelId = await newModel('Essai OR clos suppression');
    const id = await add(order(modelId, { number: 'T-DEL-CLOS', comment: 'Clôturé' }));
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED', closed_on = '2026-03-20' where id = ${id}`);
    for (const role of ['app_admin', 'diagnostician'] as const) {
      expect((await gql(role, M.deleteRepairOrder, { id })).errors?.[0]).toMatchObject({
        message: 'Cet ordre de réparation est clôturé : il ne peut pas être supprimé.',
        extensions: { code: 'conflict', reason: 'closed' },
      });
    }
    expect(await orderOf(id)).toMatchObject({ number: 'T-DEL-CLOS', status: 'CLOSED', comment: 'Clôturé' });
  });
});
