// The embedded database in its own thread (decision 074): the server's thread stays free while a
// query runs, and the client answers as PGlite did (rows, PostgreSQL's error fields,
// transactions, notifications).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, queryRows, type Database } from '#server/db/client.ts';
import { databaseRefusal, pgCode } from '#server/db/errors.ts';
import { maintainPglite } from '#server/db/pglite-maintenance.ts';
import { copyClusterTemplate } from '#server/db/pglite-template.ts';
import { PGliteThread } from '#server/db/pglite-thread.ts';

// The threads the client starts, so that a test can end one as a crash would.
const started = vi.hoisted(() => [] as import('node:worker_threads').Worker[]);
vi.mock('node:worker_threads', async (original) => {
  const real = await original<typeof import('node:worker_threads')>();
  class Worker extends real.Worker {
    constructor(...args: ConstructorParameters<typeof real.Worker>) {
      super(...args);
      started.push(this);
    }
  }
  return { ...real, Worker, default: { ...real, Worker } };
});

let dir: string;
let database: Database;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'atelier-thread-'));
  database = await openDatabase({ dataDir: dir });
  await database.db.execute(sql`create table things (id int primary key, name text not null unique, at timestamptz default now(), seen date)`);
});

afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = async () => (await queryRows<{ name: string }>(database.db, sql`select name from things order by id`)).map((r) => r.name);

describe('the embedded database in its own thread', () => {
  it('leaves the server free while a long query runs: a timer fires on time, not at its end', async () => {
    let running = true;
    const slow = queryRows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from generate_series(1, 4000000) g, lateral (select md5(g::text)) m`,
    ).finally(() => (running = false));
    // The timer's turn comes while the query still runs (how late it fires depends on the machine).
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running).toBe(true);
    expect((await slow)[0]!.n).toBe(4_000_000);
  });

  it('refuses a parameter that cannot cross to the thread, and answers the next query', async () => {
    const thread = database.pglite!;
    await expect(thread.query('select $1::text as v', [() => 1])).rejects.toThrow();
    expect((await thread.query<{ v: string }>('select $1::text as v', ['deux'])).rows).toEqual([{ v: 'deux' }]);
  });

  it('answers rows as drizzle reads them: dates and timestamps as PostgreSQL wrote them', async () => {
    await database.db.execute(sql`insert into things (id, name, seen) values (1, 'un', '2026-11-27')`);
    const [row] = await queryRows<{ id: number; name: string; seen: string; at: unknown }>(database.db, sql`select * from things where id = 1`);
    expect(row).toMatchObject({ id: 1, name: 'un', seen: '2026-11-27' });
    expect(typeof row!.at).toBe('string');
  });

  it('parses every type as PGlite does: arrays with their elements, JSON, numbers, booleans', async () => {
    const [row] = await queryRows(
      database.db,
      sql`select array[1, 2]::int[] as ints, array['un', null]::text[] as texts, array[true]::bool[] as flags, '{"a": [1]}'::jsonb as doc, 3::int8 as big, 2.5::float8 as half, false as no, '{1.5}'::float8[] as floats`,
    );
    expect(row).toEqual({ ints: [1, 2], texts: ['un', null], flags: [true], doc: { a: [1] }, big: 3, half: 2.5, no: false, floats: [1.5] });
  });

  it("throws PostgreSQL's refusal with its code and constraint, read as PGlite's own", async () => {
    const error = await database.db.execute(sql`insert into things (id, name) values (2, 'un')`).catch((e: unknown) => e);
    expect(pgCode(error)).toBe('23505');
    expect((error as { cause: { constraint: string } }).cause.constraint).toBe('things_name_key');
    expect(databaseRefusal(error)?.kind).toBe('conflict');
  });

  it('answers a query read again after its table changed shape, or was made again, with what the table holds now', async () => {
    const thread = database.pglite!;
    await thread.exec('create table shapes (a int); insert into shapes values (1)');
    // Read more than five times: PostgreSQL keeps a generic plan of the statement from then on.
    for (let i = 0; i < 6; i++) expect((await thread.query('select * from shapes where a = $1', [1])).rows).toEqual([{ a: 1 }]);
    await thread.exec("alter table shapes add column b text default 'b'");
    expect((await thread.query('select * from shapes where a = $1', [1])).rows).toEqual([{ a: 1, b: 'b' }]);
    await thread.exec("drop table shapes; create table shapes (a int, b text); insert into shapes values (1, 'neuf')");
    expect((await thread.query('select * from shapes where a = $1', [1])).rows).toEqual([{ a: 1, b: 'neuf' }]);
    // Within a transaction too, which a refusal would have lost.
    await thread.exec('alter table shapes drop column b');
    const inside = await database.db.transaction((tx) => queryRows(tx as typeof database.db, sql`select * from shapes where a = ${1}`));
    expect(inside).toEqual([{ a: 1 }]);
    await thread.exec('drop table shapes');
  });

  it('keeps a bounded number of prepared queries, and answers one it let go', async () => {
    const thread = database.pglite!;
    for (let i = 0; i < 320; i++) expect((await thread.query(`select ${i} as n, $1::int as m`, [i])).rows).toEqual([{ n: i, m: i }]);
    const [{ kept }] = (await thread.query<{ kept: number }>('select count(*)::int as kept from pg_prepared_statements')).rows as [{ kept: number }];
    expect(kept).toBeLessThanOrEqual(300);
    expect((await thread.query('select 0 as n, $1::int as m', [7])).rows).toEqual([{ n: 0, m: 7 }]);
  });

  it('commits a transaction, rolls back one that throws, and runs the queries sent meanwhile after it', async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into things (id, name) values (2, 'deux')`);
    });
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const failing = database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into things (id, name) values (3, 'trois')`);
        inside();
        await held;
        throw new Error('given up');
      })
      .catch((e: Error) => e.message);
    await entered;
    // Sent while the transaction is open: it sees the state after the transaction's end.
    const meanwhile = names();
    release();
    expect(await failing).toBe('given up');
    expect(await meanwhile).toEqual(['un', 'deux']);
    // A failed statement inside a transaction rolls the whole of it back.
    const refused = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into things (id, name) values (4, 'quatre')`);
        await tx.execute(sql`insert into things (id, name) values (5, 'un')`);
      })
      .catch((e: unknown) => pgCode(e));
    expect(refused).toBe('23505');
    expect(await names()).toEqual(['un', 'deux']);
  });

  it('refuses a transaction whose COMMIT fails, writes none of it, and answers the next query', async () => {
    await database.db.execute(sql`create table parts (id int primary key, thing int references things (id) deferrable initially deferred)`);
    // The reference is checked at COMMIT only: every statement passes, the commit is refused.
    const refused = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into parts values (1, 1)`);
        await tx.execute(sql`insert into parts values (2, 99)`);
      })
      .catch((e: unknown) => pgCode(e));
    expect(refused).toBe('23503');
    expect(await queryRows(database.db, sql`select id from parts`)).toEqual([]);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into parts values (1, 1)`);
    });
    expect(await queryRows(database.db, sql`select id from parts`)).toEqual([{ id: 1 }]);
  });

  it('says once that its thread is lost, and refuses the calls that waited and those that follow', async () => {
    const lost: string[] = [];
    const lostDir = path.join(dir, 'lost');
    await copyClusterTemplate(lostDir);
    const thread = await PGliteThread.open({ dir: lostDir, startParams: [] }, (error) => lost.push(error.message));
    const worker = started.at(-1)!;
    const waiting = thread.query('select pg_sleep(2)').then(
      () => 'answered',
      (e: Error) => e.message,
    );
    // Ended as a WASM abort or an out-of-memory would end it: not by close().
    await worker.terminate();
    expect(await waiting).toMatch(/^the embedded database stopped/);
    expect(lost).toEqual([expect.stringMatching(/^the embedded database stopped/)]);
    await expect(thread.query('select 1')).rejects.toThrow(/^the embedded database stopped/);
    await thread.close();
    expect(lost).toHaveLength(1);
  });

  it('delivers notifications to listeners until they stop listening', async () => {
    const heard: string[] = [];
    const stop = await database.listen('things_changed', (payload) => heard.push(payload));
    await database.db.execute(sql`select pg_notify('things_changed', 'one')`);
    await database.ping();
    await stop();
    await database.db.execute(sql`select pg_notify('things_changed', 'two')`);
    await database.ping();
    expect(heard).toEqual(['one']);
  });

  it('is vacuumed while the server runs, after the transaction it waits for (decision 085)', async () => {
    await database.db.execute(sql`create table worn (id int primary key, note text)`);
    await database.db.execute(sql`insert into worn select g, 'neuf' from generate_series(1, 500) g`);
    await database.db.execute(sql`update worn set note = 'usé'`);
    // The statistics reach the view a second after the statement, unless a flush is asked.
    const dead = async () => {
      await database.db.execute(sql`select pg_stat_force_next_flush()`);
      return (await queryRows<{ n: number }>(database.db, sql`select n_dead_tup::int as n from pg_stat_user_tables where relname = 'worn'`))[0]!.n;
    };
    expect(await dead()).toBe(500);
    const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      info: (msg: string, fields?: Record<string, unknown>) => logged.push({ msg, fields }),
      error: (msg: string, fields?: Record<string, unknown>) => logged.push({ msg, fields }),
    };
    // A transaction open when the time comes: VACUUM cannot run inside one, so it waits its end.
    let stop: () => Promise<void> = async () => {};
    await database.db.transaction(async (tx) => {
      stop = maintainPglite(database.pglite!, logger, 20);
      await tx.execute(sql`select pg_sleep(0.1)`);
    });
    await vi.waitFor(() => expect(logged.length).toBeGreaterThan(0), { timeout: 5_000 });
    await stop();
    expect(logged[0]).toEqual({ msg: 'database vacuumed', fields: { statement: 'vacuum', ms: expect.any(Number) } });
    expect(await dead()).toBe(0);
  });

  it('lets a script end once its last step closed the database (npm run db:migrate and the like)', () => {
    const client = fileURLToPath(new URL('../server/db/client.ts', import.meta.url));
    const work = mkdtempSync(path.join(tmpdir(), 'atelier-thread-'));
    const script = path.join(work, 'script.mjs');
    writeFileSync(
      script,
      `const { openDatabase } = await import(${JSON.stringify(client)});
      const database = await openDatabase({ dataDir: ${JSON.stringify(path.join(work, 'data'))} });
      // Queries of a request still finishing, sent just after the close: refused.
      const late = Array.from({ length: 3 }, () => Promise.resolve().then(() => database.ping()).then(() => 'answered', () => 'refused'));
      await database.close();
      console.log('closed', (await Promise.all(late)).join(' '));`,
    );
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
    rmSync(work, { recursive: true, force: true });
    expect(run.stderr).not.toMatch(/unsettled/);
    expect(run.stdout.trim()).toBe('closed refused refused refused');
    expect(run.status).toBe(0);
  });
});
