import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { files, orderMeasures, repairOrders, users } from '#server/db/schema/index.ts';
import { createOrderMeasuresService } from '#server/repair-orders/measures.ts';
import { orderMeasureSchema, proposeCheckResult } from '#lib/repair-orders/measures.ts';
import { fieldErrors } from '#lib/validation.ts';
import { type OrderMeasurePage, refusalNow } from '#pages/repair-order/[orderId]/measure/_measureId.screen.ts';
import { databaseKinds, SOMEONE, startTestApp, type TestApp } from './support/app.ts';
import { graphqlAs, M, ok, signInAll, createModel, createOrder } from './kit/index.ts';

describe('the result the bounds propose', () => {
  it('is ok inside, a tolerance within 5 % of the range outside, nok further', () => {
    expect(proposeCheckResult(null, 3.5, 4.5)).toBeNull();
    expect(proposeCheckResult(4, 3.5, 4.5)).toBe('ok');
    expect(proposeCheckResult(3.5, 3.5, 4.5)).toBe('ok');
    expect(proposeCheckResult(4.5, 3.5, 4.5)).toBe('ok');
    expect(proposeCheckResult(4.55, 3.5, 4.5)).toBe('high_tolerance');
    expect(proposeCheckResult(4.56, 3.5, 4.5)).toBe('nok');
    expect(proposeCheckResult(3.45, 3.5, 4.5)).toBe('low_tolerance');
    expect(proposeCheckResult(3.44, 3.5, 4.5)).toBe('nok');
  });

  it('measures the tolerance on the bound itself when the range is one value or one-sided', () => {
    expect(proposeCheckResult(105, 100, 100)).toBe('high_tolerance');
    expect(proposeCheckResult(106, 100, 100)).toBe('nok');
    expect(proposeCheckResult(95, 100, 100)).toBe('low_tolerance');
    expect(proposeCheckResult(21, null, 20)).toBe('high_tolerance');
    expect(proposeCheckResult(-5, null, 20)).toBe('ok');
    expect(proposeCheckResult(9.5, 10, null)).toBe('low_tolerance');
    expect(proposeCheckResult(1e6, 10, null)).toBe('ok');
    expect(proposeCheckResult(0.1, null, 0)).toBe('nok');
    // No bound: nothing to compare with.
    expect(proposeCheckResult(3, null, null)).toBeNull();
  });
});

describe('the order measure form', () => {
  it('reads French numbers and refuses bad ones and a maximum under the minimum', () => {
    expect(orderMeasureSchema.parse({ name: ' Pression ', minimum: '3,5', maximum: '4,5', measuredValue: '-0,5', checkResult: '' })).toMatchObject({
      name: 'Pression',
      minimum: 3.5,
      maximum: 4.5,
      measuredValue: -0.5,
      checkResult: undefined,
    });
    const bad = orderMeasureSchema.safeParse({ name: '', minimum: '3,5x', measuredValue: 'douze' });
    expect(fieldErrors(bad.error!)).toEqual({ name: 'Champ obligatoire', minimum: 'Nombre invalide', measuredValue: 'Nombre invalide' });
    expect(fieldErrors(orderMeasureSchema.safeParse({ name: 'P', minimum: '5', maximum: '4' }).error!)).toEqual({
      maximum: 'Le maximum doit être supérieur ou égal au minimum',
    });
    expect(fieldErrors(orderMeasureSchema.safeParse({ name: 'P', checkResult: 'perfect' }).error!)).toEqual({ checkResult: 'Résultat inconnu' });
  });
});

const Q = {
  fromDossier: 'mutation($o: uuid!) { insertDossierMeasures(repairOrderId: $o) }',
  remove: 'mutation($id: uuid!) { deleteOrderMeasure(id: $id) }',
  attach: 'mutation($m: uuid!, $f: uuid!, $c: String) { insertOrderMeasureFile(measureId: $m, fileId: $f, comment: $c) }',
  detach: 'mutation($id: uuid!) { deleteOrderMeasureFile(id: $id) }',
  order:
    'query($id: uuid!) { repairOrder(id: $id) { measuresDone modelLocked measures { id gearboxMeasureId name description unit minimum maximum measuredValue checkResult comment files { id fileId name comment } } } }',
  measure: 'query($id: uuid!) { orderMeasure(id: $id) { id name checkResult repairOrder { id number status } files { fileId } } }',
};

describe('a measure page refusal read back', () => {
  it('keeps the message of photos refused because the order was closed meanwhile', () => {
    const form = {
      values: { name: 'Pression' },
      errors: {},
      formError: null,
      fileValues: { comment: '' },
      fileError: null,
      version: '1',
      filled: { name: 'Pression' },
    };
    const page = { closed: true, manage: false, form } as unknown as OrderMeasurePage;
    const message = 'Cet ordre de réparation est clôturé : il ne peut plus être modifié.';
    for (const failure of [
      { ...form, status: 409, photoError: message },
      { ...form, status: 404, photoError: 'Photo introuvable' },
    ])
      expect(refusalNow(failure, page, 'diagnostician')?.photoError).toBe(failure.photoError);
  });
});

describe.each(databaseKinds)('measures and checks of an order on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let userId: string;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
    userId = (await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, 'diagnostic@demo.local')))[0]!.id;
  });
  afterAll(() => t?.close());

  const setUp = async () => {
    n += 1;
    const modelId = await createModel(gql.diagnostician, { model: `Essai mesures ${kind} ${n}`, type: 'automatic', constructorName: 'Aisin', startYear: 2012 });
    const pressure = ok(
      await gql('diagnostician', M.insertGearboxMeasure, {
        m: modelId,
        o: { name: 'Pression de ligne', description: 'Au ralenti, en D', unit: 'bar', minimum: 3.5, maximum: 4.5 },
      }),
    ).insertGearboxMeasure.id;
    ok(await gql('diagnostician', M.insertGearboxMeasure, { m: modelId, o: { name: 'Résistance solénoïde S1', unit: 'Ω', minimum: 10, maximum: 12 } }));
    const orderId = await createOrder(gql.diagnostician, {
      number: `ME-${kind}-${n}`,
      openedOn: '2026-11-03',
      interventionCategory: 'gearbox_only',
      gearboxModelId: modelId,
    });
    return { modelId, pressure, orderId };
  };
  const measuresOf = async (orderId: string) => ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.measures;
  const saveFile = (bucketId: 'measure' | 'documents', name = 'releve.csv') =>
    t.app.services.files.save({ bucketId, userId, file: new File(['temps;pression\n0;3,9\n1;4,1\n'], name, { type: 'text/csv' }) });

  it('asks whether measures were taken first, and lets only A and D write', async () => {
    const { orderId } = await setUp();
    expect((await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Pression' } })).errors![0]).toMatchObject({
      message: "Indiquez d'abord que des mesures ont été prises.",
      extensions: { code: 'conflict' },
    });
    expect((await gql('diagnostician', Q.fromDossier, { o: orderId })).errors![0]!.message).toBe("Indiquez d'abord que des mesures ont été prises.");
    for (const role of ['commercial', 'mechanic'] as const) {
      expect((await gql(role, M.setMeasuresDone, { o: orderId, d: true })).errors![0]!.extensions.code).toBe('forbidden');
      expect((await gql(role, M.insertOrderMeasure, { o: orderId, m: { name: 'Pression' } })).errors![0]!.extensions.code).toBe('forbidden');
    }
    expect(ok(await gql('app_admin', M.setMeasuresDone, { o: orderId, d: true })).setMeasuresDone).toEqual({ discarded: 0, files: 0 });
    const id = ok(
      await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Température huile', unit: '°C', measuredValue: -4 } }),
    ).insertOrderMeasure;
    for (const role of ['commercial', 'mechanic'] as const) {
      expect((await gql(role, M.updateOrderMeasure, { id, m: { name: 'X' } })).errors![0]!.extensions.code).toBe('forbidden');
      expect((await gql(role, Q.remove, { id })).errors![0]!.extensions.code).toBe('forbidden');
    }
    const order = ok(await gql('commercial', Q.order, { id: orderId })).repairOrder;
    expect(order).toMatchObject({ measuresDone: true, modelLocked: true });
    expect(order.measures).toEqual([
      {
        id,
        gearboxMeasureId: null,
        name: 'Température huile',
        description: '',
        unit: '°C',
        minimum: null,
        maximum: null,
        measuredValue: -4,
        checkResult: null,
        comment: '',
        files: [],
      },
    ]);
    expect(ok(await gql('mechanic', Q.measure, { id })).orderMeasure).toMatchObject({
      id,
      name: 'Température huile',
      repairOrder: { id: orderId, number: `ME-${kind}-${n}`.toUpperCase(), status: 'IN_PROGRESS' },
    });
  });

  it("copies the dossier's measures once, stores the proposed result unless one is chosen", async () => {
    const { orderId, pressure } = await setUp();
    ok(await gql('diagnostician', M.setMeasuresDone, { o: orderId, d: true }));
    expect(ok(await gql('diagnostician', Q.fromDossier, { o: orderId })).insertDossierMeasures).toBe(2);
    expect(ok(await gql('diagnostician', Q.fromDossier, { o: orderId })).insertDossierMeasures).toBe(0);
    const copied = await measuresOf(orderId);
    expect(copied.map((m: { name: string }) => m.name).sort()).toEqual(['Pression de ligne', 'Résistance solénoïde S1']);
    const line = copied.find((m: { gearboxMeasureId: string }) => m.gearboxMeasureId === pressure);
    expect(line).toMatchObject({ description: 'Au ralenti, en D', unit: 'bar', minimum: 3.5, maximum: 4.5, measuredValue: null, checkResult: null });

    const object = { name: line.name, description: line.description, unit: line.unit, minimum: 3.5, maximum: 4.5 };
    const resultFor = async (m: object) => {
      ok(await gql('diagnostician', M.updateOrderMeasure, { id: line.id, m: { ...object, ...m } }));
      return (await measuresOf(orderId)).find((x: { id: string }) => x.id === line.id);
    };
    expect(await resultFor({ measuredValue: 4.1 })).toMatchObject({ measuredValue: 4.1, checkResult: 'ok', gearboxMeasureId: pressure });
    expect((await resultFor({ measuredValue: 4.55 })).checkResult).toBe('high_tolerance');
    expect((await resultFor({ measuredValue: 3.2 })).checkResult).toBe('nok');
    expect(await resultFor({ measuredValue: 3.2, checkResult: 'not_mesurable', comment: 'Capteur débranché' })).toMatchObject({
      checkResult: 'not_mesurable',
      comment: 'Capteur débranché',
    });
    // A dossier measure added later comes alone.
    ok(
      await gql('diagnostician', M.insertGearboxMeasure, {
        m: (await t.app.domain.repairOrders.get(SOMEONE, orderId))!.model.id,
        o: { name: 'Régime de calage', unit: 'tr/min', minimum: 2200, maximum: 2600 },
      }),
    );
    expect(ok(await gql('diagnostician', Q.fromDossier, { o: orderId })).insertDossierMeasures).toBe(1);
    // A measure of another model's dossier is not this order's.
    const other = await setUp();
    expect(
      (await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Pression', gearboxMeasureId: other.pressure } })).errors![0]!.extensions
        .fields,
    ).toEqual({ 'object.gearboxMeasureId': 'Mesure inconnue du dossier du modèle' });
  });

  it('refuses bad numbers and a maximum under the minimum, writing nothing', async () => {
    const { orderId } = await setUp();
    ok(await gql('diagnostician', M.setMeasuresDone, { o: orderId, d: true }));
    const id = ok(
      await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Pression', minimum: 3.5, maximum: 4.5, measuredValue: 4 } }),
    ).insertOrderMeasure;
    expect((await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Pression', minimum: -1 } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.minimum': 'Nombre invalide' },
    });
    expect((await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Pression', minimum: 5, maximum: 4 } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.maximum': 'Le maximum doit être supérieur ou égal au minimum' },
    });
    expect((await gql('diagnostician', M.updateOrderMeasure, { id, m: { name: '  ', minimum: 5, maximum: 4 } })).errors![0]!.extensions.fields).toEqual({
      'object.name': 'Champ obligatoire',
      'object.maximum': 'Le maximum doit être supérieur ou égal au minimum',
    });
    // A Float GraphQL accepts, out of the measured value's own range (|value| < 10⁹): the rule refuses it.
    expect((await gql('diagnostician', M.updateOrderMeasure, { id, m: { name: 'Pression', measuredValue: 1e9 } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.measuredValue': 'Nombre invalide' },
    });
    expect((await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Pression', measuredValue: -1e9 } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.measuredValue': 'Nombre invalide' },
    });
    expect(await measuresOf(orderId)).toEqual([
      expect.objectContaining({ id, name: 'Pression', minimum: 3.5, maximum: 4.5, measuredValue: 4, checkResult: 'ok' }),
    ]);
  });

  it('keeps a measure\'s files, then discards measures and files together when the answer becomes "no"', async () => {
    const { orderId } = await setUp();
    ok(await gql('diagnostician', M.setMeasuresDone, { o: orderId, d: true }));
    ok(await gql('diagnostician', Q.fromDossier, { o: orderId }));
    const [first, second] = await measuresOf(orderId);
    // Measure files: PNG, JPG, PDF, TXT, XLSX, CSV only (SPEC §5).
    await expect(saveFile('measure', 'releve.docx')).rejects.toThrow('Format non supporté');
    const misplaced = await saveFile('documents');
    expect((await gql('diagnostician', Q.attach, { m: first.id, f: misplaced.id })).errors![0]!.extensions.fields).toEqual({ fileId: 'Format non supporté' });
    const kept = await saveFile('measure');
    const gone = await saveFile('measure', 'second.csv');
    const link = ok(await gql('diagnostician', Q.attach, { m: first.id, f: kept.id, c: 'Relevé au ralenti' })).insertOrderMeasureFile;
    expect((await gql('mechanic', Q.attach, { m: first.id, f: gone.id })).errors![0]!.extensions.code).toBe('forbidden');
    ok(await gql('diagnostician', Q.attach, { m: second.id, f: gone.id }));
    expect((await gql('diagnostician', Q.attach, { m: second.id, f: gone.id })).errors![0]!.message).toBe('Ce fichier est déjà joint');
    expect((await measuresOf(orderId)).find((m: { id: string }) => m.id === first.id).files).toEqual([
      { id: link, fileId: kept.id, name: 'releve.csv', comment: 'Relevé au ralenti' },
    ]);

    // Deleting a file takes its bytes; deleting a measure takes its files.
    const extra = await saveFile('measure', 'extra.csv');
    const extraLink = ok(await gql('diagnostician', Q.attach, { m: first.id, f: extra.id })).insertOrderMeasureFile;
    ok(await gql('diagnostician', Q.detach, { id: extraLink }));
    expect(await t.app.services.files.blobs.size(extra.id)).toBeNull();
    ok(await gql('diagnostician', Q.remove, { id: second.id }));
    expect(await t.database.db.select().from(files).where(eq(files.id, gone.id))).toEqual([]);
    expect(await t.app.services.files.blobs.size(gone.id)).toBeNull();

    // One transaction: when it fails half-way, the measures and their files are all still there.
    const failing = createOrderMeasuresService({
      db: new Proxy(t.database.db, {
        get: (target, key) =>
          key === 'transaction'
            ? (fn: (tx: unknown) => Promise<unknown>) =>
                target.transaction((tx) =>
                  fn(
                    new Proxy(tx, {
                      get: (inner, k) =>
                        k === 'update'
                          ? () => {
                              throw new Error('panne au milieu');
                            }
                          : Reflect.get(inner, k, inner),
                    }),
                  ),
                )
            : Reflect.get(target, key, target),
      }),
      files: t.app.services.files,
    });
    await expect(failing.setMeasuresDone(SOMEONE, orderId, false)).rejects.toThrow('panne au milieu');
    expect(await measuresOf(orderId)).toHaveLength(1);
    expect(await t.database.db.select({ id: files.id }).from(files).where(eq(files.id, kept.id))).toHaveLength(1);
    expect(await t.app.services.files.blobs.size(kept.id)).not.toBeNull();

    expect(ok(await gql('diagnostician', M.setMeasuresDone, { o: orderId, d: false })).setMeasuresDone).toEqual({ discarded: 1, files: 1 });
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder).toMatchObject({ measuresDone: false, measures: [] });
    expect(
      await t.database.db
        .select()
        .from(files)
        .where(inArray(files.id, [kept.id, gone.id])),
    ).toEqual([]);
    expect(await t.app.services.files.blobs.size(kept.id)).toBeNull();
    // A file of another bucket was never linked: it stays.
    expect(await t.database.db.select({ id: files.id }).from(files).where(eq(files.id, misplaced.id))).toHaveLength(1);
    expect((await gql('diagnostician', M.insertOrderMeasure, { o: orderId, m: { name: 'Pression' } })).errors![0]!.message).toBe(
      "Indiquez d'abord que des mesures ont été prises.",
    );
  });

  it('refuses every change on a closed order', async () => {
    const { orderId } = await setUp();
    ok(await gql('diagnostician', M.setMeasuresDone, { o: orderId, d: true }));
    ok(await gql('diagnostician', Q.fromDossier, { o: orderId }));
    const [measure] = await measuresOf(orderId);
    const file = await saveFile('measure');
    const link = ok(await gql('diagnostician', Q.attach, { m: measure.id, f: file.id })).insertOrderMeasureFile;
    // Closing belongs to the procedure screen: the order is closed in the database here.
    await t.database.db.update(repairOrders).set({ status: 'CLOSED', closedOn: '2026-11-10' }).where(eq(repairOrders.id, orderId));
    const closed = 'Cet ordre de réparation est clôturé : il ne peut plus être modifié.';
    const other = await saveFile('measure', 'autre.csv');
    for (const [query, variables] of [
      [M.setMeasuresDone, { o: orderId, d: false }],
      [M.setMeasuresDone, { o: orderId, d: true }],
      [M.insertOrderMeasure, { o: orderId, m: { name: 'Pression' } }],
      [Q.fromDossier, { o: orderId }],
      [M.updateOrderMeasure, { id: measure.id, m: { name: measure.name, measuredValue: 1 } }],
      [Q.remove, { id: measure.id }],
      [Q.attach, { m: measure.id, f: other.id }],
      [Q.detach, { id: link }],
    ] as const) {
      expect((await gql('app_admin', query, variables)).errors![0]).toMatchObject({ message: closed, extensions: { code: 'conflict' } });
    }
    expect(await t.database.db.select({ id: orderMeasures.id }).from(orderMeasures).where(eq(orderMeasures.orderId, orderId))).toHaveLength(2);
    expect((await measuresOf(orderId)).find((m: { id: string }) => m.id === measure.id)).toMatchObject({ measuredValue: null, files: [{ id: link }] });
  });
});
