// Measures of a model: name, description, unit and bounds; their files are dossier documents.
import { asc, eq } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import type { MeasureInput } from '#lib/gearboxes/measures.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { gearboxDocuments, gearboxMeasures } from '#server/db/schema/index.ts';
import type { FileStore } from '#server/storage/store.ts';
import { notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record } from '#server/audit/record.ts';
import { gearboxModelRefOf, measureFields } from '#server/audit/refs.ts';

export type GearboxMeasuresService = ReturnType<typeof createGearboxMeasuresService>;

const toRow = (input: MeasureInput) => ({ ...input, minimum: input.minimum ?? null, maximum: input.maximum ?? null });

export function createGearboxMeasuresService(deps: { db: Db; files: FileStore }) {
  const { db } = deps;
  return {
    listOf: (_viewer: Viewer, modelId: string) =>
      db.select().from(gearboxMeasures).where(eq(gearboxMeasures.modelId, modelId)).orderBy(asc(gearboxMeasures.name)),

    get: async (_viewer: Viewer, id: string) => (await db.select().from(gearboxMeasures).where(eq(gearboxMeasures.id, id)).limit(1))[0],

    insert: async (_viewer: Viewer, modelId: string, input: MeasureInput) =>
      db
        .transaction(async (tx) => {
          const [row] = await tx
            .insert(gearboxMeasures)
            .values({ modelId, ...toRow(input) })
            .returning();
          await record(tx, {
            action: 'created',
            entity: { kind: 'gearbox_measure', id: row!.id, label: row!.name },
            parent: await gearboxModelRefOf(tx, modelId),
            changes: changesOf(null, row!, measureFields),
          });
          return row!;
        })
        .catch((error: unknown) => {
          if (pgCode(error) === '23503') throw notFound(t('refusals.modelNotFound'));
          throw error;
        }),

    update: async (_viewer: Viewer, id: string, input: MeasureInput) =>
      db.transaction(async (tx) => {
        const [before] = await tx.select().from(gearboxMeasures).where(eq(gearboxMeasures.id, id)).for('update');
        if (!before) throw notFound(t('refusals.measureNotFound'));
        const [row] = await tx
          .update(gearboxMeasures)
          .set({ ...toRow(input), updatedAt: new Date() })
          .where(eq(gearboxMeasures.id, id))
          .returning();
        const changes = changesOf(before, row!, measureFields);
        if (changes.length)
          await record(tx, {
            action: 'changed',
            entity: { kind: 'gearbox_measure', id, label: row!.name },
            parent: await gearboxModelRefOf(tx, row!.modelId),
            changes,
          });
        return row!;
      }),

    /** The measure's files go with it: the documents' rows cascade, then the stored files go. */
    remove: async (_viewer: Viewer, id: string) => {
      const files = await db.select({ id: gearboxDocuments.fileId }).from(gearboxDocuments).where(eq(gearboxDocuments.measureId, id));
      const row = await db.transaction(async (tx) => {
        const [deleted] = await tx.delete(gearboxMeasures).where(eq(gearboxMeasures.id, id)).returning();
        if (!deleted) throw notFound(t('refusals.measureNotFound'));
        await record(tx, {
          action: 'deleted',
          entity: { kind: 'gearbox_measure', id, label: deleted.name },
          parent: await gearboxModelRefOf(tx, deleted.modelId),
        });
        return deleted;
      });
      for (const file of files) await deps.files.remove(file.id);
      return row;
    },
  };
}

/** Who may call what (decision 061). A dossier's measures: read by all, written by admins and diagnosticians. */
export const gearboxMeasuresPermissions = {
  listOf: 'signedIn',
  get: 'signedIn',
  insert: 'manageGearboxModels',
  update: 'manageGearboxModels',
  remove: 'manageGearboxModels',
} as const satisfies PermissionTable<GearboxMeasuresService>;
