// Committed changes of watched tables, announced by the notify_change trigger (migration
// 0001) over LISTEN/NOTIFY: two instances on one PostgreSQL see each other's writes.
import type { Database } from '#server/db/client.ts';

export const CHANGES_CHANNEL = 'atelier_changes';
/** Bursts (an import, a batch) wake each listener once. */
const COALESCE_MS = 25;

export type Changes = {
  /** Calls `listener` after changes to any of `tables`; returns the unsubscribe function. */
  onChange(tables: readonly string[], listener: () => void): () => void;
  close(): Promise<void>;
};

export async function createChanges(database: Database): Promise<Changes> {
  const listeners = new Set<{ tables: ReadonlySet<string>; fire: () => void }>();
  const stop = await database.listen(
    CHANGES_CHANNEL,
    (payload) => {
      let table: string | undefined;
      try {
        table = (JSON.parse(payload) as { table?: string }).table;
      } catch {
        return;
      }
      for (const listener of listeners) if (table && listener.tables.has(table)) listener.fire();
    },
    // Back after an outage: what changed meanwhile was not announced, every live result runs again.
    () => {
      for (const listener of listeners) listener.fire();
    },
  );
  return {
    onChange(tables, callback) {
      let timer: NodeJS.Timeout | undefined;
      const entry = {
        tables: new Set(tables),
        fire: () => {
          timer ??= setTimeout(() => {
            timer = undefined;
            callback();
          }, COALESCE_MS);
        },
      };
      listeners.add(entry);
      return () => {
        clearTimeout(timer);
        listeners.delete(entry);
      };
    },
    close: async () => {
      listeners.clear();
      await stop();
    },
  };
}
