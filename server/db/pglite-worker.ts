// The embedded database's own thread (decision 074): PGlite runs its queries here, in WASM, and
// parses their answers; the server's thread gets the rows by message and keeps rendering pages
// meanwhile. Spoken to only by pglite-thread.ts, one message per call.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type QueryOptions, type Transaction, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Fields, Reply, Request, WorkerSettings } from './pglite-thread.ts';

const port = parentPort!;
const settings = workerData as WorkerSettings;

/** An error as its fields: PostgreSQL's code, detail, constraint… cross the thread, functions do not. */
function fieldsOf(error: unknown): Fields {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Fields = { message: error.message, name: error.name, stack: error.stack };
  for (const [key, value] of Object.entries(error)) {
    if (key !== 'queryOptions' && typeof value !== 'function' && (typeof value !== 'object' || value === null || Array.isArray(value))) fields[key] = value;
  }
  return fields;
}

const reply = (message: Reply) => port.postMessage(message);

/** The text parsers the caller asked for: the columns of these types stay as PostgreSQL wrote them. */
const asText = (value: string) => value;
function optionsOf(request: { rowMode?: 'array' | 'object'; textTypes?: number[] }): QueryOptions {
  const options: QueryOptions = {};
  if (request.rowMode) options.rowMode = request.rowMode;
  if (request.textTypes?.length) options.parsers = Object.fromEntries(request.textTypes.map((type) => [type, asText]));
  return options;
}

let client: PGlite;
try {
  // pg_trgm: the repair orders' search (same extension as on a PostgreSQL server).
  client = await PGlite.create(settings.dir, { extensions: { pg_trgm }, startParams: [...PGlite.defaultStartParams, ...settings.startParams] });
} catch (error) {
  reply({ id: 0, error: fieldsOf(error) });
  process.exit(1);
}
// PGlite copies its instance's table of parsers (359: the defaults and every array type's) into a
// new object for each query's answer, before reading a row: 0.4 ms of this thread per query, more
// than `select 1` itself. The array types' parsers join the module's defaults, which a query reads
// when its own table lacks a type, and the instance's table keeps them only as its prototype,
// where the array parsers find their element's parser: the copy is empty, every type parses as before.
{
  const table = client.parsers;
  for (const [type, parse] of Object.entries(table)) if (!Object.hasOwn(types.parsers, type)) types.parsers[Number(type)] = parse;
  client.parsers = Object.create(table);
}

/** The rollback the main thread asked for: not a failure of the transaction. */
class RolledBack extends Error {}

/** The transactions open on the main thread's side, by id: their client, how they end, their end. */
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void }>();
const ends = new Map<number, Promise<void>>();
const listeners = new Map<number, () => Promise<void>>();

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'query': {
      const on = request.txId ? transactions.get(request.txId)?.tx : client;
      if (!on) throw new Error('transaction is closed');
      return on.query(request.sql, request.params, optionsOf(request));
    }
    case 'exec': {
      const on = request.txId ? transactions.get(request.txId)?.tx : client;
      if (!on) throw new Error('transaction is closed');
      return on.exec(request.sql, optionsOf(request));
    }
    case 'begin': {
      // PGlite's own transaction: other queries wait for its end, as they did in one thread.
      let opened!: () => void;
      const ready = new Promise<void>((resolve) => (opened = resolve));
      const done = client.transaction(
        (tx) =>
          new Promise<void>((resolve, reject) => {
            transactions.set(request.txId, { tx, end: (commit) => (commit ? resolve() : reject(new RolledBack())) });
            opened();
          }),
      );
      done.then(
        () => transactions.delete(request.txId),
        () => transactions.delete(request.txId),
      );
      ends.set(request.txId, done);
      try {
        await Promise.race([ready, done]);
      } catch (error) {
        // A BEGIN that failed (PGlite closing) leaves nothing to end.
        ends.delete(request.txId);
        throw error;
      }
      return null;
    }
    case 'end': {
      const open = transactions.get(request.txId);
      const done = ends.get(request.txId);
      ends.delete(request.txId);
      open?.end(request.commit);
      try {
        await done;
      } catch (error) {
        if (!(error instanceof RolledBack)) throw error;
      }
      return null;
    }
    case 'listen': {
      const stop = await client.listen(request.channel, (payload) => reply({ id: 0, notify: request.listenId, payload }));
      listeners.set(request.listenId, stop);
      return null;
    }
    case 'unlisten': {
      await listeners.get(request.listenId)?.();
      listeners.delete(request.listenId);
      return null;
    }
    case 'close': {
      await client.close();
      return null;
    }
  }
}

/** An answer that cannot cross the thread (a value structured clone refuses) is refused, not a crash. */
function answer(id: number, result: unknown) {
  try {
    reply({ id, result });
  } catch (error) {
    reply({ id, error: fieldsOf(error) });
  }
}

port.on('message', (request: Request) => {
  handle(request).then(
    (result) => {
      answer(request.id, result);
      // Closed: nothing more to answer, the thread ends.
      if (request.op === 'close') port.close();
    },
    (error: unknown) => {
      try {
        reply({ id: request.id, error: fieldsOf(error) });
      } catch {
        reply({ id: request.id, error: { message: String((error as Error)?.message ?? error) } });
      }
    },
  );
});
reply({ id: 0, ready: true });
