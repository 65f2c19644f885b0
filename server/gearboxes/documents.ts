// The files of a dossier: a stored file (storage API) linked to a model, and maybe to one of its
// outages or measures, under a category whose bucket rules the file must have passed.
import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { bucketOf, type DocumentCategory, type DocumentInput } from '#lib/gearboxes/documents.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { files, gearboxDocuments, gearboxMeasures, outages } from '#server/db/schema/index.ts';
import type { FileStore } from '#server/storage/store.ts';
import { conflict, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record } from '#server/audit/record.ts';
import { gearboxModelRefOf, fieldLabel } from '#server/audit/refs.ts';

export type GearboxDocumentsService = ReturnType<typeof createGearboxDocumentsService>;

const selection = {
  id: gearboxDocuments.id,
  modelId: gearboxDocuments.modelId,
  outageId: gearboxDocuments.outageId,
  measureId: gearboxDocuments.measureId,
  category: gearboxDocuments.category,
  title: gearboxDocuments.title,
  comment: gearboxDocuments.comment,
  createdAt: gearboxDocuments.createdAt,
  file: { id: files.id, name: files.name, mimeType: files.mimeType, size: files.size, bucketId: files.bucketId },
};

export type DocumentOwner = { modelId: string; outageId?: string | null; measureId?: string | null };

export function createGearboxDocumentsService(deps: { db: Db; files: FileStore }) {
  const { db } = deps;
  const query = () => db.select(selection).from(gearboxDocuments).innerJoin(files, eq(files.id, gearboxDocuments.fileId));

  /** The model an outage or measure belongs to must be the document's. */
  async function checkOwner(owner: DocumentOwner, category: DocumentCategory) {
    if ((category === 'outage-file') !== !!owner.outageId || (category === 'measure-file') !== !!owner.measureId) {
      throw invalid({ 'object.category': t('refusals.invalidCategory') });
    }
    if (owner.outageId) {
      const [row] = await db.select({ m: outages.modelId }).from(outages).where(eq(outages.id, owner.outageId));
      if (row?.m !== owner.modelId) throw notFound(t('refusals.outageNotFound'));
    }
    if (owner.measureId) {
      const [row] = await db.select({ m: gearboxMeasures.modelId }).from(gearboxMeasures).where(eq(gearboxMeasures.id, owner.measureId));
      if (row?.m !== owner.modelId) throw notFound(t('refusals.measureNotFound'));
    }
  }

  return {
    /** The model's own documents (not those of its outages and measures), newest first. */
    ofModel: (_viewer: Viewer, modelId: string) =>
      query()
        .where(and(eq(gearboxDocuments.modelId, modelId), isNull(gearboxDocuments.outageId), isNull(gearboxDocuments.measureId)))
        .orderBy(asc(gearboxDocuments.category), desc(gearboxDocuments.createdAt)),

    ofOutage: (_viewer: Viewer, outageId: string) => query().where(eq(gearboxDocuments.outageId, outageId)).orderBy(asc(gearboxDocuments.createdAt)),

    ofMeasure: (_viewer: Viewer, measureId: string) => query().where(eq(gearboxDocuments.measureId, measureId)).orderBy(asc(gearboxDocuments.createdAt)),

    get: async (_viewer: Viewer, id: string) => (await query().where(eq(gearboxDocuments.id, id)).limit(1))[0],

    /** Links an uploaded file; it must have passed its category's bucket (a reference curve is a CSV). */
    insert: async (_viewer: Viewer, owner: DocumentOwner, fileId: string, input: DocumentInput) => {
      await checkOwner(owner, input.category);
      const [file] = await db.select().from(files).where(eq(files.id, fileId)).limit(1);
      if (!file) throw notFound(t('refusals.fileNotFound'));
      if (file.bucketId !== bucketOf(input.category) || (input.category === 'reference-curve' && file.mimeType !== 'text/csv')) {
        throw invalid({ fileId: t('validation.unsupportedFormat') }, 'unsupported-format');
      }
      const [row] = await db
        .transaction(async (tx) => {
          const rows = await tx
            .insert(gearboxDocuments)
            .values({
              modelId: owner.modelId,
              outageId: owner.outageId ?? null,
              measureId: owner.measureId ?? null,
              fileId,
              ...input,
              title: input.title || file.name,
            })
            .returning();
          await record(tx, {
            action: 'created',
            entity: { kind: 'document', id: rows[0]!.id, label: rows[0]!.title },
            parent: await gearboxModelRefOf(tx, owner.modelId),
            changes: [{ field: fieldLabel('file'), before: '', after: file.name }],
          });
          return rows;
        })
        .catch((error: unknown) => {
          if (pgCode(error) === '23505') throw conflict('file-linked', t('curves.fileTaken'));
          if (pgCode(error) === '23503') throw notFound(t('refusals.modelNotFound'));
          throw error;
        });
      return row!.id;
    },

    update: async (_viewer: Viewer, id: string, input: { title: string; comment: string }) => {
      return db.transaction(async (tx) => {
        const [before] = await tx.select().from(gearboxDocuments).where(eq(gearboxDocuments.id, id)).for('update');
        if (!before) throw notFound(t('refusals.documentNotFound'));
        const [row] = await tx.update(gearboxDocuments).set(input).where(eq(gearboxDocuments.id, id)).returning();
        const changes = changesOf(before, row!, [
          [fieldLabel('title'), (d) => d.title],
          [fieldLabel('comment'), (d) => d.comment],
        ]);
        if (changes.length)
          await record(tx, {
            action: 'changed',
            entity: { kind: 'document', id, label: row!.title },
            parent: await gearboxModelRefOf(tx, row!.modelId),
            changes,
          });
        return row!.id;
      });
    },

    /** The link and the stored file both go. */
    remove: async (_viewer: Viewer, id: string) => {
      const row = await db.transaction(async (tx) => {
        const [deleted] = await tx.delete(gearboxDocuments).where(eq(gearboxDocuments.id, id)).returning();
        if (!deleted) throw notFound(t('refusals.documentNotFound'));
        await record(tx, { action: 'deleted', entity: { kind: 'document', id, label: deleted.title }, parent: await gearboxModelRefOf(tx, deleted.modelId) });
        return deleted;
      });
      await deps.files.remove(row.fileId);
      return row;
    },
  };
}

/** Who may call what (decision 061). A dossier's documents: read by all, written by admins and diagnosticians. */
export const gearboxDocumentsPermissions = {
  ofModel: 'signedIn',
  ofOutage: 'signedIn',
  ofMeasure: 'signedIn',
  get: 'signedIn',
  insert: 'manageGearboxModels',
  update: 'manageGearboxModels',
  remove: 'manageGearboxModels',
} as const satisfies PermissionTable<GearboxDocumentsService>;
