// The fault code reports of a repair order through the API: the "can read fault codes" answer,
// codes from the model's dossier or new ones (which join the dossier), their appearance
// conditions, answering "no" discarding them, the model then locked, and who may write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { graphqlAs, M, ok, signInAll, createModel, createOrder } from './kit/index.ts';

const Q = {
  updateCode: 'mutation($id: uuid!, $c: order_fault_codes_input!) { updateOrderFaultCode(id: $id, object: $c) }',
  deleteCode: 'mutation($id: uuid!) { deleteOrderFaultCode(id: $id) }',
  order:
    'query($id: uuid!) { repairOrder(id: $id) { canReadFaultCodes modelLocked faultCodes { id errorCode { code description } temporality acceleratorLoad bvaMode gear action otherCondition comment } } }',
  dossier: 'query($id: uuid!) { gearboxModel(id: $id) { errorCodes { id code description } } }',
};

describe.each(databaseKinds)('fault code reports on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  const setUp = async () => {
    n += 1;
    const modelId = await createModel(gql.diagnostician, { model: `Essai relevé ${kind} ${n}`, type: 'automatic', constructorName: 'ZF', startYear: 2010 });
    const other = await createModel(gql.diagnostician, { model: `Essai relevé bis ${kind} ${n}`, type: 'automatic', constructorName: 'ZF', startYear: 2010 });
    ok(await gql('diagnostician', M.insertErrorCode, { m: modelId, o: { code: 'P0730', description: 'Rapport engagé incorrect' } }));
    const order = { number: `FC-${kind}-${n}`, openedOn: '2026-11-02', interventionCategory: 'complete_car' as const, gearboxModelId: modelId };
    const orderId = await createOrder(gql.diagnostician, order);
    return { modelId, other, orderId, order };
  };

  it('records codes of the dossier and new ones with their conditions, A and D only', async () => {
    const { modelId, orderId } = await setUp();
    // Nothing is recorded before the gearbox is said to allow reading.
    expect((await gql('diagnostician', M.insertOrderFaultCode, { o: orderId, c: { code: 'P0730', temporality: 'during' } })).errors![0]).toMatchObject({
      message: "Indiquez d'abord que la boîte permet la lecture des codes défaut.",
      extensions: { code: 'conflict' },
    });
    for (const role of ['commercial', 'mechanic'] as const)
      expect((await gql(role, M.setFaultCodeReading, { o: orderId, c: true })).errors![0]!.extensions.code).toBe('forbidden');
    ok(await gql('diagnostician', M.setFaultCodeReading, { o: orderId, c: true }));
    const conditions = {
      temporality: 'during',
      acceleratorLoad: 'Pleine charge',
      bvaMode: 'D',
      gear: '3',
      action: 'En accélération franche',
      otherCondition: 'Moteur chaud (plus de 80 °C)',
      comment: 'Apparaît après 20 km',
    };
    // A code needs the conditions it appeared in: at least one (SPEC §5), said with every other problem.
    expect(
      (await gql('diagnostician', M.insertOrderFaultCode, { o: orderId, c: { code: 'P0730', comment: 'Sans condition' } })).errors![0]!.extensions,
    ).toEqual({
      code: 'validation',
      fields: { 'object.conditions': "Indiquez au moins une condition d'apparition" },
    });
    // The conditions are the base's (SPEC §8, decision 043): a value it does not hold is refused, field by field.
    const unknown = 'Cet item ne fait pas partie de la base de donnée';
    const refusal = async (c: object) =>
      (await gql('diagnostician', M.insertOrderFaultCode, { o: orderId, c: { code: 'P0730', ...c } })).errors?.[0]?.extensions;
    expect(await refusal({ acceleratorLoad: 'Charge lunaire', bvaMode: 'Z', gear: '12' })).toEqual({
      code: 'validation',
      fields: { 'object.acceleratorLoad': unknown, 'object.bvaMode': unknown, 'object.gear': unknown },
    });
    expect(await refusal({ action: 'En accélération', otherCondition: 'Huile à 95 °C' })).toEqual({
      code: 'validation',
      fields: { 'object.action': unknown, 'object.otherCondition': unknown },
    });
    // The lists' and the base's made-up values of one save, all at once (decision 045).
    expect(await refusal({ gear: '12', action: 'En accélération', otherCondition: 'Huile à 95 °C' })).toEqual({
      code: 'validation',
      fields: { 'object.gear': unknown, 'object.action': unknown, 'object.otherCondition': unknown },
    });
    // Any case of the base's names and of the lists' values; shown as the base writes them.
    const first = ok(
      await gql('diagnostician', M.insertOrderFaultCode, {
        o: orderId,
        c: { code: 'p0730', ...conditions, acceleratorLoad: 'pleine CHARGE', action: 'EN ACCÉLÉRATION FRANCHE' },
      }),
    ).insertOrderFaultCode;
    // A condition an order names stays in the base: «Cet item est utilisé».
    const [phase] = ok(await gql('diagnostician', '{ baseItems(kind: condition, search: "En accélération franche") { id } }')).baseItems;
    expect((await gql('diagnostician', M.deleteBaseItem, { id: phase.id })).errors![0]).toMatchObject({
      message: 'Cet item est utilisé',
      extensions: { code: 'conflict', reason: 'item-in-use' },
    });
    // A code the dossier does not know needs its description, then joins the dossier.
    expect((await gql('app_admin', M.insertOrderFaultCode, { o: orderId, c: { code: 'P17BF', temporality: 'pre' } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.description': 'Décrivez ce code : le dossier du modèle ne le connaît pas encore' },
    });
    ok(await gql('app_admin', M.insertOrderFaultCode, { o: orderId, c: { code: 'P17BF', description: 'Embrayage K1 : patinage', temporality: 'pre' } }));
    expect((await gql('diagnostician', M.insertOrderFaultCode, { o: orderId, c: { code: 'P0730', temporality: 'pre' } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.code': 'Ce code est déjà relevé sur cet OR' },
    });
    expect((await gql('commercial', M.insertOrderFaultCode, { o: orderId, c: { code: 'P0730' } })).errors![0]!.extensions.code).toBe('forbidden');
    // A code is letters, digits and dashes, 20 at most (the dossier's rule): the input is otherwise
    // valid, so the refusal is the code's, on its field, on a new read and on a change alike.
    const badCode = { code: 'P07 3', description: 'Espace dans le code', temporality: 'pre' };
    expect(await refusal(badCode)).toEqual({ code: 'validation', fields: { 'object.code': 'Code invalide' } });
    expect(await refusal({ ...badCode, code: `P${'0'.repeat(20)}` })).toEqual({ code: 'validation', fields: { 'object.code': '20 caractères au plus' } });
    expect((await gql('diagnostician', Q.updateCode, { id: first, c: badCode })).errors?.[0]?.extensions).toEqual({
      code: 'validation',
      fields: { 'object.code': 'Code invalide' },
    });

    const order = ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder;
    expect(order.canReadFaultCodes).toBe(true);
    expect(order.modelLocked).toBe(true);
    expect(order.faultCodes).toEqual([
      { id: first, errorCode: { code: 'P0730', description: 'Rapport engagé incorrect' }, ...conditions },
      {
        id: expect.any(String),
        errorCode: { code: 'P17BF', description: 'Embrayage K1 : patinage' },
        temporality: 'pre',
        acceleratorLoad: '',
        bvaMode: '',
        gear: '',
        action: '',
        otherCondition: '',
        comment: '',
      },
    ]);
    const dossier = ok(await gql('mechanic', Q.dossier, { id: modelId })).gearboxModel.errorCodes;
    expect(dossier.map((c: { code: string }) => c.code)).toEqual(['P0730', 'P17BF']);
    // A code an order carries stays in the dossier.
    expect((await gql('diagnostician', M.deleteErrorCode, { id: dossier[0].id })).errors![0]).toMatchObject({ message: 'Code utilisé' });

    ok(await gql('diagnostician', Q.updateCode, { id: first, c: { code: 'P0730', temporality: 'post', comment: 'Revu' } }));
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.faultCodes[0]).toMatchObject({
      temporality: 'post',
      acceleratorLoad: '',
      comment: 'Revu',
    });
    ok(await gql('diagnostician', Q.deleteCode, { id: first }));
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.faultCodes.map((c: { errorCode: { code: string } }) => c.errorCode.code)).toEqual([
      'P17BF',
    ]);
  });

  it('discards the codes when the answer becomes "no", and keeps the model from changing', async () => {
    const { orderId, order, other } = await setUp();
    ok(await gql('diagnostician', M.setFaultCodeReading, { o: orderId, c: true }));
    ok(await gql('diagnostician', M.insertOrderFaultCode, { o: orderId, c: { code: 'P0730', temporality: 'during' } }));
    expect(ok(await gql('diagnostician', M.setFaultCodeReading, { o: orderId, c: false })).setFaultCodeReading).toEqual({ discarded: 1 });
    const after = ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder;
    expect(after).toMatchObject({ canReadFaultCodes: false, modelLocked: true, faultCodes: [] });
    expect((await gql('diagnostician', M.updateRepairOrder, { id: orderId, o: { ...order, gearboxModelId: other } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.gearboxModelId': 'Le modèle de boîte ne peut plus changer : le diagnostic a commencé.' },
    });
  });
});
