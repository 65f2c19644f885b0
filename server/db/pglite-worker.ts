// The embedded database's own thread (decision 074): PGlite runs its queries here, in WASM, and
// parses their answers; the server's thread gets the rows by message and keeps rendering pages
// meanwhile. Spoken to only by pglite-thread.ts, one message per call.
import { parentPort, workerData } from 'node:worker_threads';
import { parse, PGlite, protocol, type QueryOptions, type Results, type Transaction, types } from '@electric-sql/pglite';
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

/**
 * The queries' prepared statements, by SQL text. PGlite's `query` parses and plans its SQL again
 * on every call, in WASM: warm, planning was most of a query's time here (the stock's list of four
 * tables: about 1.3 ms of planning for 0.4 ms of running; the session check about half its time).
 * A statement named once is bound and run from then on, in one call into PGlite instead of six;
 * PostgreSQL keeps its plan (a generic one after five runs, when it costs no more than a custom
 * one) and plans it again by itself when a table it reads changes. The least used go first past
 * MAX_STATEMENTS: the pages' queries are a few hundred texts in all.
 */
const MAX_STATEMENTS = 300;
/** Only reads and writes of rows are prepared: a migration's DDL, SET or NOTIFY runs once, as before. */
const PREPARED = /^\s*(?:select|insert|update|delete|with)\b/i;
type Statement = { name: string; paramTypes: number[] };
const statements = new Map<string, Statement>();
let statementCount = 0;
const { serialize } = protocol;

/** The messages of one call joined: PGlite reads them in turn, as a server reads a socket. */
function joined(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/** The error as PGlite's `query` throws it: the query and its parameters with PostgreSQL's fields. */
const queryError = (error: unknown, sql: string, params: unknown[]) =>
  error instanceof Error && 'severity' in error ? Object.assign(error, { query: sql, params }) : error;

/** SQL that may change a table's shape: the statements prepared so far go (see `forgetStatements`). */
const SHAPES = /\b(?:create|alter|drop|truncate|rename|do)\b/i;

/**
 * Lets every prepared statement go, after SQL that may have changed a table's columns: a statement
 * whose columns changed would be refused once, which a transaction does not survive. Its session
 * being PGlite's only one, DEALLOCATE ALL drops exactly these (not transactional: a rollback keeps
 * it done, which costs only their next Parse).
 */
async function forgetStatements(on: Pick<PGlite, 'exec'>) {
  if (!statements.size) return;
  statements.clear();
  await on.exec('deallocate all');
}

/** PostgreSQL's refusal to run a statement prepared before a table it reads changed its columns. */
const isStale = (error: unknown) => error instanceof Error && (error as { code?: string }).code === '0A000';

/** One query through its prepared statement: what PGlite's `query` answers, parsed by its own code. */
async function runPrepared(sql: string, params: unknown[], options: QueryOptions, inTransaction: boolean): Promise<Results> {
  const run = async (): Promise<Results> => {
    let statement = statements.get(sql);
    const messages: Uint8Array[] = [];
    if (statement) {
      // Used again: last to go.
      statements.delete(sql);
      statements.set(sql, statement);
    } else {
      if (statements.size >= MAX_STATEMENTS) {
        const [oldest, { name }] = statements.entries().next().value!;
        statements.delete(oldest);
        messages.push(serialize.close({ type: 'S', name }));
      }
      const name = `s${++statementCount}`;
      const described = await client.execProtocolStream(
        joined([...messages, serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]),
        { syncToFs: false },
      );
      messages.length = 0;
      statement = { name, paramTypes: parse.parseDescribeStatementResults(described) };
      statements.set(sql, statement);
    }
    const { paramTypes } = statement;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = client.serializers[paramTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const answer = await client.execProtocolStream(
      joined([serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    if (!inTransaction) await client.syncToFs();
    return parse.parseResults(answer, client.parsers, options)[0]!;
  };
  const once = () => client._runExclusiveQuery(run);
  // Outside a transaction, a query waits for the one in progress to end, as PGlite's own does.
  const call = inTransaction ? once : () => client._runExclusiveTransaction(once);
  try {
    return await call();
  } catch (error) {
    // A failed Parse is not kept; a statement whose table changed shape is prepared again, once,
    // where no transaction was aborted by it.
    const failed = statements.get(sql);
    if (failed && isStale(error)) {
      statements.delete(sql);
      await client._runExclusiveQuery(() =>
        client.execProtocolStream(joined([serialize.close({ type: 'S', name: failed.name }), serialize.sync()]), { syncToFs: false }),
      );
      if (!inTransaction) return call().catch((again: unknown) => Promise.reject(queryError(again, sql, params)));
    }
    throw queryError(error, sql, params);
  }
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
      if (request.txId) {
        const open = transactions.get(request.txId);
        if (!open || open.tx.closed) throw new Error('transaction is closed');
      }
      if (!PREPARED.test(request.sql)) {
        const on = request.txId ? transactions.get(request.txId)!.tx : client;
        const result = await on.query(request.sql, request.params, optionsOf(request));
        if (SHAPES.test(request.sql)) await forgetStatements(on);
        return result;
      }
      return runPrepared(request.sql, request.params ?? [], optionsOf(request), Boolean(request.txId));
    }
    case 'exec': {
      const on = request.txId ? transactions.get(request.txId)?.tx : client;
      if (!on) throw new Error('transaction is closed');
      const results = await on.exec(request.sql, optionsOf(request));
      if (SHAPES.test(request.sql)) await forgetStatements(on);
      return results;
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
