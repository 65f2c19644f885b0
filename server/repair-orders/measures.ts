// The measures and checks of a repair order: were measures taken, the measures (copied from the
// model's dossier or typed) with their values, results and files. Answering "no" discards the
// measures and their files; a closed order takes no change.
import { and, asc, eq, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { proposeCheckResult, type OrderMeasureInput } from '#lib/repair-orders/measures.ts';
import { UNSUPPORTED_FORMAT } from '#lib/storage/files.ts';
import { prepared } from '#server/db/prepared.ts';
import type { Db } from '#server/db/client.ts';
import { files, gearboxMeasures, orderFiles, orderMeasures, repairOrders } from '#server/db/schema/index.ts';
import type { FileStore } from '#server/storage/store.ts';
import { versionOf } from './versions.ts';
import { openOrder, type Tx } from './open-order.ts';
import { dropStoredRows, linkedFileIds, linkOrderFile, removeStoredFiles } from './order-files.ts';
import { conflict, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record } from '#server/audit/record.ts';
import { fieldLabel, fileNameOf, measureFields, orderRef } from '#server/audit/refs.ts';

export type OrderMeasuresService = ReturnType<typeof createOrderMeasuresService>;

const DONE_REQUIRED = t('orderMeasures.doneRequired');
const MEASURE_FILE = 'measure';

const fileSelection = {
  id: orderFiles.id,
  measureId: orderFiles.measureId,
  comment: orderFiles.comment,
  createdAt: orderFiles.createdAt,
  fileId: files.id,
  name: files.name,
  mimeType: files.mimeType,
  size: files.size,
};
export type OrderMeasureFileRow = {
  id: string;
  measureId: string | null;
  comment: string;
  createdAt: Date;
  fileId: string;
  name: string;
  mimeType: string;
  size: number;
};

export function createOrderMeasuresService(deps: { db: Db; files?: FileStore }) {
  const { db } = deps;

  /**
   * A measure's row and its order, locked: the order first, as every write of the order's measures
   * does (no deadlock), then the measure read again, so a save that waited reads what the one
   * before it wrote.
   */
  async function measureOf(tx: Tx, id: string) {
    const [found] = await tx.select({ orderId: orderMeasures.orderId }).from(orderMeasures).where(eq(orderMeasures.id, id));
    if (!found) throw notFound(t('refusals.measureNotFound'));
    const order = await openOrder(tx, found.orderId);
    const [current] = await tx.select().from(orderMeasures).where(eq(orderMeasures.id, id));
    if (!current) throw notFound(t('refusals.measureNotFound'));
    return { current, order };
  }

  /** What the measure's form saves, as versions.ts digests it. */
  const versionOfMeasure = (row: typeof orderMeasures.$inferSelect) =>
    versionOf([row.name, row.description, row.unit, row.minimum, row.maximum, row.measuredValue, row.checkResult, row.checkResultChosen, row.comment]);

  /** Automatic (no result given) stores what the bounds propose; a result given is kept as chosen, even when the bounds propose the same. */
  const valuesOf = (input: OrderMeasureInput) => {
    const minimum = input.minimum ?? null;
    const maximum = input.maximum ?? null;
    const measuredValue = input.measuredValue ?? null;
    return {
      name: input.name,
      description: input.description,
      unit: input.unit,
      minimum,
      maximum,
      measuredValue,
      checkResult: input.checkResult ?? proposeCheckResult(measuredValue, minimum, maximum),
      checkResultChosen: input.checkResult !== undefined,
      comment: input.comment,
    };
  };

  const removeBytes = (fileIds: string[]) => removeStoredFiles(deps.files, fileIds);

  const filesOf = (where: SQL) =>
    db
      .select(fileSelection)
      .from(orderFiles)
      .innerJoin(files, eq(files.id, orderFiles.fileId))
      .where(and(eq(orderFiles.kind, MEASURE_FILE), where))
      .orderBy(asc(orderFiles.createdAt));

  /** The order's measures, each row with one of its files (or none): one read where two were. */
  const measuresQuery = prepared(() =>
    db
      .select({ measure: orderMeasures, file: fileSelection })
      .from(orderMeasures)
      .leftJoin(orderFiles, and(eq(orderFiles.measureId, orderMeasures.id), eq(orderFiles.orderId, orderMeasures.orderId), eq(orderFiles.kind, MEASURE_FILE)))
      .leftJoin(files, eq(files.id, orderFiles.fileId))
      .where(eq(orderMeasures.orderId, sql.placeholder('orderId')))
      .orderBy(asc(orderMeasures.createdAt), asc(orderMeasures.name), asc(orderMeasures.id), asc(orderFiles.createdAt), asc(orderFiles.id)),
  );

  const withFiles = (rows: (typeof orderMeasures.$inferSelect)[], fileRows: OrderMeasureFileRow[]) =>
    rows.map((row) => ({ ...row, version: versionOfMeasure(row), files: fileRows.filter((f) => f.measureId === row.id) }));

  return {
    /** The order's measures in the order they were added, each with its files. */
    measuresOf: async (_viewer: Viewer, orderId: string) => {
      const rows = await measuresQuery().execute({ orderId });
      const measures = new Map<string, typeof orderMeasures.$inferSelect>();
      const fileRows: OrderMeasureFileRow[] = [];
      for (const { measure, file } of rows) {
        measures.set(measure.id, measure);
        // An order file whose stored file is gone (inner join before) is not listed.
        if (file?.id && file.fileId) fileRows.push(file as OrderMeasureFileRow);
      }
      return withFiles([...measures.values()], fileRows);
    },

    get: async (_viewer: Viewer, id: string) => {
      const [row] = await db.select().from(orderMeasures).where(eq(orderMeasures.id, id));
      return row ? withFiles([row], await filesOf(eq(orderFiles.measureId, id)))[0] : undefined;
    },

    /** "Were measures taken": answering no discards the measures and their files (SPEC §4). */
    setMeasuresDone: async (_viewer: Viewer, orderId: string, done: boolean) => {
      const result = await db.transaction(async (tx) => {
        const order = await openOrder(tx, orderId);
        let discarded: { id: string; name: string }[] = [];
        let fileIds: string[] = [];
        if (!done) {
          // The measures' files and photos (with their thumbnails).
          fileIds = await linkedFileIds(tx, and(eq(orderFiles.orderId, orderId), isNotNull(orderFiles.measureId)));
          discarded = await tx.delete(orderMeasures).where(eq(orderMeasures.orderId, orderId)).returning({ id: orderMeasures.id, name: orderMeasures.name });
          await dropStoredRows(tx, fileIds);
        }
        await tx.update(repairOrders).set({ measuresDone: done, updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
        for (const m of discarded) await record(tx, { action: 'deleted', entity: { kind: 'order_measure', id: m.id, label: m.name }, parent: orderRef(order) });
        if (order.measuresDone !== done)
          await record(tx, {
            action: 'changed',
            entity: orderRef(order),
            changes: changesOf({ v: order.measuresDone }, { v: done }, [[fieldLabel('measuresDone'), (r) => r.v]]),
          });
        return { discarded, fileIds };
      });
      await removeBytes(result.fileIds);
      return { discarded: result.discarded.length, measures: result.discarded.map((m) => m.name), files: result.fileIds.length };
    },

    insertMeasure: (_viewer: Viewer, orderId: string, input: OrderMeasureInput) =>
      db.transaction(async (tx) => {
        const order = await openOrder(tx, orderId);
        if (order.measuresDone !== true) throw conflict('measures-off', DONE_REQUIRED);
        if (input.gearboxMeasureId) {
          const [known] = await tx.select({ m: gearboxMeasures.modelId }).from(gearboxMeasures).where(eq(gearboxMeasures.id, input.gearboxMeasureId));
          if (known?.m !== order.modelId) throw invalid({ 'object.gearboxMeasureId': t('orderMeasures.unknownMeasure') });
        }
        const [row] = await tx
          .insert(orderMeasures)
          .values({ orderId, gearboxMeasureId: input.gearboxMeasureId ?? null, ...valuesOf(input) })
          .returning({ id: orderMeasures.id });
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
        const values = valuesOf(input);
        await record(tx, {
          action: 'created',
          entity: { kind: 'order_measure', id: row!.id, label: values.name },
          parent: orderRef(order),
          changes: changesOf(null, values, measureFields),
        });
        return row!.id;
      }),

    /** Every measure of the model's dossier not yet on the order, in one go; answers how many. */
    insertDossierMeasures: (_viewer: Viewer, orderId: string) =>
      db.transaction(async (tx) => {
        const order = await openOrder(tx, orderId);
        if (order.measuresDone !== true) throw conflict('measures-off', DONE_REQUIRED);
        const taken = await tx
          .select({ id: orderMeasures.gearboxMeasureId })
          .from(orderMeasures)
          .where(and(eq(orderMeasures.orderId, orderId), isNotNull(orderMeasures.gearboxMeasureId)));
        const known = new Set(taken.map((r) => r.id));
        const dossier = await tx.select().from(gearboxMeasures).where(eq(gearboxMeasures.modelId, order.modelId)).orderBy(asc(gearboxMeasures.name));
        const missing = dossier.filter((m) => !known.has(m.id));
        if (!missing.length) return 0;
        const added = await tx
          .insert(orderMeasures)
          .values(
            missing.map((m) => ({
              orderId,
              gearboxMeasureId: m.id,
              name: m.name,
              description: m.description,
              unit: m.unit,
              minimum: m.minimum,
              maximum: m.maximum,
            })),
          )
          .returning();
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
        for (const m of added)
          await record(tx, {
            action: 'created',
            entity: { kind: 'order_measure', id: m.id, label: m.name },
            parent: orderRef(order),
            changes: changesOf(null, m, measureFields),
          });
        return missing.length;
      }),

    /**
     * The link to the dossier's measure stays what it was. `version`: what the page's form was
     * filled over (the API's clients save as before).
     */
    updateMeasure: (_viewer: Viewer, id: string, input: OrderMeasureInput, version?: string) =>
      db.transaction(async (tx) => {
        const { current, order } = await measureOf(tx, id);
        if (version !== undefined && versionOfMeasure(current) !== version) throw conflict('stale', t('orderMeasures.changedMeanwhile'));
        await tx.update(orderMeasures).set(valuesOf(input)).where(eq(orderMeasures.id, id));
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, current.orderId));
        const changes = changesOf(current, valuesOf(input), measureFields);
        if (changes.length)
          await record(tx, { action: 'changed', entity: { kind: 'order_measure', id, label: current.name }, parent: orderRef(order), changes });
        return id;
      }),

    removeMeasure: async (_viewer: Viewer, id: string) => {
      const fileIds = await db.transaction(async (tx) => {
        const { current, order } = await measureOf(tx, id);
        const linked = await linkedFileIds(tx, eq(orderFiles.measureId, id));
        await tx.delete(orderMeasures).where(eq(orderMeasures.id, id));
        await record(tx, { action: 'deleted', entity: { kind: 'order_measure', id, label: current.name }, parent: orderRef(order) });
        await dropStoredRows(tx, linked);
        return linked;
      });
      await removeBytes(fileIds);
      return id;
    },

    /** Links a stored file to a measure; it must have passed the measure bucket (SPEC §5). */
    attachFile: (_viewer: Viewer, measureId: string, fileId: string, comment = '') =>
      db.transaction(async (tx) => {
        const { current } = await measureOf(tx, measureId);
        return linkOrderFile(tx, { orderId: current.orderId, kind: MEASURE_FILE, measureId, fileId, comment }, (file) => file.bucketId === 'measure', {
          notFound: t('refusals.fileNotFound'),
          unsupported: UNSUPPORTED_FORMAT,
          taken: t('curves.fileTaken'),
          field: 'fileId',
        });
      }),

    /** The link and the stored file both go. */
    removeFile: async (_viewer: Viewer, id: string) => {
      const fileId = await db.transaction(async (tx) => {
        const [link] = await tx
          .select()
          .from(orderFiles)
          .where(and(eq(orderFiles.id, id), eq(orderFiles.kind, MEASURE_FILE)));
        if (!link) throw notFound(t('refusals.fileNotFound'));
        const order = await openOrder(tx, link.orderId);
        await record(tx, { action: 'deleted', entity: { kind: 'order_file', id, label: await fileNameOf(tx, link.fileId) }, parent: orderRef(order) });
        await dropStoredRows(tx, [link.fileId]);
        return link.fileId;
      });
      await removeBytes([fileId]);
      return id;
    },
  };
}

/** Who may call what (decision 061). An order's measures: read by all, written by admins and diagnosticians. */
export const orderMeasuresPermissions = {
  measuresOf: 'signedIn',
  get: 'signedIn',
  setMeasuresDone: 'manageOrders',
  insertMeasure: 'manageOrders',
  insertDossierMeasures: 'manageOrders',
  updateMeasure: 'manageOrders',
  removeMeasure: 'manageOrders',
  attachFile: 'manageOrders',
  removeFile: 'manageOrders',
} as const satisfies PermissionTable<OrderMeasuresService>;
