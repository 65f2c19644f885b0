// The symptoms of a repair order through the API: a symptom of the base with at least one
// appearance condition, the optional error code taken from the model's dossier, one entry per
// symptom, a closed order left alone, and who may write.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { type GqlResult, graphqlAs, M, ok, signInAll, createModel, createOrder } from './kit/index.ts';

const Q = {
  update: 'mutation($id: uuid!, $s: order_symptoms_input!) { updateOrderSymptom(id: $id, object: $s) }',
  remove: 'mutation($id: uuid!) { deleteOrderSymptom(id: $id) }',
  order:
    'query($id: uuid!) { repairOrder(id: $id) { symptoms { id symptom { name } errorCode { code description } temporality acceleratorLoad bvaMode gear action otherCondition comment } } }',
};

describe.each(databaseKinds)('order symptoms on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  const fieldsOf = (res: GqlResult) => res.errors![0]!.extensions;
  const setUp = async () => {
    n += 1;
    const model = async (name: string) => await createModel(gql.diagnostician, { model: name });
    const modelId = await model(`Essai symptômes ${kind} ${n}`);
    const other = await model(`Essai symptômes bis ${kind} ${n}`);
    ok(await gql('diagnostician', M.insertErrorCode, { m: modelId, o: { code: 'P0730', description: 'Rapport engagé incorrect' } }));
    ok(await gql('diagnostician', M.insertErrorCode, { m: other, o: { code: 'P0841', description: 'Pression hydraulique' } }));
    const names = { slip: `Patinage essai ${kind} ${n}`, jolt: `Claquement essai ${kind} ${n}` };
    for (const name of Object.values(names)) ok(await gql('diagnostician', M.insertBaseItem, { k: 'symptom', n: name }));
    ok(await gql('diagnostician', M.insertBaseItem, { k: 'condition', n: `Condition essai ${kind} ${n}` }));
    const orderId = await createOrder(gql.diagnostician, {
      number: `SY-${kind}-${n}`,
      openedOn: '2026-11-02',
      interventionCategory: 'complete_car',
      gearboxModelId: modelId,
    });
    return { orderId, names };
  };

  it('records symptoms of the base with their conditions and error code, A and D only', async () => {
    const { orderId, names } = await setUp();
    const conditions = {
      temporality: 'during',
      acceleratorLoad: 'Pleine charge',
      bvaMode: 'D',
      gear: '3',
      action: 'En accélération franche',
      otherCondition: `Condition essai ${kind} ${n}`,
      comment: 'Après 20 km',
    };
    for (const role of ['commercial', 'mechanic'] as const)
      expect(fieldsOf(await gql(role, M.insertOrderSymptom, { o: orderId, s: { symptom: names.slip, gear: '2' } })).code).toBe('forbidden');
    // Any case of the base's name; the code by its text, in any case.
    const slip = ok(
      await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom: names.slip.toUpperCase(), errorCode: 'p0730', ...conditions } }),
    ).insertOrderSymptom;
    const jolt = ok(await gql('app_admin', M.insertOrderSymptom, { o: orderId, s: { symptom: names.jolt, bvaMode: 'R' } })).insertOrderSymptom;

    for (const role of ['commercial', 'mechanic'] as const) {
      expect(ok(await gql(role, Q.order, { id: orderId })).repairOrder.symptoms).toEqual([
        {
          id: jolt,
          symptom: { name: names.jolt },
          errorCode: null,
          temporality: null,
          acceleratorLoad: '',
          bvaMode: 'R',
          gear: '',
          action: '',
          otherCondition: '',
          comment: '',
        },
        { id: slip, symptom: { name: names.slip }, errorCode: { code: 'P0730', description: 'Rapport engagé incorrect' }, ...conditions },
      ]);
      expect(fieldsOf(await gql(role, Q.update, { id: slip, s: { symptom: names.slip, gear: '1' } })).code).toBe('forbidden');
      expect(fieldsOf(await gql(role, Q.remove, { id: slip })).code).toBe('forbidden');
    }

    ok(await gql('diagnostician', Q.update, { id: slip, s: { symptom: names.slip, temporality: 'post' } }));
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.symptoms[1]).toMatchObject({
      id: slip,
      errorCode: null,
      temporality: 'post',
      acceleratorLoad: '',
      comment: '',
    });
    ok(await gql('diagnostician', Q.remove, { id: jolt }));
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.symptoms.map((s: { id: string }) => s.id)).toEqual([slip]);
    expect(fieldsOf(await gql('diagnostician', Q.remove, { id: jolt })).code).toBe('not-found');
  });

  it('asks for a symptom of the base, a condition, a code of the model, once per order', async () => {
    const { orderId, names } = await setUp();
    const refusal = async (object: object) => fieldsOf(await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: object }));
    expect(await refusal({ symptom: '', gear: '2' })).toEqual({ code: 'validation', fields: { 'object.symptom': 'Champ obligatoire' } });
    expect(await refusal({ symptom: 'Bruit inventé', gear: '2' })).toEqual({
      code: 'validation',
      fields: { 'object.symptom': 'Cet item ne fait pas partie de la base de donnée' },
    });
    // A condition of the base is not a symptom.
    expect(await refusal({ symptom: `Condition essai ${kind} ${n}`, gear: '2' })).toEqual({
      code: 'validation',
      fields: { 'object.symptom': 'Cet item ne fait pas partie de la base de donnée' },
    });
    // The conditions are the base's (decision 043), as the symptom is.
    expect(await refusal({ symptom: names.slip, acceleratorLoad: 'Charge lunaire' })).toEqual({
      code: 'validation',
      fields: { 'object.acceleratorLoad': 'Cet item ne fait pas partie de la base de donnée' },
    });
    expect(await refusal({ symptom: names.slip, action: names.jolt })).toEqual({
      code: 'validation',
      fields: { 'object.action': 'Cet item ne fait pas partie de la base de donnée' },
    });
    // Every made-up value of one save is refused at once, each on its field (decision 045).
    expect(
      await refusal({
        symptom: 'Bruit inventé',
        errorCode: 'P9999',
        acceleratorLoad: 'Charge lunaire',
        bvaMode: 'Turbo',
        gear: '9',
        action: 'En apesanteur',
        otherCondition: 'Sous la pluie',
      }),
    ).toEqual({
      code: 'validation',
      fields: {
        'object.symptom': 'Cet item ne fait pas partie de la base de donnée',
        'object.errorCode': 'Ce code ne fait pas partie du dossier du modèle',
        'object.acceleratorLoad': 'Cet item ne fait pas partie de la base de donnée',
        'object.bvaMode': 'Cet item ne fait pas partie de la base de donnée',
        'object.gear': 'Cet item ne fait pas partie de la base de donnée',
        'object.action': 'Cet item ne fait pas partie de la base de donnée',
        'object.otherCondition': 'Cet item ne fait pas partie de la base de donnée',
      },
    });
    // The comment alone is no condition; every problem shows at once.
    expect(await refusal({ symptom: '', comment: 'Rien' })).toEqual({
      code: 'validation',
      fields: { 'object.symptom': 'Champ obligatoire', 'object.conditions': "Indiquez au moins une condition d'apparition" },
    });
    // Another model's code, or one the dossier does not know.
    for (const errorCode of ['P0841', 'P9999'])
      expect(await refusal({ symptom: names.slip, errorCode, gear: '2' })).toEqual({
        code: 'validation',
        fields: { 'object.errorCode': 'Ce code ne fait pas partie du dossier du modèle' },
      });
    expect(await refusal({ symptom: names.slip, errorCode: 'P07 30', gear: '2' })).toEqual({
      code: 'validation',
      fields: { 'object.errorCode': 'Code invalide' },
    });

    const slip = ok(await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom: names.slip, gear: '2' } })).insertOrderSymptom;
    const jolt = ok(await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom: names.jolt, gear: '2' } })).insertOrderSymptom;
    const taken = { code: 'validation', fields: { 'object.symptom': 'Ce symptôme est déjà relevé sur cet OR' } };
    expect(await refusal({ symptom: names.slip.toLowerCase(), action: 'Au démarrage' })).toEqual(taken);
    expect(fieldsOf(await gql('diagnostician', Q.update, { id: jolt, s: { symptom: names.slip, gear: '2' } }))).toEqual(taken);
    expect(fieldsOf(await gql('diagnostician', Q.update, { id: slip, s: { symptom: names.slip } })).fields).toEqual({
      'object.conditions': "Indiquez au moins une condition d'apparition",
    });
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.symptoms).toHaveLength(2);
  });

  it('leaves a closed order alone', async () => {
    const { orderId, names } = await setUp();
    const slip = ok(await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom: names.slip, gear: '2' } })).insertOrderSymptom;
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED', closed_on = '2026-11-20' where id = ${orderId}`);
    const closed = { message: 'Cet ordre de réparation est clôturé : il ne peut plus être modifié.', extensions: { code: 'conflict' } };
    expect((await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom: names.jolt, gear: '2' } })).errors![0]).toMatchObject(closed);
    expect((await gql('diagnostician', Q.update, { id: slip, s: { symptom: names.slip, gear: '3' } })).errors![0]).toMatchObject(closed);
    expect((await gql('app_admin', Q.remove, { id: slip })).errors![0]).toMatchObject(closed);
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.symptoms).toMatchObject([{ id: slip, gear: '2' }]);
  });
});
