// Live results: the whole current result at once, then again after every committed change
// of the tables it reads (coalesced), skipped when nothing the client sees changed.
import { Repeater } from '@repeaterjs/repeater';
import { isDatabaseUnavailable } from '#lib/unavailable.ts';
import type { GraphQLContext } from './builder.ts';

/** Queries running for live results, by what they ask: identical subscriptions share one. */
const running = new Map<string, Promise<unknown>>();

function shared<T>(key: string, run: () => Promise<T>): Promise<T> {
  let pending = running.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = run();
    running.set(key, pending);
    const drop = () => running.delete(key);
    pending.then(drop, drop);
  }
  return pending;
}

/**
 * `key` names what `run` reads (the same key, the same result for every viewer allowed to
 * subscribe): a write re-runs one query for all the identical subscriptions, not one each.
 * null: a result of its own.
 */
export function live<T>(context: GraphQLContext, tables: readonly string[], key: string | null, run: () => Promise<T>): AsyncIterable<T> {
  return new Repeater<T>(async (push, stop) => {
    let last = '';
    let running: Promise<void> = Promise.resolve();
    const emit = () => {
      running = running
        .then(async () => {
          const result = key === null ? await run() : await shared(key, run);
          const json = JSON.stringify(result);
          if (json === last) return;
          last = json;
          await push(result);
        })
        // The database away is no reason to end the subscription: the run after its return
        // (changes.ts fires every live result on reconnection) sends the current result.
        .catch((error: unknown) => {
          if (!isDatabaseUnavailable(error)) stop(error);
        });
    };
    const unsubscribe = context.changes.onChange(tables, emit);
    emit();
    await stop;
    unsubscribe();
  });
}
