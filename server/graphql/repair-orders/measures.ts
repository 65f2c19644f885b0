// The measures and checks of an order (SPEC §2.7 diagnostic, §3 measure): read by all, written by
// admins and diagnosticians. Files are stored through the storage API, then linked here.
import { checkResults, orderMeasureSchema, type CheckResult } from '#lib/repair-orders/measures.ts';
import type { OrderMeasureFileRow, OrderMeasuresService } from '#server/repair-orders/measures.ts';
import { builder } from '#server/graphql/builder.ts';
import { parse } from '#server/graphql/inputs.ts';
import { RepairOrder } from './index.ts';

type MeasureRow = NonNullable<Awaited<ReturnType<OrderMeasuresService['get']>>>;

/** SPEC §3 check result; procedure checkpoints share it. */
export const CheckResultType = builder.enumType('check_result', { values: checkResults });

const MeasureFile = builder.objectRef<OrderMeasureFileRow>('order_measure_files').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    comment: t.exposeString('comment'),
    createdAt: t.expose('createdAt', { type: 'timestamptz' }),
    fileId: t.expose('fileId', { type: 'uuid' }),
    name: t.exposeString('name'),
    mimeType: t.exposeString('mimeType'),
    size: t.exposeInt('size'),
  }),
});

const OrderMeasure = builder.objectRef<MeasureRow>('order_measures').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    repairOrderId: t.expose('orderId', { type: 'uuid' }),
    gearboxMeasureId: t.expose('gearboxMeasureId', { type: 'uuid', nullable: true }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    unit: t.exposeString('unit'),
    minimum: t.exposeFloat('minimum', { nullable: true }),
    maximum: t.exposeFloat('maximum', { nullable: true }),
    measuredValue: t.exposeFloat('measuredValue', { nullable: true }),
    checkResult: t.field({ type: CheckResultType, nullable: true, resolve: (row) => (row.checkResult as CheckResult | null) ?? null }),
    comment: t.exposeString('comment'),
    files: t.field({ type: [MeasureFile], resolve: (row) => row.files }),
    /** The order it was taken on (its number and status, for the measure's page). */
    repairOrder: t.field({
      type: RepairOrder,
      resolve: async (row, _args, context) => (await context.services.repairOrders.get(row.orderId))!,
    }),
  }),
});

builder.objectField(RepairOrder, 'measures', (t) =>
  t.field({ type: [OrderMeasure], resolve: (row, _args, context) => context.services.orderMeasures.measuresOf(row.id) }),
);

builder.queryField('orderMeasure', (t) =>
  t.field({
    type: OrderMeasure,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.orderMeasures.get(id)) ?? null,
  }),
);

const MeasureInput = builder.inputType('order_measures_input', {
  fields: (t) => ({
    /** The dossier's measure it copies; kept as it was on update. */
    gearboxMeasureId: t.field({ type: 'uuid' }),
    name: t.string({ required: true }),
    description: t.string(),
    unit: t.string(),
    minimum: t.float(),
    maximum: t.float(),
    measuredValue: t.float(),
    /** Absent: automatic, the bounds' proposal is stored. */
    checkResult: t.field({ type: CheckResultType }),
    comment: t.string(),
  }),
});

const Discarded = builder.objectRef<{ discarded: number; files: number }>('measures_done_result').implement({
  fields: (t) => ({ discarded: t.exposeInt('discarded'), files: t.exposeInt('files') }),
});

builder.mutationField('setMeasuresDone', (t) =>
  t.field({
    type: Discarded,
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), done: t.arg.boolean({ required: true }) },
    resolve: (_root, args, context) => context.services.orderMeasures.setMeasuresDone(args.repairOrderId, args.done),
  }),
);

builder.mutationField('insertOrderMeasure', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: MeasureInput, required: true }) },
    resolve: (_root, args, context) => context.services.orderMeasures.insertMeasure(args.repairOrderId, parse(orderMeasureSchema, args.object, 'object')),
  }),
);

builder.mutationField('insertDossierMeasures', (t) =>
  t.field({
    type: 'Int',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, args, context) => context.services.orderMeasures.insertDossierMeasures(args.repairOrderId),
  }),
);

builder.mutationField('updateOrderMeasure', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: MeasureInput, required: true }) },
    resolve: (_root, args, context) => context.services.orderMeasures.updateMeasure(args.id, parse(orderMeasureSchema, args.object, 'object')),
  }),
);

builder.mutationField('deleteOrderMeasure', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.orderMeasures.removeMeasure(id),
  }),
);

builder.mutationField('insertOrderMeasureFile', (t) =>
  t.field({
    type: 'uuid',
    args: { measureId: t.arg({ type: 'uuid', required: true }), fileId: t.arg({ type: 'uuid', required: true }), comment: t.arg.string() },
    resolve: (_root, args, context) => context.services.orderMeasures.attachFile(args.measureId, args.fileId, args.comment ?? ''),
  }),
);

builder.mutationField('deleteOrderMeasureFile', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.orderMeasures.removeFile(id),
  }),
);
