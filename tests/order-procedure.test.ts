// The repair procedure on the shop floor through the API: the procedure as validated (the
// dossier changing afterwards does not move it), checkpoints answered by A, D and M (a stale
// answer refused, a value that is not a number refused), closing refused while a checkpoint is
// open and writing nothing, a closed order read-only, an admin's reopening recorded, and the
// checkpoints live for a second terminal.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import {
  chooseRepair,
  createModel,
  createOrder,
  createOutage,
  createProcedure,
  type DemoRole,
  finishDiagnostic,
  graphqlAs,
  M,
  ok,
  signInAll,
} from './kit/index.ts';

const Q = {
  order:
    'query($id: uuid!) { repairOrder(id: $id) { status closedOn procedures { name steps checkpoints { id name checkResult measuredValue comment answeredByName version } } events { kind byName comment } } }',
};

describe.each(databaseKinds)('the repair procedure on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let tokens: Record<DemoRole, string>;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(kind);
    tokens = await signInAll(t);
    gql = graphqlAs(t, tokens);
  });
  afterAll(() => t?.close());

  /** An order whose diagnostic is validated: one procedure with two checkpoints. */
  async function validatedOrder() {
    n += 1;
    const modelId = await createModel(gql.diagnostician, {
      model: `Essai atelier ${kind} ${n}`,
      type: 'automatic',
      constructorName: 'Aisin Warner',
      startYear: 2011,
    });
    const outageId = await createOutage(gql.diagnostician, modelId);
    const procedure = {
      name: 'Remplacement mécatronique',
      steps: ['Vidanger', 'Déposer', 'Reposer'],
      checkpoints: [{ name: 'Pression de ligne' }, { name: 'Essai routier' }],
    };
    const procedureId = await createProcedure(gql.diagnostician, modelId, procedure);
    const orderId = await createOrder(gql.diagnostician, {
      number: `ATL-${kind}-${n}`,
      openedOn: '2026-11-10',
      interventionCategory: 'complete_car',
      gearboxModelId: modelId,
    });
    await chooseRepair(gql.diagnostician, orderId, { outageId, procedureId });
    // Both things missing are said at once (walk31 F10).
    expect((await gql('diagnostician', M.validateDiagnostic, { o: orderId })).errors![0]!.message).toBe(
      "Indiquez d'abord si la boîte permet la lecture des codes défaut. Décrivez au moins un symptôme et ses conditions d'apparition avant de valider.",
    );
    await finishDiagnostic(gql.diagnostician, orderId);
    return { orderId, procedureId, procedure };
  }
  const checkpointsOf = async (orderId: string) =>
    ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder.procedures[0].checkpoints as {
      id: string;
      name: string;
      checkResult: string | null;
      version: number;
    }[];

  it('keeps the procedure as validated, lets A, D and M answer, refuses stale answers and bad values', async () => {
    const { orderId, procedureId, procedure } = await validatedOrder();
    // The dossier's procedure changes afterwards: the order keeps what was validated.
    ok(
      await gql('diagnostician', M.updateRepairProcedure, {
        id: procedureId,
        o: { ...procedure, steps: ['Autre chose'], checkpoints: [{ name: 'Autre contrôle' }] },
      }),
    );
    const seen = ok(await gql('commercial', Q.order, { id: orderId })).repairOrder.procedures[0];
    expect(seen.steps).toEqual(['Vidanger', 'Déposer', 'Reposer']);
    expect(seen.checkpoints.map((c: { name: string }) => c.name)).toEqual(['Pression de ligne', 'Essai routier']);

    const [first, second] = await checkpointsOf(orderId);
    if (!first || !second) throw new Error('two checkpoints expected');
    expect((await gql('commercial', M.answerOrderCheckpoint, { id: first.id, v: 0, o: { checkResult: 'ok' } })).errors![0]!.extensions.code).toBe('forbidden');
    expect(
      (await gql('mechanic', M.answerOrderCheckpoint, { id: first.id, v: 0, o: { checkResult: 'ok', measuredValue: '4,2 bar' } })).errors![0]!.extensions,
    ).toEqual({
      code: 'validation',
      fields: { 'object.measuredValue': 'Nombre invalide' },
    });
    const saved = ok(
      await gql('mechanic', M.answerOrderCheckpoint, { id: first.id, v: 0, o: { checkResult: 'ok', measuredValue: '4,2', comment: 'Au ralenti' } }),
    ).answerOrderCheckpoint;
    expect(saved).toEqual({ checkResult: 'ok', measuredValue: 4.2, comment: 'Au ralenti', answeredByName: expect.any(String), version: 1 });
    // A second terminal still holding version 0 is refused, and the first answer stands.
    const stale = await gql('diagnostician', M.answerOrderCheckpoint, { id: first.id, v: 0, o: { checkResult: 'nok' } });
    expect(stale.errors![0]).toMatchObject({
      message: 'Un collègue vient de renseigner ce point de contrôle : sa réponse est affichée, vérifiez-la avant de la remplacer.',
      extensions: { code: 'conflict' },
    });
    expect((await checkpointsOf(orderId))[0]!.checkResult).toBe('ok');

    // Closing with a checkpoint open is refused, and nothing is written.
    expect((await gql('mechanic', M.closeRepairOrder, { id: orderId, c: 'Fini' })).errors![0]!.message).toBe(
      'Tous les points de contrôle doivent être renseignés avant la clôture (1 restant).',
    );
    expect(ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder).toMatchObject({ status: 'IN_PROGRESS', closedOn: null, events: [] });
    // Once answers exist, the diagnostic cannot be reopened underneath the mechanic.
    expect((await gql('diagnostician', M.reopenDiagnostic, { o: orderId })).errors![0]!.message).toBe(
      'Des points de contrôle sont déjà renseignés : le diagnostic ne peut plus être rouvert.',
    );

    ok(await gql('app_admin', M.answerOrderCheckpoint, { id: second.id, v: second.version, o: { checkResult: 'high_tolerance', measuredValue: '-3.5' } }));
    expect((await gql('commercial', M.closeRepairOrder, { id: orderId })).errors![0]!.extensions.code).toBe('forbidden');
    ok(await gql('mechanic', M.closeRepairOrder, { id: orderId, c: 'Essai routier concluant' }));
    const closed = ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder;
    expect(closed.status).toBe('CLOSED');
    expect(closed.closedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(closed.events).toEqual([{ kind: 'closed', byName: expect.any(String), comment: 'Essai routier concluant' }]);

    // Closed: read-only for everyone, even an admin, until an admin reopens it.
    expect((await gql('app_admin', M.answerOrderCheckpoint, { id: first.id, v: 1, o: { checkResult: 'nok' } })).errors![0]!.message).toBe(
      'Cet ordre de réparation est clôturé : il ne peut plus être modifié.',
    );
    expect((await gql('mechanic', M.closeRepairOrder, { id: orderId })).errors![0]!.extensions.code).toBe('conflict');
    for (const role of ['diagnostician', 'mechanic', 'commercial'] as const)
      expect((await gql(role, M.reopenRepairOrder, { id: orderId, c: 'Erreur' })).errors![0]!.extensions.code).toBe('forbidden');
    ok(await gql('app_admin', M.reopenRepairOrder, { id: orderId, c: 'Client revenu : bruit à froid' }));
    const reopened = ok(await gql('mechanic', Q.order, { id: orderId })).repairOrder;
    expect(reopened).toMatchObject({ status: 'IN_PROGRESS', closedOn: null });
    expect(reopened.events.map((e: { kind: string; comment: string }) => [e.kind, e.comment])).toEqual([
      ['reopened', 'Client revenu : bruit à froid'],
      ['closed', 'Essai routier concluant'],
    ]);
    expect(
      (await gql('mechanic', M.answerOrderCheckpoint, { id: 'f5c7a2f0-8e7c-4f5e-9d7a-2f1a0c3b4d5e', v: 0, o: { checkResult: 'ok' } })).errors![0]!.extensions
        .code,
    ).toBe('not-found');
  });

  it('saves a value and a comment typed before the result, without answering the checkpoint (decision 039)', async () => {
    const { orderId } = await validatedOrder();
    const [first] = await checkpointsOf(orderId);
    if (!first) throw new Error('a checkpoint expected');
    const typed = ok(
      await gql('mechanic', M.answerOrderCheckpoint, { id: first.id, v: 0, o: { checkResult: null, measuredValue: '4,6', comment: 'À chaud' } }),
    );
    expect(typed.answerOrderCheckpoint).toMatchObject({ checkResult: null, measuredValue: 4.6, comment: 'À chaud', version: 1 });
    // Still open: closing is refused.
    expect((await gql('mechanic', M.closeRepairOrder, { id: orderId, c: '' })).errors![0]!.extensions.code).toBe('conflict');
    ok(await gql('mechanic', M.answerOrderCheckpoint, { id: first.id, v: 1, o: { checkResult: 'nok', measuredValue: '4,6', comment: 'À chaud' } }));
    // A field left afterwards keeps the result chosen.
    const again = ok(
      await gql('mechanic', M.answerOrderCheckpoint, { id: first.id, v: 2, o: { checkResult: null, measuredValue: '4,7', comment: 'À chaud' } }),
    );
    expect(again.answerOrderCheckpoint).toMatchObject({ checkResult: 'nok', measuredValue: 4.7, version: 3 });
  });

  it('sends every answer to whoever watches the order', async () => {
    const { orderId } = await validatedOrder();
    const [first] = await checkpointsOf(orderId);
    const client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { headers: { Authorization: `Bearer ${tokens.mechanic}` } },
      lazy: true,
    });
    const received: { checkResult: string | null }[][] = [];
    const done = new Promise<void>((resolve, reject) => {
      const stop = client.subscribe<{ orderCheckpoints: { checkResult: string | null }[] }>(
        { query: 'subscription($o: uuid!) { orderCheckpoints(repairOrderId: $o) { checkResult } }', variables: { o: orderId } },
        {
          next: async (result) => {
            received.push(result.data!.orderCheckpoints);
            if (received.length === 1) ok(await gql('diagnostician', M.answerOrderCheckpoint, { id: first!.id, v: 0, o: { checkResult: 'nok' } }));
            if (received.length === 2) {
              stop();
              resolve();
            }
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    await done;
    await client.dispose();
    expect(received.map((rows) => rows.map((r) => r.checkResult))).toEqual([
      [null, null],
      ['nok', null],
    ]);
  });

  it('tells whoever watches the order of its closing and its reopening (issue 28)', async () => {
    const { orderId } = await validatedOrder();
    for (const point of await checkpointsOf(orderId))
      ok(await gql('mechanic', M.answerOrderCheckpoint, { id: point.id, v: point.version, o: { checkResult: 'ok' } }));
    const client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { headers: { Authorization: `Bearer ${tokens.mechanic}` } },
      lazy: true,
    });
    const received: (string | null)[] = [];
    await new Promise<void>((resolve, reject) => {
      const stop = client.subscribe<{ repairOrderStatus: string | null }>(
        { query: 'subscription($o: uuid!) { repairOrderStatus(repairOrderId: $o) }', variables: { o: orderId } },
        {
          next: async (result) => {
            received.push(result.data!.repairOrderStatus);
            if (received.length === 1) ok(await gql('diagnostician', M.closeRepairOrder, { id: orderId, c: 'Fini' }));
            if (received.length === 2) ok(await gql('app_admin', M.reopenRepairOrder, { id: orderId, c: 'Oubli' }));
            if (received.length === 3) {
              stop();
              resolve();
            }
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    await client.dispose();
    expect(received).toEqual(['IN_PROGRESS', 'CLOSED', 'IN_PROGRESS']);
  });
});
