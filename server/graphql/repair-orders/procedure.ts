// The repair procedure of an order on the shop floor (SPEC §2.7, §4): the procedures as
// validated, their checkpoints answered (live for everyone viewing the order), closing and an
// admin's reopening, recorded. Read by every role; answered and closed by A, D and M.
import type { CheckResult } from '#lib/repair-orders/check-results.ts';
import { checkpointAnswerSchema, closeOrderSchema, orderEventKinds, type OrderEventKind } from '#lib/repair-orders/procedure.ts';
import type { OrderProcedureService } from '#server/repair-orders/procedure.ts';
import { builder } from '#server/graphql/builder.ts';
import { OrderProcedure } from './diagnostic.ts';
import { parse } from '#server/graphql/inputs.ts';
import { live } from '#server/graphql/live.ts';
import { CheckResultType } from './measures.ts';
import { RepairOrder, Status } from './index.ts';

type CheckpointRow = Awaited<ReturnType<OrderProcedureService['checkpointsOf']>>[number];
type EventRow = Awaited<ReturnType<OrderProcedureService['eventsOf']>>[number];
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

const Checkpoint = builder.objectRef<CheckpointRow>('order_checkpoints').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    orderProcedureId: t.expose('orderProcedureId', { type: 'uuid' }),
    position: t.exposeInt('position'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    checkResult: t.field({ type: CheckResultType, nullable: true, resolve: (row) => (row.checkResult as CheckResult | null) ?? null }),
    measuredValue: t.exposeFloat('measuredValue', { nullable: true }),
    comment: t.exposeString('comment'),
    answeredByName: t.exposeString('answeredByName', { nullable: true }),
    answeredAt: t.string({ nullable: true, resolve: (row) => iso(row.answeredAt) }),
    /** Sent back with an answer: a newer one by a colleague is then refused, not overwritten. */
    version: t.exposeInt('version'),
  }),
});

const EventKind = builder.enumType('order_event_kind', { values: orderEventKinds });
const OrderEvent = builder.objectRef<EventRow>('order_events').implement({
  fields: (t) => ({
    kind: t.field({ type: EventKind, resolve: (row) => row.kind as OrderEventKind }),
    at: t.string({ resolve: (row) => iso(row.at)! }),
    byName: t.exposeString('byName'),
    comment: t.exposeString('comment'),
  }),
});

builder.objectField(OrderProcedure, 'checkpoints', (t) =>
  t.field({ type: [Checkpoint], resolve: (row, _args, context) => context.services.orderProcedure.checkpointsOfProcedure(row.id) }),
);
builder.objectField(RepairOrder, 'checkpoints', (t) =>
  t.field({ type: [Checkpoint], resolve: (row, _args, context) => context.services.orderProcedure.checkpointsOf(row.id) }),
);
builder.objectField(RepairOrder, 'events', (t) =>
  t.field({ type: [OrderEvent], resolve: (row, _args, context) => context.services.orderProcedure.eventsOf(row.id) }),
);

const AnswerInput = builder.inputType('order_checkpoints_input', {
  fields: (t) => ({ checkResult: t.field({ type: CheckResultType }), measuredValue: t.string(), comment: t.string() }),
});

builder.mutationField('answerOrderCheckpoint', (t) =>
  t.field({
    type: Checkpoint,
    args: { id: t.arg({ type: 'uuid', required: true }), version: t.arg.int({ required: true }), object: t.arg({ type: AnswerInput, required: true }) },
    resolve: (_root, args, context) => context.services.orderProcedure.answer(args.id, parse(checkpointAnswerSchema, args.object, 'object'), args.version),
  }),
);

builder.mutationField('closeRepairOrder', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), comment: t.arg.string() },
    resolve: (_root, args, context) => context.services.orderProcedure.close(args.id, parse(closeOrderSchema, { comment: args.comment }, 'object').comment),
  }),
);

builder.mutationField('reopenRepairOrder', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), comment: t.arg.string() },
    resolve: (_root, args, context) => context.services.orderProcedure.reopen(args.id, parse(closeOrderSchema, { comment: args.comment }, 'object').comment),
  }),
);

/** The order's checkpoints, again after every answer: what a second terminal on the same order sees. */
builder.subscriptionField('orderCheckpoints', (t) =>
  t.field({
    type: [Checkpoint],
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }) },
    subscribe: (_root, { repairOrderId: orderId }, context) => {
      const checkpointsOf = context.services.orderProcedure.checkpointsOf;
      return live(context, ['public.order_checkpoints', 'public.repair_orders'], `orderCheckpoints:${orderId}`, () => checkpointsOf(orderId));
    },
    resolve: (rows: CheckpointRow[]) => rows,
  }),
);

/**
 * The order's status, again after every change of it: an open procedure tab follows a closing or
 * a reopening done elsewhere (its answers are disabled or enabled at once). null: no such order.
 */
builder.subscriptionField('repairOrderStatus', (t) =>
  t.field({
    type: Status,
    nullable: true,
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }) },
    subscribe: (_root, { repairOrderId: orderId }, context) => {
      const get = context.services.repairOrders.get;
      return live(context, ['public.repair_orders'], `repairOrderStatus:${orderId}`, async () => {
        const order = await get(orderId);
        return order ? (order.status as 'IN_PROGRESS' | 'CLOSED') : null;
      });
    },
    resolve: (status: 'IN_PROGRESS' | 'CLOSED' | null) => status,
  }),
);
