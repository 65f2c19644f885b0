// Live results: the whole current result at once, then again after every committed change
// of the tables it reads (coalesced), skipped when nothing the client sees changed.
import { Repeater } from '@repeaterjs/repeater';
import type { GraphQLContext } from './builder.ts';

export function live<T>(context: GraphQLContext, tables: readonly string[], run: () => Promise<T>): AsyncIterable<T> {
  return new Repeater<T>(async (push, stop) => {
    let last = '';
    let running: Promise<void> = Promise.resolve();
    const emit = () => {
      running = running.then(async () => {
        const result = await run();
        const json = JSON.stringify(result);
        if (json === last) return;
        last = json;
        await push(result);
      }).catch((error: unknown) => stop(error));
    };
    const unsubscribe = context.changes.onChange(tables, emit);
    emit();
    await stop;
    unsubscribe();
  });
}
