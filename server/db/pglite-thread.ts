// The embedded database in a thread of its own (decision 074). PGlite runs a query in WASM on the
// thread that calls it, and parses the answer there: in the server's thread that was 40–50 % of a
// signed-in page's CPU, while no other request could run. Here the server's thread sends the query
// and renders other pages meanwhile; pglite-worker.ts runs PGlite and sends the rows back.
// The client answers as PGlite does for what drizzle and the server use: query, exec, transaction
// (PGlite's own: other queries wait for its end), listen, close.
import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results, Transaction } from '@electric-sql/pglite';

export type WorkerSettings = { dir: string; startParams: string[] };

type QueryRequest = { sql: string; params?: unknown[]; rowMode?: 'array' | 'object'; textTypes?: number[]; txId?: number };
export type Request = { id: number } & (
  | ({ op: 'query' } & QueryRequest)
  | ({ op: 'exec' } & QueryRequest)
  | { op: 'begin'; txId: number }
  | { op: 'end'; txId: number; commit: boolean }
  | { op: 'listen'; channel: string; listenId: number }
  | { op: 'unlisten'; listenId: number }
  | { op: 'close' }
);
export type Fields = Record<string, unknown> & { message: string };
export type Reply = { id: number; result?: unknown; error?: Fields; ready?: true; notify?: number; payload?: string };

// Distributive: `Request` without its id, each operation keeping its own fields.
type Call = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The error PGlite threw in its thread, with PostgreSQL's fields (code, detail, constraint…). */
function errorOf(fields: Fields): Error {
  const { message, stack: _stack, ...rest } = fields;
  return Object.assign(new Error(message), rest);
}

/** Only the parsers that keep a type's text (drizzle's, for dates and intervals) cross the thread. */
function optionsOf(options: QueryOptions | undefined): Pick<QueryRequest, 'rowMode' | 'textTypes'> {
  if (!options) return {};
  const { rowMode, parsers, ...rest } = options;
  const unsupported = Object.keys(rest).filter((key) => rest[key as keyof typeof rest] !== undefined);
  if (unsupported.length) throw new Error(`the embedded database's thread does not take ${unsupported.join(', ')}`);
  const textTypes = Object.entries(parsers ?? {}).map(([type, parse]) => {
    if (parse('0 text', Number(type)) !== '0 text') throw new Error(`the embedded database's thread keeps a type's text or parses it itself, not ${type}`);
    return Number(type);
  });
  return { ...(rowMode ? { rowMode } : {}), ...(textTypes.length ? { textTypes } : {}) };
}

export class PGliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #listeners = new Map<number, (payload: string) => void>();
  #next = 1;
  #stopped: Error | null = null;
  #closing = false;
  /** Settles when the thread has ended, whoever ended it (close, a crash). */
  readonly #exited: Promise<unknown>;

  private constructor(worker: Worker, onLost?: (error: Error) => void) {
    this.#worker = worker;
    this.#exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.on('message', (reply: Reply) => {
      if (reply.notify !== undefined) return this.#listeners.get(reply.notify)?.(reply.payload ?? '');
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      // Idle, the thread keeps the process alive no more than PGlite in the main thread did.
      if (this.#pending.size === 0) worker.unref();
      if (reply.error) pending.reject(errorOf(reply.error));
      else pending.resolve(reply.result);
    });
    const stop = (error: Error) => {
      const first = !this.#stopped;
      this.#stopped ??= error;
      for (const pending of this.#pending.values()) pending.reject(this.#stopped);
      this.#pending.clear();
      // Not asked for (a WASM abort, out of memory): the process has no database any more.
      if (first && !this.#closing) onLost?.(this.#stopped);
    };
    worker.on('error', (error) => stop(new Error(`the embedded database stopped: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => stop(new Error(`the embedded database stopped (exit code ${code})`)));
  }

  /**
   * Opens the cluster in `dir` in a new thread; rejects with PGlite's own error if it cannot.
   * `onLost`: the thread ended without being closed (every waiting call is refused as well).
   */
  static async open(settings: WorkerSettings, onLost?: (error: Error) => void): Promise<PGliteThread> {
    const worker = new Worker(new URL('./pglite-worker.ts', import.meta.url), { workerData: settings });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (reply: Reply) => {
        worker.off('exit', onExit);
        worker.off('message', onMessage);
        if (reply.ready) resolve();
        else reject(errorOf(reply.error ?? { message: 'the embedded database did not start' }));
      };
      const onExit = (code: number) => reject(new Error(`the embedded database did not start (exit code ${code})`));
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.once('error', reject);
    });
    worker.unref();
    return new PGliteThread(worker, onLost);
  }

  #call<T>(request: Call): Promise<T> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#next++;
    if (this.#pending.size === 0) this.#worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        this.#worker.postMessage({ ...request, id });
      } catch (error) {
        // A parameter structured clone refuses (a function, a symbol): this call fails, nothing waits.
        this.#pending.delete(id);
        if (this.#pending.size === 0) this.#worker.unref();
        reject(error as Error);
      }
    });
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions, txId?: number): Promise<Results<T>> {
    return this.#call({ op: 'query', sql, params, ...optionsOf(options), txId });
  }

  exec(sql: string, options?: QueryOptions, txId?: number): Promise<Results[]> {
    return this.#call({ op: 'exec', sql, ...optionsOf(options), txId });
  }

  /** PGlite's transaction: committed when `callback` resolves, rolled back when it throws. */
  async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    const txId = this.#next++;
    await this.#call({ op: 'begin', txId });
    let closed = false;
    const end = async (commit: boolean) => {
      if (closed) return;
      closed = true;
      await this.#call({ op: 'end', txId, commit });
    };
    const tx = {
      query: <R>(sql: string, params?: unknown[], options?: QueryOptions) => this.query<R>(sql, params, options, txId),
      exec: (sql: string, options?: QueryOptions) => this.exec(sql, options, txId),
      rollback: () => end(false),
      get closed() {
        return closed;
      },
    } as Transaction;
    try {
      const result = await callback(tx);
      await end(true);
      return result;
    } catch (error) {
      await end(false).catch(() => undefined);
      throw error;
    }
  }

  /** LISTEN on a channel; resolves to the function that stops listening. */
  async listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>> {
    const listenId = this.#next++;
    this.#listeners.set(listenId, onMessage);
    await this.#call({ op: 'listen', channel, listenId });
    return async () => {
      this.#listeners.delete(listenId);
      await this.#call({ op: 'unlisten', listenId });
    };
  }

  async close(): Promise<void> {
    this.#closing = true;
    try {
      if (!this.#stopped) await this.#call({ op: 'close' });
    } finally {
      // The thread ends by itself once PGlite has closed; held meanwhile, so that a script's last
      // `await database.close()` does not leave the event loop empty before it has.
      this.#worker.ref();
      const late = setTimeout(() => void this.#worker.terminate(), 5_000);
      await this.#exited;
      clearTimeout(late);
    }
  }
}
