// The repair procedure on the shop floor (SPEC §2.7, §4): the checkpoints of the validated
// procedures answered one at a time (each answer carries the version its author saw, so a
// colleague's newer answer is never overwritten unknowingly), closing once every checkpoint is
// answered, and an admin's reopening; closings and reopenings are recorded.
import { and, asc, count, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import type { CheckpointAnswer } from '#lib/repair-orders/procedure.ts';
import { prepared } from '#server/db/prepared.ts';
import type { Db } from '#server/db/client.ts';
import { orderCheckpoints, orderEvents, orderProcedures, repairOrders, repairProcedures, users } from '#server/db/schema/index.ts';
import { openOrder, type Tx } from './open-order.ts';
import { keepClosedNames } from './closed-names.ts';
import { conflict, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record } from '#server/audit/record.ts';
import { fieldLabel, orderRef } from '#server/audit/refs.ts';
import { fr } from '#lib/i18n/fr.ts';
import { labelOf, workshopToday } from '#lib/format.ts';

export type OrderProcedureService = ReturnType<typeof createOrderProcedureService>;
type Actor = { id: string };

const NOT_VALIDATED = t('refusals.noProcedureToFollow');
export const STALE = t('refusals.checkpointStale');

const nameOf = async (tx: Tx, actor: Actor) => (await tx.select({ name: users.displayName }).from(users).where(eq(users.id, actor.id)))[0]?.name ?? '';

export function createOrderProcedureService(deps: { db: Db }) {
  const { db } = deps;
  const checkpoints = (where: SQL) =>
    db
      .select({
        id: orderCheckpoints.id,
        orderProcedureId: orderCheckpoints.orderProcedureId,
        position: orderCheckpoints.position,
        name: orderCheckpoints.name,
        description: orderCheckpoints.description,
        checkResult: orderCheckpoints.checkResult,
        measuredValue: orderCheckpoints.measuredValue,
        comment: orderCheckpoints.comment,
        answeredByName: orderCheckpoints.answeredByName,
        answeredAt: orderCheckpoints.answeredAt,
        version: orderCheckpoints.version,
      })
      .from(orderCheckpoints)
      .innerJoin(orderProcedures, eq(orderProcedures.id, orderCheckpoints.orderProcedureId))
      .where(where)
      .orderBy(asc(orderProcedures.position), asc(orderCheckpoints.position));

  type Checkpoint = Awaited<ReturnType<typeof checkpoints>>[number];
  type Event = { kind: string; at: Date; byName: string; comment: string };
  /**
   * The procedure tab's and the report's read: the order's procedures (as validated, else as the
   * dossier has them now) each with its checkpoints, and its closings and reopenings, in one
   * query whose SQL is built once, rather than three (or, before, three per procedure more).
   */
  // Qualified by hand: a one-table select renders its columns bare.
  const orderIdColumn = sql.raw('"repair_orders"."id"');
  const followed = prepared(() =>
    db
      .select({
        procedures: sql<
          {
            id: string;
            position: number;
            name: string;
            description: string;
            steps: string[];
            checkpoints: (Omit<Checkpoint, 'answeredAt'> & { answeredAt: string | null })[];
          }[]
        >`coalesce((select json_agg(json_build_object('id', op.id, 'position', op.position, 'name', coalesce(op.name, p.name), 'description', coalesce(op.description, p.description), 'steps', coalesce(op.steps, p.steps),
            'checkpoints', coalesce((select json_agg(json_build_object('id', c.id, 'orderProcedureId', c.order_procedure_id, 'position', c.position, 'name', c.name, 'description', c.description,
              'checkResult', c.check_result, 'measuredValue', c.measured_value, 'comment', c.comment, 'answeredByName', c.answered_by_name, 'answeredAt', c.answered_at, 'version', c.version) order by c.position)
              from ${orderCheckpoints} c where c.order_procedure_id = op.id), '[]'::json)) order by op.position)
          from ${orderProcedures} op join ${repairProcedures} p on p.id = op.procedure_id where op.repair_order_id = ${orderIdColumn}), '[]'::json)`,
        events: sql<
          (Omit<Event, 'at'> & { at: string })[]
        >`coalesce((select json_agg(json_build_object('kind', e.kind, 'at', e.at, 'byName', e.by_name, 'comment', e.comment) order by e.at desc) from ${orderEvents} e where e.repair_order_id = ${orderIdColumn}), '[]'::json)`,
      })
      .from(repairOrders)
      .where(eq(repairOrders.id, sql.placeholder('orderId'))),
  );

  return {
    /** Every checkpoint of the order, procedure by procedure, in order. */
    checkpointsOf: (_viewer: Viewer, orderId: string) => checkpoints(eq(orderCheckpoints.orderId, orderId)),
    checkpointsOfProcedure: (_viewer: Viewer, orderProcedureId: string) => checkpoints(eq(orderCheckpoints.orderProcedureId, orderProcedureId)),

    /** The procedures the order follows, each with its checkpoints, and its closings and reopenings (newest first): what checkpointsOf and eventsOf give, in one read. */
    followedOf: async (_viewer: Viewer, orderId: string) => {
      const [row] = await followed().execute({ orderId });
      // JSON carries dates as text: back to dates, as the other reads give them.
      return {
        procedures: (row?.procedures ?? []).map((p) => ({
          ...p,
          checkpoints: p.checkpoints.map((c): Checkpoint => ({ ...c, answeredAt: c.answeredAt === null ? null : new Date(c.answeredAt) })),
        })),
        events: (row?.events ?? []).map((e): Event => ({ ...e, at: new Date(e.at) })),
      };
    },

    eventsOf: (_viewer: Viewer, orderId: string) => db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId)).orderBy(desc(orderEvents.at)),

    /** An answer to one checkpoint, against the version its author saw. */
    /** `orderId`: the order the caller shows (a page's URL); a checkpoint of another order is not found. */
    answer: (actor: Viewer, id: string, input: CheckpointAnswer, version: number, orderId?: string) =>
      db.transaction(async (tx) => {
        const [current] = await tx.select().from(orderCheckpoints).where(eq(orderCheckpoints.id, id));
        if (!current || (orderId !== undefined && current.orderId !== orderId)) throw notFound(t('refusals.checkpointNotFound'));
        const order = await openOrder(tx, current.orderId);
        if (!order.validatedAt) throw conflict('not-validated', NOT_VALIDATED);
        // Read again under the order's lock: the version now is the one that counts.
        const [locked] = await tx.select().from(orderCheckpoints).where(eq(orderCheckpoints.id, id));
        if (locked!.version !== version) throw conflict('stale', STALE);
        const [row] = await tx
          .update(orderCheckpoints)
          .set({
            // A value or comment saved before a result leaves the result as it was.
            checkResult: input.checkResult ?? locked!.checkResult,
            measuredValue: input.measuredValue ?? null,
            comment: input.comment,
            answeredById: actor.id,
            answeredByName: await nameOf(tx, actor),
            answeredAt: new Date(),
            version: locked!.version + 1,
          })
          .where(eq(orderCheckpoints.id, id))
          .returning();
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, order.id));
        await record(tx, {
          action: 'changed',
          entity: { kind: 'order_checkpoint', id, label: locked!.name },
          parent: orderRef(order),
          changes: changesOf(locked!, row!, [
            [fieldLabel('result'), (c) => c.checkResult && labelOf(fr.orderMeasures.results, c.checkResult)],
            [fieldLabel('measuredValue'), (c) => c.measuredValue],
            [fieldLabel('comment'), (c) => c.comment],
          ]),
        });
        return row!;
      }),

    /** SPEC §4: closed once every checkpoint is answered; the comment goes with the closing. */
    close: (actor: Viewer, orderId: string, comment: string) =>
      db.transaction(async (tx) => {
        const order = await openOrder(tx, orderId);
        if (!order.validatedAt) throw conflict('not-validated', NOT_VALIDATED);
        const [open] = await tx
          .select({ n: count() })
          .from(orderCheckpoints)
          .where(and(eq(orderCheckpoints.orderId, orderId), isNull(orderCheckpoints.checkResult)));
        if (open!.n > 0)
          throw conflict(
            'checkpoints-open',
            t('refusals.checkpointsOpen', { remaining: t(open!.n > 1 ? 'refusals.remainingMany' : 'refusals.remaining', { count: open!.n }) }),
          );
        await tx
          .update(repairOrders)
          .set({
            status: 'CLOSED',
            // The workshop's day, not the database session's (decision 038).
            closedOn: workshopToday(),
            updatedAt: new Date(),
          })
          .where(eq(repairOrders.id, orderId));
        // A record from now on (decision 043): the names it shows stay as they are today.
        await keepClosedNames(tx, orderId);
        await tx.insert(orderEvents).values({
          orderId,
          kind: 'closed',
          byUserId: actor.id,
          byName: await nameOf(tx, actor),
          comment,
        });
        await record(tx, { action: 'closed', entity: orderRef(order), changes: [{ field: fieldLabel('comment'), before: '', after: comment }] });
        return orderId;
      }),

    /** An admin's reopening, recorded with its reason. */
    reopen: (actor: Viewer, orderId: string, comment: string) =>
      db.transaction(async (tx) => {
        const [order] = await tx.select().from(repairOrders).where(eq(repairOrders.id, orderId)).for('update');
        if (!order) throw notFound(t('errors.repairOrderLoad'));
        if (order.status !== 'CLOSED') throw conflict('not-closed', t('refusals.orderNotClosed'));
        await tx
          .update(repairOrders)
          .set({ status: 'IN_PROGRESS', closedOn: null, closedNames: null, updatedAt: new Date() })
          .where(eq(repairOrders.id, orderId));
        await tx.insert(orderEvents).values({
          orderId,
          kind: 'reopened',
          byUserId: actor.id,
          byName: await nameOf(tx, actor),
          comment,
        });
        await record(tx, { action: 'reopened', entity: orderRef(order), changes: [{ field: fieldLabel('comment'), before: '', after: comment }] });
        return orderId;
      }),
  };
}

/** Who may call what (decision 061). The procedure followed: read by all; answered and closed by whoever follows procedures; reopened by admins (SPEC §2.7, §4). */
export const orderProcedurePermissions = {
  checkpointsOf: 'signedIn',
  checkpointsOfProcedure: 'signedIn',
  followedOf: 'signedIn',
  eventsOf: 'signedIn',
  answer: 'followProcedures',
  close: 'followProcedures',
  reopen: 'reopenOrders',
} as const satisfies PermissionTable<OrderProcedureService>;
