// The diagnostic steps of a repair order (SPEC §2.7, §4): choose the outages, choose the repair
// procedures to apply, add one if needed, visualise, validate. Each step needs the one before it
// (`diagnostic_step`); the outage candidates are ranked by what closed orders of the same model
// sharing this order's fault codes and symptoms turned out to have.
import { and, asc, count, eq, getTableColumns, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { STEP_REQUIRED } from '#lib/repair-orders/diagnostic-page.ts';
import { outageRateValue } from '#lib/gearboxes/outages.ts';
import { prepared, rawRead } from '#server/db/prepared.ts';
import { queryRows, type Db } from '#server/db/client.ts';
import {
  orderCheckpoints,
  orderFiles,
  orderOutages,
  users,
  orderProcedures,
  outageProcedures,
  outages,
  procedureCheckpoints,
  repairOrders,
  repairProcedures,
} from '#server/db/schema/index.ts';
import { openOrder, type Tx } from './open-order.ts';
import { shownOutage } from './closed-names.ts';
import { insertProcedureIn, nameTaken as procedureNameTaken, type ProcedureRow } from '#server/gearboxes/procedures.ts';
import type { GearboxModelsService } from '#server/gearboxes/service.ts';
import type { ProcedureInput } from '#lib/gearboxes/procedures.ts';
import { DomainError, conflict, invalid } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { record } from '#server/audit/record.ts';
import { fieldLabel, orderRef, outageLabels, procedureNames } from '#server/audit/refs.ts';

type OutageRow = Awaited<ReturnType<GearboxModelsService['outagesOf']>>[number];

export type DiagnosticService = ReturnType<typeof createDiagnosticService>;

export const STEP = { none: 0, outages: 1, procedures: 2, visualised: 3 } as const;
const VALIDATED = t('refusals.diagnosticValidated');

export type OutageCandidate = {
  outage: OutageRow;
  /** Closed orders of the model sharing a fault code or symptom with this one. */
  similarOrders: number;
  /** Among them, those whose confirmed outage was this one. */
  confirmedOrders: number;
  /** The dossier's rate (from every order of the model, else its estimate) when there is no history. */
  dossierRate: number | null;
  chosen: boolean;
};

/** The procedures as validated: what the mechanics follow and the report prints, whatever the dossier becomes. */
export async function snapshotProcedures(tx: Pick<Tx, 'execute'>, orderId: string) {
  await tx.execute(sql`update order_procedures op set name = p.name, description = p.description, steps = p.steps
    from repair_procedures p where p.id = op.procedure_id and op.repair_order_id = ${orderId}`);
  await tx.execute(sql`insert into order_checkpoints (repair_order_id, order_procedure_id, checkpoint_id, position, name, description)
    select op.repair_order_id, op.id, c.id, c.position, c.name, c.description
    from order_procedures op join procedure_checkpoints c on c.procedure_id = op.procedure_id where op.repair_order_id = ${orderId}`);
}

/** The order locked and open (open-order.ts), not validated yet unless `editable: false`, at step `needs` or past it. */
async function openAtStep(tx: Tx, id: string, opts: { needs?: number; editable?: boolean } = {}) {
  const order = await openOrder(tx, id);
  if (opts.editable !== false && order.validatedAt) throw conflict('validated', VALIDATED);
  if (opts.needs && order.diagnosticStep < opts.needs) throw conflict('step-skipped', STEP_REQUIRED[opts.needs]!);
  return order;
}

/**
 * The similar closed orders of the ranking, one definition for the ranking and its evidence:
 * `codes` and `symptoms` (this order's), then `alike` (closed, same model, a confirmed outage,
 * sharing at least one of them). Placeholders `orderId` and `modelId`.
 */
const alikeOrders = sql`codes as (select error_code_id from order_fault_codes where repair_order_id = ${sql.placeholder('orderId')}),
        symptoms as (select symptom_id from order_symptoms where repair_order_id = ${sql.placeholder('orderId')}),
        alike as (
          select r.id from repair_orders r
          where r.gearbox_model_id = ${sql.placeholder('modelId')} and r.id <> ${sql.placeholder('orderId')} and r.status = 'CLOSED'
            and exists (select 1 from order_outages oo where oo.repair_order_id = r.id)
            and (
              exists (select 1 from order_fault_codes f where f.repair_order_id = r.id and f.error_code_id in (select error_code_id from codes))
              or exists (select 1 from order_symptoms s where s.repair_order_id = r.id and s.symptom_id in (select symptom_id from symptoms))
            )
        )`;

/** Which of this order's fault codes (`kind` 'code', the base's error code) and symptoms a ranked outage's confirming orders shared, and in how many. */
export type SharedSign = { outageId: string; kind: 'code' | 'symptom'; signId: string; orders: number };

export function createDiagnosticService(deps: { db: Db; gearboxModels: GearboxModelsService }) {
  const { db, gearboxModels } = deps;

  /** How many similar closed orders confirmed each of the model's outages (candidatesOf). */
  const outageEvidence = prepared(() =>
    rawRead<{ outage_id: string; similar: number; confirmed: number; chosen: boolean }>(
      db,
      sql`
        with ${alikeOrders},
        total as (select count(*)::int as n from alike)
        select o.id as outage_id,
          (select n from total) as similar,
          (select count(*)::int from order_outages oo where oo.outage_id = o.id and oo.repair_order_id in (select id from alike)) as confirmed,
          exists (select 1 from order_outages oo where oo.outage_id = o.id and oo.repair_order_id = ${sql.placeholder('orderId')}) as chosen
        from outages o where o.gearbox_model_id = ${sql.placeholder('modelId')}`,
    ),
  );
  /** For each outage, the similar closed orders that confirmed it, counted per sign of this order they recorded (sharedSignsOf). */
  const sharedSigns = prepared(() =>
    rawRead<{ outage_id: string; kind: 'code' | 'symptom'; sign_id: string; orders: number }>(
      db,
      sql`
        with ${alikeOrders},
        confirming as (select oo.outage_id, oo.repair_order_id from order_outages oo where oo.repair_order_id in (select id from alike))
        select c.outage_id, 'code' as kind, f.error_code_id as sign_id, count(distinct c.repair_order_id)::int as orders
          from confirming c join order_fault_codes f on f.repair_order_id = c.repair_order_id
          where f.error_code_id in (select error_code_id from codes) group by c.outage_id, f.error_code_id
        union all
        select c.outage_id, 'symptom' as kind, s.symptom_id as sign_id, count(distinct c.repair_order_id)::int as orders
          from confirming c join order_symptoms s on s.repair_order_id = c.repair_order_id
          where s.symptom_id in (select symptom_id from symptoms) group by c.outage_id, s.symptom_id`,
    ),
  );
  const guideHiddenQuery = prepared(() =>
    db
      .select({ hidden: sql<boolean | null>`(${users.metadata} ->> 'diagnosticGuideHidden')::boolean` })
      .from(users)
      .where(eq(users.id, sql.placeholder('userId'))),
  );

  /**
   * The order's procedures with the dossier's procedure, its checkpoints and how many outages use
   * it, in one query whose SQL is built once, rather than three reads per procedure.
   */
  const orderProcedureRows = prepared(() =>
    db
      .select({
        link: {
          id: orderProcedures.id,
          position: orderProcedures.position,
          outageId: orderProcedures.outageId,
          name: orderProcedures.name,
          description: orderProcedures.description,
          steps: orderProcedures.steps,
        },
        procedure: getTableColumns(repairProcedures),
        checkpoints: sql<
          ProcedureRow['checkpoints']
        >`coalesce((select json_agg(json_build_object('id', c.id, 'procedureId', c.procedure_id, 'position', c.position, 'name', c.name, 'description', c.description) order by c.position) from ${procedureCheckpoints} c where c.procedure_id = ${repairProcedures.id}), '[]'::json)`,
        outageCount: sql<number>`(select count(*)::int from ${outageProcedures} u where u.procedure_id = ${repairProcedures.id})`,
      })
      .from(orderProcedures)
      .innerJoin(repairProcedures, eq(repairProcedures.id, orderProcedures.procedureId))
      .where(eq(orderProcedures.orderId, sql.placeholder('orderId')))
      .orderBy(asc(orderProcedures.position)),
  );

  const chosenLinks = prepared(() =>
    db
      .select({ id: orderOutages.outageId, names: repairOrders.closedNames })
      .from(orderOutages)
      .innerJoin(repairOrders, eq(repairOrders.id, orderOutages.orderId))
      .where(eq(orderOutages.orderId, sql.placeholder('orderId')))
      .orderBy(asc(orderOutages.position)),
  );

  /** A procedure added by hand goes last; adding one means the procedures step is done. */
  const append = async (tx: Tx, order: { id: string; number: string }, procedureId: string) => {
    const orderId = order.id;
    const before = await chosenProcedures(tx, orderId);
    const [last] = await tx
      .select({ position: sql<number>`coalesce(max(${orderProcedures.position}), 0)::int` })
      .from(orderProcedures)
      .where(eq(orderProcedures.orderId, orderId));
    await tx
      .insert(orderProcedures)
      .values({ orderId, procedureId, outageId: null, position: Number(last?.position ?? 0) + 1 })
      .onConflictDoNothing();
    await setStep(tx, orderId, STEP.procedures);
    await recordChoice(tx, order, 'procedures', before, await chosenProcedures(tx, orderId));
  };

  const setStep = (tx: Tx, id: string, step: number, extra: Partial<typeof repairOrders.$inferInsert> = {}) =>
    tx
      .update(repairOrders)
      .set({ diagnosticStep: step, updatedAt: new Date(), ...extra })
      .where(eq(repairOrders.id, id));

  /** The order's retained outages or procedures changed: one event with the lists before and after. */
  const recordChoice = async (tx: Tx, order: { id: string; number: string }, field: 'outages' | 'procedures', before: string[], after: string[]) => {
    const [b, a] = [before.join(', '), after.join(', ')];
    if (b !== a)
      await record(tx, {
        action: 'changed',
        entity: { kind: 'order_procedure', id: order.id, label: '' },
        parent: orderRef(order),
        changes: [{ field: fieldLabel(field), before: b, after: a }],
      });
  };
  const chosenOutages = async (tx: Tx, orderId: string) =>
    outageLabels(
      tx,
      (await tx.select({ id: orderOutages.outageId }).from(orderOutages).where(eq(orderOutages.orderId, orderId)).orderBy(asc(orderOutages.position))).map(
        (r) => r.id,
      ),
    );
  const chosenProcedures = async (tx: Tx, orderId: string) =>
    procedureNames(
      tx,
      (
        await tx
          .select({ id: orderProcedures.procedureId })
          .from(orderProcedures)
          .where(eq(orderProcedures.orderId, orderId))
          .orderBy(asc(orderProcedures.position))
      ).map((r) => r.id),
    );
  const validatedChange = (before: boolean, after: boolean) => [
    { field: fieldLabel('validated'), before: t(before ? 'audit.yes' : 'audit.no'), after: t(after ? 'audit.yes' : 'audit.no') },
  ];

  return {
    /**
     * The model's outages, best first: how many similar closed orders confirmed each. Similar =
     * closed, same model, with a confirmed outage, sharing at least one fault code or symptom with
     * this order. An order with neither recorded yet has nothing to compare: no order is similar,
     * and the dossier's rates rank the outages.
     */
    candidatesOf: async (viewer: Viewer, orderId: string, knownModelId?: string): Promise<OutageCandidate[]> => {
      // The order's page has read its model already: not read again.
      const modelId = knownModelId ?? (await db.select({ modelId: repairOrders.modelId }).from(repairOrders).where(eq(repairOrders.id, orderId)))[0]?.modelId;
      if (!modelId) return [];
      // Sent together: on PostgreSQL they run side by side, on PGlite one after the other without a turn between.
      const [evidence, known, history] = await Promise.all([
        outageEvidence().execute({ orderId, modelId }),
        gearboxModels.outagesOf(viewer, modelId),
        gearboxModels.orderCountOf(viewer, modelId),
      ]);
      // The rate is the dossier's figure (decision 018): from the history, else its estimate.
      return (
        known
          .map((outage) => {
            // An outage added between the two reads has no evidence yet.
            const row = evidence.find((e) => e.outage_id === outage.id) ?? { similar: evidence[0]?.similar ?? 0, confirmed: 0, chosen: false };
            const dossierRate = outageRateValue({ ...outage, orderCount: Number(outage.orderCount) }, history);
            return { outage, similarOrders: Number(row.similar), confirmedOrders: Number(row.confirmed), dossierRate, chosen: row.chosen };
          })
          // Then the dossier's estimate: outages the history has not seen yet keep their expected order.
          .sort(
            (a, b) =>
              b.confirmedOrders - a.confirmedOrders ||
              (b.dossierRate ?? -1) - (a.dossierRate ?? -1) ||
              (b.outage.occurrenceRate ?? -1) - (a.outage.occurrenceRate ?? -1),
          )
      );
    },

    /**
     * The evidence behind candidatesOf's counts, sign by sign: for each outage, which of this
     * order's fault codes and symptoms the similar closed orders that confirmed it had recorded,
     * and how many of them did. Most shared first.
     */
    sharedSignsOf: async (_viewer: Viewer, orderId: string, modelId: string): Promise<SharedSign[]> =>
      (await sharedSigns().execute({ orderId, modelId }))
        .map((r) => ({ outageId: r.outage_id, kind: r.kind, signId: r.sign_id, orders: Number(r.orders) }))
        .sort((a, b) => b.orders - a.orders),

    /** The outages retained, in order; a closed order shows them as they were when it closed (decision 043). */
    chosenOutagesOf: async (viewer: Viewer, orderId: string) => {
      // The order's names at its closing come with the links: no link, nothing to name.
      const links = await chosenLinks().execute({ orderId });
      const chosen = await gearboxModels.getOutages(
        viewer,
        links.map((l) => l.id),
      );
      return chosen.map((outage) => shownOutage(outage, links[0]?.names ?? null));
    },

    /** The procedures to apply, in order, complete with steps and checkpoints. */
    proceduresOf: async (_viewer: Viewer, orderId: string) => {
      const links = await orderProcedureRows().execute({ orderId });
      // Once validated, the procedure as it was then; before, as the dossier has it now.
      return links.map(({ link, procedure, checkpoints, outageCount }) => ({
        id: link.id,
        position: link.position,
        outageId: link.outageId,
        name: link.name ?? procedure.name,
        description: link.description ?? procedure.description,
        steps: link.steps ?? procedure.steps,
        procedure: { ...procedure, checkpoints, outageCount } satisfies ProcedureRow,
      }));
    },

    /** Step 1: the outages retained (the model's), in order. Procedures of outages dropped go. */
    chooseOutages: (_viewer: Viewer, orderId: string, outageIds: string[]) =>
      db.transaction(async (tx) => {
        const order = await openAtStep(tx, orderId);
        const ids = [...new Set(outageIds)];
        if (ids.length === 0) throw invalid({ outageIds: t('refusals.chooseOutage') });
        const own = await tx
          .select({ id: outages.id })
          .from(outages)
          .where(and(inArray(outages.id, ids), eq(outages.modelId, order.modelId)));
        if (own.length !== ids.length) throw invalid({ outageIds: t('refusals.outageNotOfModel') });
        const outagesBefore = await chosenOutages(tx, orderId);
        await tx.delete(orderOutages).where(eq(orderOutages.orderId, orderId));
        await tx.insert(orderOutages).values(ids.map((outageId, i) => ({ orderId, outageId, position: i + 1 })));
        const dropped = await tx
          .delete(orderProcedures)
          .where(
            and(
              eq(orderProcedures.orderId, orderId),
              sql`${orderProcedures.outageId} is not null`,
              sql`${orderProcedures.outageId} not in (${sql.join(
                ids.map((id) => sql`${id}::uuid`),
                sql`, `,
              )})`,
            ),
          )
          .returning({ id: orderProcedures.id });
        // Going back keeps what still holds; a changed choice must be seen again before validating.
        const step = dropped.length ? STEP.outages : Math.max(order.diagnosticStep === STEP.visualised ? STEP.procedures : order.diagnosticStep, STEP.outages);
        await setStep(tx, orderId, step);
        await recordChoice(tx, order, 'outages', outagesBefore, await outageLabels(tx, ids));
        return orderId;
      }),

    /** Step 2: the procedures to apply (the model's), each for one of the chosen outages or added by hand. */
    chooseProcedures: (_viewer: Viewer, orderId: string, entries: { procedureId: string; outageId?: string | null }[]) =>
      db.transaction(async (tx) => {
        const order = await openAtStep(tx, orderId, { needs: STEP.outages });
        const seen = new Set<string>();
        const list = entries.filter((e) => !seen.has(e.procedureId) && seen.add(e.procedureId));
        if (list.length === 0) throw invalid({ procedures: t('refusals.chooseProcedure') });
        const own = await tx
          .select({ id: repairProcedures.id })
          .from(repairProcedures)
          .where(
            and(
              inArray(
                repairProcedures.id,
                list.map((e) => e.procedureId),
              ),
              eq(repairProcedures.modelId, order.modelId),
            ),
          );
        if (own.length !== list.length) throw invalid({ procedures: t('refusals.procedureNotOfModel') });
        const chosen = new Set((await tx.select({ id: orderOutages.outageId }).from(orderOutages).where(eq(orderOutages.orderId, orderId))).map((r) => r.id));
        if (list.some((e) => e.outageId && !chosen.has(e.outageId))) throw invalid({ procedures: t('refusals.outageNotChosen') });
        const proceduresBefore = await chosenProcedures(tx, orderId);
        await tx.delete(orderProcedures).where(eq(orderProcedures.orderId, orderId));
        await tx.insert(orderProcedures).values(list.map((e, i) => ({ orderId, procedureId: e.procedureId, outageId: e.outageId ?? null, position: i + 1 })));
        await setStep(tx, orderId, STEP.procedures);
        await recordChoice(tx, order, 'procedures', proceduresBefore, await chosenProcedures(tx, orderId));
        return orderId;
      }),

    /** Step 3 (optional): one more procedure of the model, written for the occasion or existing. */
    addProcedure: (_viewer: Viewer, orderId: string, procedureId: string) =>
      db.transaction(async (tx) => {
        const order = await openAtStep(tx, orderId, { needs: STEP.outages });
        const [own] = await tx
          .select({ id: repairProcedures.id })
          .from(repairProcedures)
          .where(and(eq(repairProcedures.id, procedureId), eq(repairProcedures.modelId, order.modelId)));
        if (!own) throw invalid({ procedureId: t('refusals.procedureNotOfModel') });
        await append(tx, order, procedureId);
        return orderId;
      }),

    /** Step 3, a procedure written for the occasion: it joins the model's dossier and the order at once. */
    addNewProcedure: (_viewer: Viewer, orderId: string, input: ProcedureInput) =>
      db
        .transaction(async (tx) => {
          const order = await openAtStep(tx, orderId, { needs: STEP.outages });
          const procedureId = await insertProcedureIn(tx, order.modelId, input);
          await append(tx, order, procedureId);
          return procedureId;
        })
        .catch((error: unknown) => (error instanceof DomainError ? Promise.reject(error) : procedureNameTaken(error))),

    /** Step 4: the procedure has been seen as a whole. */
    markVisualised: (_viewer: Viewer, orderId: string) =>
      db.transaction(async (tx) => {
        await openAtStep(tx, orderId, { needs: STEP.procedures });
        await setStep(tx, orderId, STEP.visualised);
        return orderId;
      }),

    /** Step 5: the procedures become the mechanics' to follow. */
    validate: (viewer: Viewer, orderId: string) =>
      db.transaction(async (tx) => {
        const order = await openAtStep(tx, orderId, { needs: STEP.visualised });
        // SPEC §5: a symptom with its conditions, and the fault codes read or said unreadable.
        const [found] = await queryRows<{ codes: number; symptoms: number }>(
          tx as unknown as Db,
          sql`select (select count(*)::int from order_fault_codes where repair_order_id = ${orderId}) as codes, (select count(*)::int from order_symptoms where repair_order_id = ${orderId}) as symptoms`,
        );
        // Everything missing said at once, not one refusal per click (walk31 F10).
        const missing = [
          order.canReadFaultCodes === null && t('refusals.readingUnknown'),
          order.canReadFaultCodes && found!.codes === 0 && t('refusals.codesMissing'),
          found!.symptoms === 0 && t('refusals.symptomsMissing'),
        ].filter((m): m is string => typeof m === 'string');
        if (missing.length) throw conflict('incomplete', missing.join(' '));
        await snapshotProcedures(tx, orderId);
        await setStep(tx, orderId, STEP.visualised, { validatedAt: new Date(), validatedById: viewer.id });
        await record(tx, { action: 'changed', entity: orderRef(order), changes: validatedChange(false, true) });
        return orderId;
      }),

    /** The start guide of the diagnostic page, hidden for good by the user's choice (kept in metadata). */
    guideHidden: async (viewer: Viewer) => (await guideHiddenQuery().execute({ userId: viewer.id }))[0]?.hidden === true,

    setGuideHidden: async (viewer: Viewer, hidden: boolean) => {
      await db
        .update(users)
        .set({ metadata: sql`${users.metadata} || jsonb_build_object('diagnosticGuideHidden', ${hidden}::boolean)` })
        .where(eq(users.id, viewer.id));
      return hidden;
    },

    /** Takes a validated diagnostic back to the visualise step, to change it. */
    reopen: (_viewer: Viewer, orderId: string) =>
      db.transaction(async (tx) => {
        const order = await openAtStep(tx, orderId, { editable: false });
        if (!order.validatedAt) throw conflict('not-validated', t('refusals.diagnosticNotValidated'));
        const [answered] = await tx
          .select({ n: count() })
          .from(orderCheckpoints)
          .where(and(eq(orderCheckpoints.orderId, orderId), isNotNull(orderCheckpoints.checkResult)));
        // A photo is part of an answer (decision 088): the checkpoint it shows is kept.
        const [photographed] = await tx
          .select({ n: count() })
          .from(orderFiles)
          .where(and(eq(orderFiles.orderId, orderId), isNotNull(orderFiles.checkpointId)));
        if (answered!.n > 0 || photographed!.n > 0) throw conflict('answered', t('refusals.checkpointsAnswered'));
        await tx.delete(orderCheckpoints).where(eq(orderCheckpoints.orderId, orderId));
        await tx.update(orderProcedures).set({ name: null, description: null, steps: null }).where(eq(orderProcedures.orderId, orderId));
        await setStep(tx, orderId, STEP.visualised, { validatedAt: null, validatedById: null });
        await record(tx, { action: 'changed', entity: orderRef(order), changes: validatedChange(true, false) });
        return orderId;
      }),
  };
}

/** Who may call what (decision 061). The diagnostic: read by all, carried out by admins and diagnosticians; the guide's choice is anyone's own. */
export const diagnosticPermissions = {
  candidatesOf: 'signedIn',
  sharedSignsOf: 'signedIn',
  chosenOutagesOf: 'signedIn',
  proceduresOf: 'signedIn',
  chooseOutages: 'manageOrders',
  chooseProcedures: 'manageOrders',
  addProcedure: 'manageOrders',
  addNewProcedure: 'manageOrders',
  markVisualised: 'manageOrders',
  validate: 'manageOrders',
  guideHidden: 'signedIn',
  setGuideHidden: 'manageOrders',
  reopen: 'manageOrders',
} as const satisfies PermissionTable<DiagnosticService>;
