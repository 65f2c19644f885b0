// The symptoms seen on a repair order's gearbox (SPEC §2.7, §3): an item of the symptoms base,
// its appearance conditions and, when known, the model's error code it came with. A closed
// order takes no change.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { alias } from 'drizzle-orm/pg-core';
import type { SymptomInput } from '#lib/repair-orders/symptoms.ts';
import { prepared } from '#server/db/prepared.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { baseItems, errorCodes, orderSymptoms, repairOrders } from '#server/db/schema/index.ts';
import { openOrder, type Tx } from './open-order.ts';
import { namedConditions, resolveConditions } from './conditions.ts';
import { shownCode, shownName } from './closed-names.ts';
import { DomainError, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record } from '#server/audit/record.ts';
import { baseNameOf, conditionFields, orderRef } from '#server/audit/refs.ts';

export type SymptomsService = ReturnType<typeof createSymptomsService>;

const NOT_IN_BASE = t('errors.itemUnknown');
const actionItems = alias(baseItems, 'action_items');
const otherItems = alias(baseItems, 'other_condition_items');
const UNKNOWN_CODE = t('symptoms.unknownCode');
const TAKEN = t('symptoms.taken');

export function createSymptomsService(deps: { db: Db }) {
  const { db } = deps;

  /** The base's symptom of that name (the form types or picks it, in any case); undefined for none. */
  async function symptomOf(tx: Tx, name: string) {
    const [item] = await tx
      .select({ id: baseItems.id })
      .from(baseItems)
      .where(and(eq(baseItems.kind, 'symptom'), sql`lower(${baseItems.name}) = lower(${name})`));
    return item?.id;
  }

  /** The model's error code of that text (null for none given, undefined for none of the dossier); unlike a fault code, a symptom never adds one. */
  async function errorCodeOf(tx: Tx, modelId: string, code: string) {
    if (!code) return null;
    const [known] = await tx
      .select({ id: errorCodes.id })
      .from(errorCodes)
      .where(and(eq(errorCodes.modelId, modelId), sql`upper(${errorCodes.code}) = upper(${code})`));
    return known?.id;
  }

  /** The symptom, its code and its conditions as the base and the dossier know them; every unknown one refused at once. */
  async function resolve(tx: Tx, modelId: string, input: SymptomInput) {
    const symptomId = await symptomOf(tx, input.symptom);
    const errorCodeId = await errorCodeOf(tx, modelId, input.errorCode);
    const conditions = await resolveConditions(tx, input, {
      ...(symptomId ? {} : { 'object.symptom': NOT_IN_BASE }),
      ...(errorCodeId === undefined ? { 'object.errorCode': UNKNOWN_CODE } : {}),
    });
    return { symptomId: symptomId!, errorCodeId: errorCodeId ?? null, conditions };
  }

  const taken = (error: unknown): never => {
    if (pgCode(error) === '23505') throw invalid({ 'object.symptom': TAKEN });
    throw error;
  };
  const refused = (error: unknown) => (error instanceof DomainError ? Promise.reject(error) : taken(error));

  const symptomsQuery = prepared(() =>
    db
      .select({
        id: orderSymptoms.id,
        // A closed order shows the names it had when it closed (decision 043).
        symptom: { id: baseItems.id, name: shownName(baseItems) },
        errorCode: { id: errorCodes.id, code: shownCode(errorCodes).code, description: shownCode(errorCodes).description },
        temporality: orderSymptoms.temporality,
        acceleratorLoad: orderSymptoms.acceleratorLoad,
        bvaMode: orderSymptoms.bvaMode,
        gear: orderSymptoms.gear,
        action: shownName(actionItems),
        otherCondition: shownName(otherItems),
        comment: orderSymptoms.comment,
      })
      .from(orderSymptoms)
      .innerJoin(repairOrders, eq(repairOrders.id, orderSymptoms.orderId))
      .innerJoin(baseItems, eq(baseItems.id, orderSymptoms.symptomId))
      .leftJoin(errorCodes, eq(errorCodes.id, orderSymptoms.errorCodeId))
      .leftJoin(actionItems, eq(actionItems.id, orderSymptoms.actionId))
      .leftJoin(otherItems, eq(otherItems.id, orderSymptoms.otherConditionId))
      .where(eq(orderSymptoms.orderId, sql.placeholder('orderId')))
      .orderBy(asc(shownName(baseItems))),
  );

  return {
    symptomsOf: (_viewer: Viewer, orderId: string) => symptomsQuery().execute({ orderId }),

    insertSymptom: (_viewer: Viewer, orderId: string, input: SymptomInput) =>
      db
        .transaction(async (tx) => {
          const order = await openOrder(tx, orderId);
          const { symptomId, errorCodeId, conditions } = await resolve(tx, order.modelId, input);
          const [row] = await tx
            .insert(orderSymptoms)
            .values({ orderId, symptomId, errorCodeId, ...conditions.columns })
            .returning({ id: orderSymptoms.id });
          await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
          await record(tx, {
            action: 'created',
            entity: { kind: 'order_symptom', id: row!.id, label: await baseNameOf(tx, symptomId) },
            parent: orderRef(order),
            changes: changesOf(null, conditions.named, conditionFields),
          });
          return row!.id;
        })
        .catch(refused),

    updateSymptom: (_viewer: Viewer, id: string, input: SymptomInput) =>
      db
        .transaction(async (tx) => {
          const [current] = await tx.select().from(orderSymptoms).where(eq(orderSymptoms.id, id));
          if (!current) throw notFound(t('symptoms.notFound'));
          const order = await openOrder(tx, current.orderId);
          const { symptomId, errorCodeId, conditions } = await resolve(tx, order.modelId, input);
          await tx
            .update(orderSymptoms)
            .set({ symptomId, errorCodeId, ...conditions.columns })
            .where(eq(orderSymptoms.id, id));
          await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, order.id));
          const changes = changesOf(await namedConditions(tx, current), conditions.named, conditionFields);
          if (current.symptomId !== symptomId)
            changes.unshift({ field: t('symptoms.symptom'), before: await baseNameOf(tx, current.symptomId), after: input.symptom });
          if (changes.length)
            await record(tx, {
              action: 'changed',
              entity: { kind: 'order_symptom', id, label: await baseNameOf(tx, symptomId) },
              parent: orderRef(order),
              changes,
            });
          return id;
        })
        .catch(refused),

    removeSymptom: (_viewer: Viewer, id: string) =>
      db.transaction(async (tx) => {
        const [current] = await tx.select().from(orderSymptoms).where(eq(orderSymptoms.id, id));
        if (!current) throw notFound(t('symptoms.notFound'));
        const order = await openOrder(tx, current.orderId);
        await record(tx, { action: 'deleted', entity: { kind: 'order_symptom', id, label: await baseNameOf(tx, current.symptomId) }, parent: orderRef(order) });
        await tx.delete(orderSymptoms).where(eq(orderSymptoms.id, id));
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, current.orderId));
        return id;
      }),
  };
}

/** Who may call what (decision 061). An order's symptoms: read by all, written by admins and diagnosticians. */
export const symptomsPermissions = {
  symptomsOf: 'signedIn',
  insertSymptom: 'manageOrders',
  updateSymptom: 'manageOrders',
  removeSymptom: 'manageOrders',
} as const satisfies PermissionTable<SymptomsService>;
