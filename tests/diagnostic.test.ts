// The diagnostic steps through the API: outage candidates ranked on a fixed history of closed
// orders ("3 OR sur 4 similaires", the dossier's rate when there is none), steps refused when
// skipped, validation giving the procedures to the mechanics, the outages' statistics from the
// orders, the start guide's preference, and who may do what.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyRateText, outageMileage, outageRate } from '#lib/gearboxes/outages.ts';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { createModel, createOrder, createOutage, createProcedure, type GqlResult, graphqlAs, M, ok, signInAll } from './kit/index.ts';

const Q = {
  addProcedure: 'mutation($o: uuid!, $p: uuid!) { addOrderProcedure(repairOrderId: $o, procedureId: $p) }',
  candidates:
    'query($id: uuid!) { repairOrder(id: $id) { diagnosticStep validatedAt modelLocked outageCandidates { outage { id } similarOrders confirmedOrders dossierRate chosen } } }',
  procedures:
    'query($id: uuid!) { repairOrder(id: $id) { diagnosticStep validatedAt chosenOutages { id } procedures { position outageId procedure { id name checkpoints { name } } } } }',
  outages:
    'query($id: uuid!) { gearboxModel(id: $id) { orderCount errorCodes { code orderCount } outages { id orderCount ordersAverageMileage occurrenceRate } } }',
  read: 'query($id: uuid!) { repairOrder(id: $id) { chosenOutages { id } procedures { position name description procedure { id name outageCount checkpoints { name position } } } } }',
  guide: '{ diagnosticGuideHidden }',
  setGuide: 'mutation($h: Boolean!) { setDiagnosticGuideHidden(hidden: $h) }',
};

describe.each(databaseKinds)('diagnostic steps on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  const refusal = (res: GqlResult) => res.errors?.[0]?.message;

  /** A model with three outages (the third with a dossier estimate of 40 %) and a procedure per outage. */
  async function newModel() {
    n += 1;
    const modelId = await createModel(gql.diagnostician, { model: `Essai flux ${kind} ${n}`, type: 'automatic', constructorName: 'ZF', startYear: 2012 });
    const outage = (component: string, outageType: string, occurrenceRate?: number) =>
      createOutage(gql.diagnostician, modelId, { component, outageType, occurrenceRate });
    const outages = [
      await outage('Mécatronique', 'Défaut électrique', 10),
      await outage('Convertisseur de couple', 'Usure', 20),
      await outage('Pompe à huile', 'Usure', 40),
    ];
    const procedures: string[] = [];
    for (const [i, outageId] of outages.entries()) {
      const procedureId = await createProcedure(gql.diagnostician, modelId, {
        name: `Procédure ${i + 1}`,
        steps: ['Vidanger', 'Remplacer'],
        checkpoints: [{ name: `Contrôle ${i + 1}` }],
      });
      ok(await gql('diagnostician', M.setOutageProcedures, { o: outageId, p: [procedureId] }));
      procedures.push(procedureId);
    }
    return { modelId, outages, procedures };
  }

  async function newOrder(modelId: string, codes: string[] = [], mileage?: string) {
    n += 1;
    const orderId = await createOrder(gql.diagnostician, {
      number: `FLX-${kind}-${n}`,
      openedOn: '2026-10-01',
      interventionCategory: 'complete_car',
      gearboxModelId: modelId,
      mileage,
    });
    if (codes.length) {
      ok(await gql('diagnostician', M.setFaultCodeReading, { o: orderId, c: true }));
      for (const code of codes)
        ok(await gql('diagnostician', M.insertOrderFaultCode, { o: orderId, c: { code, description: `Code ${code}`, temporality: 'during' } }));
    }
    return orderId;
  }

  /** A closed order of the history: its codes, its confirmed outage (validated, then closed). */
  async function closedOrder(modelId: string, codes: string[], outageId: string | null, mileage?: string) {
    const orderId = await newOrder(modelId, codes, mileage);
    if (outageId) ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [outageId] }));
    await t.database.db.execute(
      sql`update repair_orders set status = 'CLOSED', closed_on = '2026-10-20', validated_at = case when ${outageId !== null} then now() end where id = ${orderId}`,
    );
    return orderId;
  }

  it('ranks the outages by the closed orders sharing fault codes, with the evidence, else the dossier rate', async () => {
    const { modelId, outages } = await newModel();
    const [o1, o2, o3] = outages as [string, string, string];
    // Before any history: the dossier's estimates, highest first.
    const fresh = await newOrder(modelId, ['P0730']);
    const before = ok(await gql('diagnostician', Q.candidates, { id: fresh })).repairOrder.outageCandidates;
    expect(before.map((c: { outage: { id: string } }) => c.outage.id)).toEqual([o3, o2, o1]);
    expect(before[0]).toMatchObject({ similarOrders: 0, confirmedOrders: 0, dossierRate: 40, chosen: false });

    for (let i = 0; i < 3; i++) await closedOrder(modelId, ['P0730'], o1, '100000_to_150000');
    await closedOrder(modelId, ['P0730'], o2, '150000_to_200000');
    await closedOrder(modelId, ['P0841'], o2);
    await closedOrder(modelId, [], o3);
    await closedOrder(modelId, ['P0730'], null); // closed without a confirmed outage: not evidence

    const ranked = ok(await gql('commercial', Q.candidates, { id: fresh })).repairOrder.outageCandidates;
    expect(
      ranked.map((c: { outage: { id: string }; confirmedOrders: number; similarOrders: number }) => [c.outage.id, c.confirmedOrders, c.similarOrders]),
    ).toEqual([
      [o1, 3, 4],
      [o2, 1, 4],
      [o3, 0, 4],
    ]);
    // An order with neither codes nor symptoms has nothing to compare: no closed order is
    // similar to it, and the dossier's rates rank the outages.
    const bare = await newOrder(modelId);
    const all = ok(await gql('diagnostician', Q.candidates, { id: bare })).repairOrder.outageCandidates;
    expect(
      all.map((c: { outage: { id: string }; confirmedOrders: number; similarOrders: number }) => [c.outage.id, c.confirmedOrders, c.similarOrders]),
    ).toEqual([
      [o1, 0, 0],
      [o2, 0, 0],
      [o3, 0, 0],
    ]);

    // One history for every figure (decision 018): the model's 7 closed orders, not the 2 in progress.
    const stats = ok(await gql('mechanic', Q.outages, { id: modelId })).gearboxModel;
    const statsOf = (id: string) => stats.outages.find((o: { id: string }) => o.id === id);
    expect(stats.orderCount).toBe(7);
    expect(statsOf(o1)).toMatchObject({ orderCount: 3, ordersAverageMileage: 125000, occurrenceRate: 10 });
    expect(statsOf(o2)).toMatchObject({ orderCount: 2, ordersAverageMileage: 175000 });
    expect(statsOf(o3)).toMatchObject({ orderCount: 1, ordersAverageMileage: null });
    // P0730 was read on 5 closed orders (and on the open one, which does not count); P0841 on 1.
    expect(stats.errorCodes).toEqual([
      { code: 'P0730', orderCount: 5 },
      { code: 'P0841', orderCount: 1 },
    ]);
    // The same figures, as the dossier, the outage page and the order's technical tab print them.
    expect(historyRateText(5, stats.orderCount)).toBe('71 % (5 / 7 OR)');
    expect(
      outageRate(
        { ...statsOf(o1), component: { id: '', name: '' }, outageType: { id: '', name: '' }, description: '', averageMileage: null },
        stats.orderCount,
      ),
    ).toBe('43 % (3 / 7 OR)');
    expect(outageMileage({ ...statsOf(o3), component: { id: '', name: '' }, outageType: { id: '', name: '' }, description: '', averageMileage: 90000 })).toBe(
      '90\u202f000 km (estimation du dossier)',
    );
    // And the ranking's rate is that rate.
    expect(all.map((c: { dossierRate: number }) => c.dossierRate)).toEqual([43, 29, 14]);
  });

  it('counts a closed order sharing only a symptom as similar, and says which outages the order chose', async () => {
    const { modelId, outages } = await newModel();
    const [o1, o2, o3] = outages as [string, string, string];
    const slipping = { symptom: 'Patinage', action: 'En accélération franche' };
    const fresh = await newOrder(modelId);
    ok(await gql('diagnostician', M.insertOrderSymptom, { o: fresh, s: slipping }));
    const alike = await newOrder(modelId);
    ok(await gql('diagnostician', M.insertOrderSymptom, { o: alike, s: slipping }));
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: alike, ids: [o2] }));
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED', closed_on = '2026-10-20', validated_at = now() where id = ${alike}`);
    await closedOrder(modelId, ['P0841'], o3); // shares neither a code nor a symptom
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: fresh, ids: [o1] }));

    const ranked = ok(await gql('diagnostician', Q.candidates, { id: fresh })).repairOrder.outageCandidates;
    expect(
      ranked.map((c: { outage: { id: string }; confirmedOrders: number; similarOrders: number; chosen: boolean }) => [
        c.outage.id,
        c.confirmedOrders,
        c.similarOrders,
        c.chosen,
      ]),
    ).toEqual([
      [o2, 1, 1, false],
      [o3, 0, 1, false],
      [o1, 0, 1, true],
    ]);
  });

  it('counts the closed orders of a model as orders close, reopen, change model and go (decision 075)', async () => {
    const { modelId } = await newModel();
    const other = await newModel();
    const closedCount = async (id: string) => ok(await gql('mechanic', Q.outages, { id })).gearboxModel.orderCount;
    const a = await closedOrder(modelId, [], null);
    const b = await closedOrder(modelId, [], null);
    await newOrder(modelId);
    expect(await closedCount(modelId)).toBe(2);
    await t.database.db.execute(sql`update repair_orders set status = 'IN_PROGRESS', closed_on = null where id = ${a}`);
    expect(await closedCount(modelId)).toBe(1);
    await t.database.db.execute(sql`update repair_orders set gearbox_model_id = ${other.modelId} where id = ${b}`);
    expect([await closedCount(modelId), await closedCount(other.modelId)]).toEqual([0, 1]);
    // Two orders closed by one statement, one of them the reopened one.
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED', closed_on = '2026-10-21' where gearbox_model_id = ${modelId}`);
    expect(await closedCount(modelId)).toBe(2);
    await t.database.db.execute(sql`delete from repair_orders where id = ${b}`);
    expect(await closedCount(other.modelId)).toBe(0);
  });

  it('runs the steps in order, refuses a skipped one, validates for the mechanics; A and D only', async () => {
    const { modelId, outages, procedures } = await newModel();
    const other = await newModel();
    const orderId = await newOrder(modelId, ['P0730']);
    const [o1, o2] = outages as [string, string];
    const [p1, p2, p3] = procedures as [string, string, string];

    // Skipping steps by calling them directly.
    expect(refusal(await gql('diagnostician', M.chooseOrderProcedures, { o: orderId, p: [{ procedureId: p1, outageId: o1 }] }))).toBe(
      "Choisissez d'abord les pannes.",
    );
    expect(refusal(await gql('diagnostician', M.markProceduresVisualised, { o: orderId }))).toBe("Choisissez d'abord les procédures de réparation.");
    expect(refusal(await gql('diagnostician', M.validateDiagnostic, { o: orderId }))).toBe("Visualisez d'abord la procédure.");
    for (const role of ['commercial', 'mechanic'] as const)
      expect((await gql(role, M.chooseOrderOutages, { o: orderId, ids: [o1] })).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [] })).errors![0]!.extensions).toMatchObject({
      code: 'validation',
      fields: { outageIds: 'Choisissez au moins une panne' },
    });
    expect((await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [other.outages[0]] })).errors![0]!.extensions.code).toBe('validation');
    expect(ok(await gql('diagnostician', Q.candidates, { id: orderId })).repairOrder.diagnosticStep).toBe(0);

    ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [o1, o2] }));
    expect(ok(await gql('diagnostician', Q.candidates, { id: orderId })).repairOrder).toMatchObject({ diagnosticStep: 1, modelLocked: true });
    // A procedure of another model, or for an outage not retained, is refused; nothing written.
    expect((await gql('diagnostician', M.chooseOrderProcedures, { o: orderId, p: [{ procedureId: other.procedures[0] }] })).errors![0]!.extensions.code).toBe(
      'validation',
    );
    expect(
      (await gql('diagnostician', M.chooseOrderProcedures, { o: orderId, p: [{ procedureId: p3, outageId: outages[2] }] })).errors![0]!.extensions.code,
    ).toBe('validation');
    expect(ok(await gql('diagnostician', Q.procedures, { id: orderId })).repairOrder.procedures).toEqual([]);

    ok(
      await gql('app_admin', M.chooseOrderProcedures, {
        o: orderId,
        p: [
          { procedureId: p1, outageId: o1 },
          { procedureId: p2, outageId: o2 },
        ],
      }),
    );
    ok(await gql('diagnostician', Q.addProcedure, { o: orderId, p: p3 }));
    ok(await gql('diagnostician', M.markProceduresVisualised, { o: orderId }));
    // Going back to the outages keeps the step reached unless a procedure had to go.
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [o1] }));
    const back = ok(await gql('diagnostician', Q.procedures, { id: orderId })).repairOrder;
    expect(back.diagnosticStep).toBe(1);
    expect(back.procedures.map((p: { procedure: { id: string } }) => p.procedure.id)).toEqual([p1, p3]);
    expect(refusal(await gql('diagnostician', M.validateDiagnostic, { o: orderId }))).toBe("Visualisez d'abord la procédure.");
    ok(await gql('diagnostician', M.chooseOrderProcedures, { o: orderId, p: [{ procedureId: p1, outageId: o1 }, { procedureId: p3 }] }));
    ok(await gql('diagnostician', M.markProceduresVisualised, { o: orderId }));
    // SPEC §5: no validation without a symptom and its conditions.
    expect(refusal(await gql('diagnostician', M.validateDiagnostic, { o: orderId }))).toBe(
      "Décrivez au moins un symptôme et ses conditions d'apparition avant de valider.",
    );
    ok(await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom: 'Patinage', action: 'En accélération franche' } }));
    ok(await gql('diagnostician', M.validateDiagnostic, { o: orderId }));

    // The mechanic reads the validated procedure, in order, with its checkpoints.
    const seen = ok(await gql('mechanic', Q.procedures, { id: orderId })).repairOrder;
    expect(seen.validatedAt).not.toBeNull();
    expect(
      seen.procedures.map((p: { position: number; outageId: string | null; procedure: { name: string; checkpoints: { name: string }[] } }) => [
        p.position,
        p.outageId,
        p.procedure.name,
        p.procedure.checkpoints[0]!.name,
      ]),
    ).toEqual([
      [1, o1, 'Procédure 1', 'Contrôle 1'],
      [2, null, 'Procédure 3', 'Contrôle 3'],
    ]);
    // A validated diagnostic changes only once reopened.
    expect(refusal(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [o2] }))).toBe(
      'Le diagnostic est validé : rouvrez-le pour le modifier.',
    );
    expect((await gql('mechanic', M.reopenDiagnostic, { o: orderId })).errors![0]!.extensions.code).toBe('forbidden');
    ok(await gql('diagnostician', M.reopenDiagnostic, { o: orderId }));
    expect(ok(await gql('diagnostician', Q.procedures, { id: orderId })).repairOrder).toMatchObject({ validatedAt: null, diagnosticStep: 3 });

    // The dossier keeps what an order retained, saying why (SPEC §8).
    expect((await gql('diagnostician', M.deleteOutage, { id: o1 })).errors![0]).toMatchObject({
      message: 'Suppression impossible',
      extensions: { reasons: ['ordres de réparation (1)'] },
    });
    expect((await gql('diagnostician', M.deleteRepairProcedure, { id: p3 })).errors![0]).toMatchObject({
      message: 'Suppression impossible',
      extensions: { reasons: ["pannes qui l'utilisent (1)", 'ordres de réparation (1)'] },
    });

    // A closed order takes no change.
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED' where id = ${orderId}`);
    expect(refusal(await gql('diagnostician', M.validateDiagnostic, { o: orderId }))).toBe(
      'Cet ordre de réparation est clôturé : il ne peut plus être modifié.',
    );
  });

  it('reads the procedures chosen with their dossier and checkpoints in order, the outages as chosen, the validated names once validated', async () => {
    const { modelId, outages, procedures } = await newModel();
    const [o1, , o3] = outages as [string, string, string];
    const [p1, , p3] = procedures as [string, string, string];
    // Two checkpoints each, the second written first: their order is their position, not their age.
    for (const [i, id] of [p1, p3].entries())
      ok(
        await gql('diagnostician', M.updateRepairProcedure, {
          id,
          o: {
            name: `Procédure ${i ? 3 : 1}`,
            description: `Dossier ${i}`,
            steps: ['Vidanger'],
            checkpoints: [{ name: `Premier ${i}` }, { name: `Second ${i}` }],
          },
        }),
      );
    const orderId = await newOrder(modelId, ['P0730']);
    // Chosen last outage first: the order shows them as chosen.
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [o3, o1] }));
    ok(
      await gql('diagnostician', M.chooseOrderProcedures, {
        o: orderId,
        p: [
          { procedureId: p3, outageId: o3 },
          { procedureId: p1, outageId: o1 },
        ],
      }),
    );
    const read = async () => ok(await gql('mechanic', Q.read, { id: orderId })).repairOrder;
    const before = await read();
    expect(before.chosenOutages.map((o: { id: string }) => o.id)).toEqual([o3, o1]);
    expect(before.procedures).toEqual([
      {
        position: 1,
        name: 'Procédure 3',
        description: 'Dossier 1',
        procedure: {
          id: p3,
          name: 'Procédure 3',
          outageCount: 1,
          checkpoints: [
            { name: 'Premier 1', position: 1 },
            { name: 'Second 1', position: 2 },
          ],
        },
      },
      {
        position: 2,
        name: 'Procédure 1',
        description: 'Dossier 0',
        procedure: {
          id: p1,
          name: 'Procédure 1',
          outageCount: 1,
          checkpoints: [
            { name: 'Premier 0', position: 1 },
            { name: 'Second 0', position: 2 },
          ],
        },
      },
    ]);
    // Validated, then renamed in the dossier: the order keeps the name it was validated with.
    ok(await gql('diagnostician', M.markProceduresVisualised, { o: orderId }));
    ok(await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom: 'Patinage', action: 'En accélération franche' } }));
    ok(await gql('diagnostician', M.validateDiagnostic, { o: orderId }));
    ok(
      await gql('diagnostician', M.updateRepairProcedure, {
        id: p3,
        o: { name: 'Procédure 3 revue', description: 'Revue', steps: ['Vidanger'], checkpoints: [{ name: 'Premier 1' }, { name: 'Second 1' }] },
      }),
    );
    expect((await read()).procedures[0]).toMatchObject({ name: 'Procédure 3', description: 'Dossier 1', procedure: { name: 'Procédure 3 revue' } });
  });

  it('keeps the start guide hidden per user', async () => {
    expect(ok(await gql('diagnostician', Q.guide)).diagnosticGuideHidden).toBe(false);
    ok(await gql('diagnostician', Q.setGuide, { h: true }));
    expect(ok(await gql('diagnostician', Q.guide)).diagnosticGuideHidden).toBe(true);
    expect(ok(await gql('app_admin', Q.guide)).diagnosticGuideHidden).toBe(false);
    expect((await gql('mechanic', Q.setGuide, { h: true })).errors![0]!.extensions.code).toBe('forbidden');
    ok(await gql('diagnostician', Q.setGuide, { h: false }));
    expect(ok(await gql('diagnostician', Q.guide)).diagnosticGuideHidden).toBe(false);
  });
});
