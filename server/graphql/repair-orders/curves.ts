// The curves and logs of an order and its imported diagnostic files (SPEC §2.7 diagnostic, §3
// curve/log): read by all, written by admins and diagnosticians. Files are stored through the
// storage API first, then linked here.
import { orderCurveSchema } from '#lib/repair-orders/curves.ts';
import type { OrderCurvesService } from '#server/repair-orders/curves.ts';
import { builder } from '#server/graphql/builder.ts';
import { parse } from '#server/graphql/inputs.ts';
import { RepairOrder } from './index.ts';

type CurveRow = Awaited<ReturnType<OrderCurvesService['curvesOf']>>[number];
type FileRow = CurveRow['files'][number];
type LinkedDocument = NonNullable<CurveRow['reference']>;

const FileKind = builder.enumType('order_file_kind', { values: ['curve', 'import'] as const });

const StoredFile = builder.objectRef<FileRow['file']>('order_stored_files').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    name: t.exposeString('name'),
    mimeType: t.exposeString('mimeType'),
    size: t.exposeInt('size'),
  }),
});

const OrderFile = builder.objectRef<FileRow>('order_files').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    kind: t.field({ type: FileKind, resolve: (row) => row.kind as 'curve' | 'import' }),
    curveId: t.expose('curveId', { type: 'uuid', nullable: true }),
    comment: t.exposeString('comment'),
    createdAt: t.expose('createdAt', { type: 'timestamptz' }),
    file: t.field({ type: StoredFile, resolve: (row) => row.file }),
  }),
});

const CurveDocument = builder.objectRef<LinkedDocument>('order_curve_documents').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    title: t.exposeString('title'),
    file: t.field({ type: StoredFile, resolve: (row) => row.file }),
  }),
});

const OrderCurve = builder.objectRef<CurveRow>('order_curves').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    description: t.exposeString('description'),
    result: t.exposeString('result'),
    comment: t.exposeString('comment'),
    createdAt: t.expose('createdAt', { type: 'timestamptz' }),
    reference: t.field({ type: CurveDocument, nullable: true, resolve: (row) => row.reference }),
    measureProcedure: t.field({ type: CurveDocument, nullable: true, resolve: (row) => row.measureProcedure }),
    files: t.field({ type: [OrderFile], resolve: (row) => row.files }),
  }),
});

builder.objectField(RepairOrder, 'curves', (t) =>
  t.field({ type: [OrderCurve], resolve: (row, _args, context) => context.services.orderCurves.curvesOf(row.id) }),
);
builder.objectField(RepairOrder, 'diagnosticFiles', (t) =>
  t.field({ type: [OrderFile], resolve: (row, _args, context) => context.services.orderCurves.importsOf(row.id) }),
);

const CurveInput = builder.inputType('order_curves_input', {
  fields: (t) => ({
    description: t.string({ required: true }),
    result: t.string(),
    comment: t.string(),
    referenceDocumentId: t.field({ type: 'uuid' }),
    measureProcedureDocumentId: t.field({ type: 'uuid' }),
  }),
});

const FileInput = builder.inputType('order_files_input', {
  fields: (t) => ({
    fileId: t.field({ type: 'uuid', required: true }),
    kind: t.field({ type: FileKind, required: true }),
    curveId: t.field({ type: 'uuid' }),
    comment: t.string(),
  }),
});

builder.mutationField('insertOrderCurve', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: CurveInput, required: true }) },
    resolve: (_root, args, context) => context.services.orderCurves.insertCurve(args.repairOrderId, parse(orderCurveSchema, args.object, 'object')),
  }),
);

builder.mutationField('updateOrderCurve', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: CurveInput, required: true }) },
    resolve: (_root, args, context) => context.services.orderCurves.updateCurve(args.id, parse(orderCurveSchema, args.object, 'object')),
  }),
);

/** The curve, its files and their stored bytes. */
builder.mutationField('deleteOrderCurve', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.orderCurves.removeCurve(id),
  }),
);

builder.mutationField('insertOrderFile', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: FileInput, required: true }) },
    resolve: (_root, { repairOrderId, object }, context) => context.services.orderCurves.insertFile(repairOrderId, object),
  }),
);

/** The link and the stored file go together. */
builder.mutationField('deleteOrderFile', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.orderCurves.removeFile(id),
  }),
);
