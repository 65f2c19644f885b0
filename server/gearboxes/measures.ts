// Measures of a model: name, description, unit and bounds; their files are dossier documents.
import { asc, eq } from 'drizzle-orm';
import type { MeasureInput } from '#lib/gearboxes/measures.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { gearboxMeasures } from '#server/db/schema/index.ts';
import { notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';

export type MeasuresService = ReturnType<typeof createMeasuresService>;

const toRow = (input: MeasureInput) => ({ ...input, minimum: input.minimum ?? null, maximum: input.maximum ?? null });

export function createMeasuresService(deps: { db: Db }) {
  const { db } = deps;
  return {
    listOf: (gearboxModelId: string) =>
      db.select().from(gearboxMeasures).where(eq(gearboxMeasures.gearboxModelId, gearboxModelId)).orderBy(asc(gearboxMeasures.name)),

    get: async (id: string) => (await db.select().from(gearboxMeasures).where(eq(gearboxMeasures.id, id)).limit(1))[0],

    insert: async (gearboxModelId: string, input: MeasureInput) => {
      const [row] = await db
        .insert(gearboxMeasures)
        .values({ gearboxModelId, ...toRow(input) })
        .returning()
        .catch((error: unknown) => {
          if (pgCode(error) === '23503') throw notFound(t('refusals.modelNotFound'));
          throw error;
        });
      return row!;
    },

    update: async (id: string, input: MeasureInput) => {
      const [row] = await db
        .update(gearboxMeasures)
        .set({ ...toRow(input), updatedAt: new Date() })
        .where(eq(gearboxMeasures.id, id))
        .returning();
      if (!row) throw notFound(t('refusals.measureNotFound'));
      return row;
    },

    /** The measure's files go with it (the documents' rows cascade; the bytes are removed by the caller). */
    remove: async (id: string) => {
      const [row] = await db.delete(gearboxMeasures).where(eq(gearboxMeasures.id, id)).returning();
      if (!row) throw notFound(t('refusals.measureNotFound'));
      return row;
    },
  };
}
