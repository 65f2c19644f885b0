// The model catalogue (decision 076): the models the screens' filters and selects offer, id and
// name only. Read on every request on PostgreSQL, where other instances write; kept in memory
// beside the embedded database, which this process alone opens, and dropped on every change of
// the models that reaches its notify_change trigger (any writer, any path).
import { asc } from 'drizzle-orm';
import { prepared } from '#server/db/prepared.ts';
import type { Database, Db } from '#server/db/client.ts';
import { gearboxModels } from '#server/db/schema/index.ts';
import { CHANGES_CHANNEL } from '#server/realtime/changes.ts';

/** How many models the selects offer, in the list's order (as the screens read them before). */
export const CATALOGUE_SIZE = 100;
const TABLE = '"public.gearbox_models"';

export type CatalogueEntry = Readonly<{ id: string; model: string }>;

export type ModelCatalogue = {
  read(): Promise<CatalogueEntry[]>;
  /** Drops what is kept: the service's own writes call it once committed. */
  invalidate(): void;
};

/** `watch`: the embedded database's LISTEN; without it nothing is kept. */
export function createModelCatalogue(db: Db, watch?: Database['listen']): ModelCatalogue {
  // Its SQL built once, on first use, and named (decision 082).
  const query = prepared(() =>
    db
      .select({ id: gearboxModels.id, model: gearboxModels.model })
      .from(gearboxModels)
      .orderBy(asc(gearboxModels.constructorName), asc(gearboxModels.model))
      .limit(CATALOGUE_SIZE),
  );
  const fresh = async (): Promise<CatalogueEntry[]> => (await query().execute()).map((row) => Object.freeze(row));
  let listening = false;
  let kept: Promise<CatalogueEntry[]> | null = null;
  const invalidate = () => {
    kept = null;
  };
  // Kept only once the notifications are heard. PGlite's thread sends a commit's notification
  // before the commit's own answer, so no request that follows a write reads what it replaced.
  watch?.(CHANGES_CHANNEL, (payload) => {
    if (payload.includes(TABLE)) invalidate();
  }).then(
    () => {
      listening = true;
    },
    () => undefined,
  );
  return {
    read: async () => {
      if (!listening) return fresh();
      if (!kept) {
        // Concurrent requests share one read; a failed one is not kept.
        const reading = fresh();
        kept = reading;
        reading.catch(() => {
          if (kept === reading) kept = null;
        });
      }
      // Each caller gets its own array: a screen may sort or filter it.
      return (await kept).slice();
    },
    invalidate,
  };
}
