// The fault codes recorded on a repair order: whether the gearbox allows their reading, and
// the codes read with their appearance conditions. Answering "no" discards the codes; a closed
// order takes no change.
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { alias } from 'drizzle-orm/pg-core';
import type { FaultCodeInput } from '#lib/repair-orders/fault-codes.ts';
import { prepared } from '#server/db/prepared.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { baseItems, errorCodes, orderFaultCodes, repairOrders } from '#server/db/schema/index.ts';
import { openOrder, type Tx } from './open-order.ts';
import { namedConditions, resolveConditions } from './conditions.ts';
import { shownCode, shownName } from './closed-names.ts';
import { DomainError, conflict, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record } from '#server/audit/record.ts';
import { conditionFields, gearboxModelRefOf, errorCodeOf as codeText, fieldLabel, orderRef } from '#server/audit/refs.ts';

export type FaultCodesService = ReturnType<typeof createFaultCodesService>;

const actionItems = alias(baseItems, 'action_items');
const otherItems = alias(baseItems, 'other_condition_items');

export function createFaultCodesService(deps: { db: Db }) {
  const { db } = deps;

  /** The model's error code of that name; a new one joins the dossier with its description. */
  async function errorCodeOf(tx: Tx, modelId: string, input: FaultCodeInput) {
    const [known] = await tx
      .select({ id: errorCodes.id })
      .from(errorCodes)
      .where(and(eq(errorCodes.modelId, modelId), sql`upper(${errorCodes.code}) = ${input.code}`));
    if (known) return known.id;
    if (!input.description) throw invalid({ 'object.description': t('faultCodes.newCodeDescription') });
    const [created] = await tx.insert(errorCodes).values({ modelId, code: input.code, description: input.description }).returning({ id: errorCodes.id });
    await record(tx, {
      action: 'created',
      entity: { kind: 'error_code', id: created!.id, label: input.code },
      parent: await gearboxModelRefOf(tx, modelId),
      changes: [{ field: fieldLabel('description'), before: '', after: input.description }],
    });
    return created!.id;
  }

  const taken = (error: unknown): never => {
    if (pgCode(error) === '23505') throw invalid({ 'object.code': t('faultCodes.codeTaken') });
    throw error;
  };

  const faultCodesQuery = prepared(() =>
    db
      .select({
        id: orderFaultCodes.id,
        // A closed order shows the names it had when it closed (decision 043).
        errorCode: { id: errorCodes.id, code: shownCode(errorCodes).code, description: shownCode(errorCodes).description },
        temporality: orderFaultCodes.temporality,
        acceleratorLoad: orderFaultCodes.acceleratorLoad,
        bvaMode: orderFaultCodes.bvaMode,
        gear: orderFaultCodes.gear,
        action: shownName(actionItems),
        otherCondition: shownName(otherItems),
        comment: orderFaultCodes.comment,
      })
      .from(orderFaultCodes)
      .innerJoin(repairOrders, eq(repairOrders.id, orderFaultCodes.orderId))
      .innerJoin(errorCodes, eq(errorCodes.id, orderFaultCodes.errorCodeId))
      .leftJoin(actionItems, eq(actionItems.id, orderFaultCodes.actionId))
      .leftJoin(otherItems, eq(otherItems.id, orderFaultCodes.otherConditionId))
      .where(eq(orderFaultCodes.orderId, sql.placeholder('orderId')))
      .orderBy(asc(shownCode(errorCodes).code)),
  );

  return {
    faultCodesOf: (_viewer: Viewer, orderId: string) => faultCodesQuery().execute({ orderId }),

    /** "The gearbox allows fault code reading": answering no discards the codes read (SPEC §4). */
    setFaultCodeReading: (_viewer: Viewer, orderId: string, canRead: boolean) =>
      db.transaction(async (tx) => {
        const order = await openOrder(tx, orderId);
        const [read] = await tx.select({ n: count() }).from(orderFaultCodes).where(eq(orderFaultCodes.orderId, orderId));
        if (!canRead && read!.n > 0) await tx.delete(orderFaultCodes).where(eq(orderFaultCodes.orderId, orderId));
        await tx.update(repairOrders).set({ canReadFaultCodes: canRead, updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
        if (order.canReadFaultCodes !== canRead)
          await record(tx, {
            action: 'changed',
            entity: orderRef(order),
            changes: changesOf({ v: order.canReadFaultCodes }, { v: canRead }, [[fieldLabel('canReadFaultCodes'), (r) => r.v]]),
          });
        return { discarded: canRead ? 0 : read!.n };
      }),

    insertFaultCode: (_viewer: Viewer, orderId: string, input: FaultCodeInput) =>
      db
        .transaction(async (tx) => {
          const order = await openOrder(tx, orderId);
          if (order.canReadFaultCodes !== true) throw conflict('reading-off', t('faultCodes.readingRequired'));
          const conditions = await resolveConditions(tx, input);
          const errorCodeId = await errorCodeOf(tx, order.modelId, input);
          const [row] = await tx
            .insert(orderFaultCodes)
            .values({ orderId, errorCodeId, ...conditions.columns })
            .returning({ id: orderFaultCodes.id });
          await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
          await record(tx, {
            action: 'created',
            entity: { kind: 'order_fault_code', id: row!.id, label: await codeText(tx, errorCodeId) },
            parent: orderRef(order),
            changes: changesOf(null, conditions.named, conditionFields),
          });
          return row!.id;
        })
        .catch((error: unknown) => (error instanceof DomainError ? Promise.reject(error) : taken(error))),

    updateFaultCode: (_viewer: Viewer, id: string, input: FaultCodeInput) =>
      db
        .transaction(async (tx) => {
          const [current] = await tx.select().from(orderFaultCodes).where(eq(orderFaultCodes.id, id));
          if (!current) throw notFound(t('refusals.faultCodeNotFound'));
          const order = await openOrder(tx, current.orderId);
          const conditions = await resolveConditions(tx, input);
          const errorCodeId = await errorCodeOf(tx, order.modelId, input);
          await tx
            .update(orderFaultCodes)
            .set({ errorCodeId, ...conditions.columns })
            .where(eq(orderFaultCodes.id, id));
          const changes = changesOf(await namedConditions(tx, current), conditions.named, conditionFields);
          if (current.errorCodeId !== errorCodeId)
            changes.unshift({ field: fieldLabel('code'), before: await codeText(tx, current.errorCodeId), after: await codeText(tx, errorCodeId) });
          if (changes.length)
            await record(tx, {
              action: 'changed',
              entity: { kind: 'order_fault_code', id, label: await codeText(tx, errorCodeId) },
              parent: orderRef(order),
              changes,
            });
          return id;
        })
        .catch((error: unknown) => (error instanceof DomainError ? Promise.reject(error) : taken(error))),

    removeFaultCode: (_viewer: Viewer, id: string) =>
      db.transaction(async (tx) => {
        const [current] = await tx.select().from(orderFaultCodes).where(eq(orderFaultCodes.id, id));
        if (!current) throw notFound(t('refusals.faultCodeNotFound'));
        const order = await openOrder(tx, current.orderId);
        await tx.delete(orderFaultCodes).where(eq(orderFaultCodes.id, id));
        await record(tx, {
          action: 'deleted',
          entity: { kind: 'order_fault_code', id, label: await codeText(tx, current.errorCodeId) },
          parent: orderRef(order),
        });
        return id;
      }),
  };
}

/** Who may call what (decision 061). An order's fault codes: read by all, written by admins and diagnosticians. */
export const faultCodesPermissions = {
  faultCodesOf: 'signedIn',
  setFaultCodeReading: 'manageOrders',
  insertFaultCode: 'manageOrders',
  updateFaultCode: 'manageOrders',
  removeFaultCode: 'manageOrders',
} as const satisfies PermissionTable<FaultCodesService>;
