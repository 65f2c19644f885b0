// The curves and logs recorded on a repair order (SPEC §3), each read against one of its model's
// reference curves, with their files; and the diagnostic files imported on the order. The bytes
// stay in the storage; a closed order takes no change.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { alias } from 'drizzle-orm/pg-core';
import { CURVE_BUCKET, curveFileMimeTypes, IMPORT_BUCKET, type OrderCurveInput } from '#lib/repair-orders/curves.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record, type Field } from '#server/audit/record.ts';
import { fieldLabel, fileNameOf, orderRef } from '#server/audit/refs.ts';
import { prepared } from '#server/db/prepared.ts';
import type { Db } from '#server/db/client.ts';
import { files, gearboxDocuments, orderCurves, orderFiles, repairOrders } from '#server/db/schema/index.ts';
import type { FileStore } from '#server/storage/store.ts';
import { openOrder, type Tx } from './open-order.ts';
import { dropStoredRows, linkOrderFile, removeStoredFiles } from './order-files.ts';
import { invalid, notFound } from '#server/errors.ts';

export type OrderCurvesService = ReturnType<typeof createOrderCurvesService>;
export type OrderFileKind = 'curve' | 'import';

const fileSelection = { id: files.id, name: files.name, mimeType: files.mimeType, size: files.size };
const referenceDocs = alias(gearboxDocuments, 'reference_documents');
const referenceFiles = alias(files, 'reference_files');
const procedureDocs = alias(gearboxDocuments, 'procedure_documents');
const procedureFiles = alias(files, 'procedure_files');

export function createOrderCurvesService(deps: { db: Db; files: FileStore }) {
  const { db } = deps;

  const filesQuery = () =>
    db
      .select({
        id: orderFiles.id,
        kind: orderFiles.kind,
        curveId: orderFiles.curveId,
        comment: orderFiles.comment,
        createdAt: orderFiles.createdAt,
        file: fileSelection,
      })
      .from(orderFiles)
      .innerJoin(files, eq(files.id, orderFiles.fileId));

  /** A chosen document must be one of the order's model, of the category the field asks for. */
  async function checkDocuments(tx: Tx, modelId: string, input: OrderCurveInput) {
    const wanted = [
      [input.referenceDocumentId, 'reference-curve', 'object.referenceDocumentId', t('curves.wrongReference')],
      [input.measureProcedureDocumentId, 'measure-procedure', 'object.measureProcedureDocumentId', t('curves.wrongProcedure')],
    ] as const;
    for (const [id, category, field, message] of wanted) {
      if (!id) continue;
      const [doc] = await tx
        .select({ modelId: gearboxDocuments.modelId, category: gearboxDocuments.category })
        .from(gearboxDocuments)
        .where(eq(gearboxDocuments.id, id));
      if (doc?.modelId !== modelId || doc.category !== category) throw invalid({ [field]: message });
    }
  }

  const valuesOf = (input: OrderCurveInput) => ({
    description: input.description,
    result: input.result,
    comment: input.comment,
    referenceDocumentId: input.referenceDocumentId ?? null,
    measureProcedureDocumentId: input.measureProcedureDocumentId ?? null,
  });

  /** The curve, its order locked and open. */
  async function openCurve(tx: Tx, id: string) {
    const [curve] = await tx.select().from(orderCurves).where(eq(orderCurves.id, id));
    if (!curve) throw notFound(t('curves.curveNotFound'));
    return { curve, order: await openOrder(tx, curve.orderId) };
  }

  /** Links a stored file to the order; it must have passed the bucket of its kind. */
  const link = (tx: Tx, values: { orderId: string; kind: OrderFileKind; curveId: string | null; fileId: string; comment: string }) =>
    linkOrderFile(
      tx,
      values,
      (file) => (values.kind === 'curve' ? file.bucketId === CURVE_BUCKET && curveFileMimeTypes.includes(file.mimeType) : file.bucketId === IMPORT_BUCKET),
      {
        notFound: t('curves.fileNotFound'),
        unsupported: t('validation.unsupportedFormat'),
        taken: t('curves.fileTaken'),
        field: 'object.fileId',
      },
    );

  const curveFields: Field<{ description: string; result: string; comment: string }>[] = [
    [fieldLabel('description'), (c) => c.description],
    [fieldLabel('result'), (c) => c.result],
    [fieldLabel('comment'), (c) => c.comment],
  ];

  const removeStored = (fileIds: string[]) => removeStoredFiles(deps.files, fileIds);

  // Flat columns: a left join that found nothing is a row of nulls, easy to tell. A row per
  // attached file (or one with none): the curves and their files in one read.
  const curvesQuery = prepared(() =>
    db
      .select({
        curve: {
          id: orderCurves.id,
          description: orderCurves.description,
          result: orderCurves.result,
          comment: orderCurves.comment,
          createdAt: orderCurves.createdAt,
        },
        referenceId: referenceDocs.id,
        referenceTitle: referenceDocs.title,
        referenceFile: { id: referenceFiles.id, name: referenceFiles.name, mimeType: referenceFiles.mimeType, size: referenceFiles.size },
        procedureId: procedureDocs.id,
        procedureTitle: procedureDocs.title,
        procedureFile: { id: procedureFiles.id, name: procedureFiles.name, mimeType: procedureFiles.mimeType, size: procedureFiles.size },
        attached: { id: orderFiles.id, kind: orderFiles.kind, curveId: orderFiles.curveId, comment: orderFiles.comment, createdAt: orderFiles.createdAt },
        attachedFile: fileSelection,
      })
      .from(orderCurves)
      .leftJoin(referenceDocs, eq(referenceDocs.id, orderCurves.referenceDocumentId))
      .leftJoin(referenceFiles, eq(referenceFiles.id, referenceDocs.fileId))
      .leftJoin(procedureDocs, eq(procedureDocs.id, orderCurves.measureProcedureDocumentId))
      .leftJoin(procedureFiles, eq(procedureFiles.id, procedureDocs.fileId))
      .leftJoin(orderFiles, and(eq(orderFiles.curveId, orderCurves.id), eq(orderFiles.orderId, orderCurves.orderId), eq(orderFiles.kind, 'curve')))
      .leftJoin(files, eq(files.id, orderFiles.fileId))
      .where(eq(orderCurves.orderId, sql.placeholder('orderId')))
      .orderBy(asc(orderCurves.createdAt), asc(orderCurves.id), asc(orderFiles.createdAt), asc(orderFiles.id)),
  );

  const service = {
    curvesOf: async (_viewer: Viewer, orderId: string) => {
      const rows = await curvesQuery().execute({ orderId });
      type StoredFile = { id: string; name: string; mimeType: string; size: number };
      const documentOf = (id: string | null, title: string | null, file: StoredFile | null) => (id && file ? { id, title: title ?? '', file } : null);
      const curves = new Map<string, ReturnType<typeof curveOf>>();
      const curveOf = (r: (typeof rows)[number]) => ({
        ...r.curve,
        reference: documentOf(r.referenceId, r.referenceTitle, r.referenceFile),
        measureProcedure: documentOf(r.procedureId, r.procedureTitle, r.procedureFile),
        files: [] as (NonNullable<(typeof rows)[number]['attached']> & { file: StoredFile })[],
      });
      for (const r of rows) {
        const curve = curves.get(r.curve.id) ?? curves.set(r.curve.id, curveOf(r)).get(r.curve.id)!;
        // An attached row whose stored file is gone (inner join before) is not listed.
        if (r.attached?.id && r.attachedFile?.id) curve.files.push({ ...r.attached, file: r.attachedFile });
      }
      return [...curves.values()];
    },

    importsOf: (_viewer: Viewer, orderId: string) =>
      filesQuery()
        .where(and(eq(orderFiles.orderId, orderId), eq(orderFiles.kind, 'import')))
        .orderBy(asc(orderFiles.createdAt), asc(orderFiles.id)),

    insertCurve: (_viewer: Viewer, orderId: string, input: OrderCurveInput) =>
      db.transaction(async (tx) => {
        const order = await openOrder(tx, orderId);
        await checkDocuments(tx, order.modelId, input);
        const [row] = await tx
          .insert(orderCurves)
          .values({ orderId, ...valuesOf(input) })
          .returning({ id: orderCurves.id });
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
        await record(tx, {
          action: 'created',
          entity: { kind: 'order_curve', id: row!.id, label: input.description },
          parent: orderRef(order),
          changes: changesOf(null, valuesOf(input), curveFields),
        });
        return row!.id;
      }),

    updateCurve: (_viewer: Viewer, id: string, input: OrderCurveInput) =>
      db.transaction(async (tx) => {
        const { order, curve } = await openCurve(tx, id);
        await checkDocuments(tx, order.modelId, input);
        await tx.update(orderCurves).set(valuesOf(input)).where(eq(orderCurves.id, id));
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, order.id));
        const changes = changesOf(curve, valuesOf(input), curveFields);
        if (changes.length)
          await record(tx, { action: 'changed', entity: { kind: 'order_curve', id, label: curve.description }, parent: orderRef(order), changes });
        return id;
      }),

    /** The curve, its links and its stored files. */
    removeCurve: async (_viewer: Viewer, id: string) => {
      const fileIds = await db.transaction(async (tx) => {
        const { curve, order } = await openCurve(tx, id);
        const rows = await tx.select({ fileId: orderFiles.fileId }).from(orderFiles).where(eq(orderFiles.curveId, id));
        await tx.delete(orderCurves).where(eq(orderCurves.id, id));
        await record(tx, { action: 'deleted', entity: { kind: 'order_curve', id, label: curve.description }, parent: orderRef(order) });
        await dropStoredRows(
          tx,
          rows.map((r) => r.fileId),
        );
        return rows.map((r) => r.fileId);
      });
      await removeStored(fileIds);
      return id;
    },

    /** Either kind, as the API's insertOrderFile gives it; a curve file names a curve of the order. */
    insertFile: (_viewer: Viewer, orderId: string, input: { fileId: string; kind: OrderFileKind; curveId?: string | null; comment?: string | null }) => {
      if (input.kind === 'import') {
        return db.transaction(async (tx) => {
          await openOrder(tx, orderId);
          return link(tx, { orderId, kind: 'import', curveId: null, fileId: input.fileId, comment: input.comment ?? '' });
        });
      }
      if (!input.curveId) return Promise.reject(invalid({ 'object.curveId': t('validation.required') }));
      return db.transaction(async (tx) => {
        const { curve } = await openCurve(tx, input.curveId!);
        if (curve.orderId !== orderId) throw notFound(t('curves.curveNotFound'));
        return link(tx, { orderId, kind: 'curve', curveId: curve.id, fileId: input.fileId, comment: input.comment ?? '' });
      });
    },

    /** A curve's file or an imported file: the link, then the stored file. */
    removeFile: async (_viewer: Viewer, id: string) => {
      const fileId = await db.transaction(async (tx) => {
        const [row] = await tx.select().from(orderFiles).where(eq(orderFiles.id, id));
        if (!row || (row.kind !== 'curve' && row.kind !== 'import')) throw notFound(t('curves.fileNotFound'));
        const order = await openOrder(tx, row.orderId);
        await record(tx, { action: 'deleted', entity: { kind: 'order_file', id, label: await fileNameOf(tx, row.fileId) }, parent: orderRef(order) });
        await dropStoredRows(tx, [row.fileId]);
        return row.fileId;
      });
      await removeStored([fileId]);
      return id;
    },
  };
  return service;
}

/** Who may call what (decision 061). An order's curves and imported files: read by all, written by admins and diagnosticians. */
export const orderCurvesPermissions = {
  curvesOf: 'signedIn',
  importsOf: 'signedIn',
  insertCurve: 'manageOrders',
  updateCurve: 'manageOrders',
  removeCurve: 'manageOrders',
  insertFile: 'manageOrders',
  removeFile: 'manageOrders',
} as const satisfies PermissionTable<OrderCurvesService>;
