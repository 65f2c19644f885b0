// PGlite runs no autovacuum (decision 085): the server does its work. Without it a row updated or
// deleted (an order, a session) stays on disk for good (a table 2,000 rows a day pass through:
// 8.5 MB after 30 days, 216 KB vacuumed daily), and no page is ever known all-visible.
import type { Logger } from '../log.ts';
import type { PGliteThread } from './pglite-thread.ts';

/** A vacuum reads only the pages written since the last: 30 ms an hour with 100,000 orders. */
const VACUUM_EVERY_MS = 60 * 60_000;
/** Statistics from a sample of every table, once a day: 0.5–0.7 s with 100,000 orders. */
const ANALYZE_EVERY = 24;

/** What the server runs at start, after the migrations: the whole of both. */
export const START_MAINTENANCE = 'vacuum (analyze)';

/** Vacuums every `everyMs`, analyses too every 24th time; answers the function that stops. */
export function maintainPglite(client: Pick<PGliteThread, 'exec'>, logger: Logger, everyMs = VACUUM_EVERY_MS): () => Promise<void> {
  let count = 0;
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return;
    count += 1;
    const statement = count % ANALYZE_EVERY === 0 ? START_MAINTENANCE : 'vacuum';
    const started = performance.now();
    // Queued behind the thread's queries and waiting for an open transaction's end (PGliteThread).
    running = client
      .exec(statement)
      .then(
        () => logger.info('database vacuumed', { statement, ms: Math.round(performance.now() - started) }),
        (error: Error) => logger.error('database vacuum failed', { statement, error: error.message }),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
