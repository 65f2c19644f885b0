// The database layer: migrations, first run, demo data rules and the PGlite lock (backups: backup.test.ts).
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepareDatabase } from '#server/bootstrap.ts';
import { ConfigError, loadConfig } from '#server/config.ts';
import { openDatabase, postgresConnection, queryRows, type Database } from '#server/db/client.ts';
import { copyClusterTemplate, hasCluster } from '#server/db/pglite-template.ts';
import { sql } from 'drizzle-orm';
import { DatabaseLockedError } from '#server/db/lock.ts';
import { prepared, rawRead } from '#server/db/prepared.ts';
import { demoRepairOrders } from '#server/demo/orders.ts';
import { createLogger } from '#server/log.ts';
import { isDatabaseUnavailable } from '#lib/unavailable.ts';
import { HOME_MARKER, readToken } from '#server/storage/home.ts';
import { createPostgresDatabase, databaseKinds } from './support/app.ts';

const silent = createLogger('silent');
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'atelier-db-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function prepare(env: Record<string, string>, overrides: { dataDir: string; databaseUrl?: string }): Promise<Database> {
  const config = loadConfig({ JWT_SECRET: 'j'.repeat(40), SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'k'.repeat(40), ...env }, overrides);
  const database = await prepareDatabase(config, silent);
  cleanup.push(() => database.close());
  return database;
}

async function emails(database: Database): Promise<string[]> {
  const rows = await queryRows<{ email: string }>(database.db, sql`select email from auth.users order by email`);
  return rows.map((r) => r.email);
}

describe('first run', () => {
  it('loads the demo workshop into a new embedded database', async () => {
    const database = await prepare({}, { dataDir: tempDir() });
    const all = await emails(database);
    expect(all).toEqual(
      expect.arrayContaining(['admin@demo.local', 'commercial@demo.local', 'diagnostic@demo.local', 'mecanicien@demo.local', 'elodie.roux@demo.local']),
    );
    // The users screen pages by 15: the demo fills two pages.
    expect(all.length).toBeGreaterThan(15);
    // The gearbox stock: in stock and gone, each box where and as its last movements leave it.
    const [stock] = await queryRows<Record<string, number>>(
      database.db,
      sql`select count(*) filter (where out_on is null)::int as current, count(*) filter (where out_on is not null)::int as gone,
            count(*) filter (where gearbox_code_id is not null)::int as coded, (select count(*)::int from stock_movements) as movements from stock_items`,
    );
    expect(stock).toMatchObject({ current: 120, gone: 40 });
    expect(stock!.coded).toBeGreaterThan(80);
    const broken = await queryRows<{ number: number }>(
      database.db,
      sql`select i.number from stock_items i
          left join gearbox_codes g on g.id = i.gearbox_code_id left join doctor_codes d on d.id = i.doctor_code_id
          where (i.gearbox_code_id is not null and g.doctor_code_id is distinct from i.doctor_code_id)
             or (i.doctor_code_id is not null and d.gearbox_model_id <> i.gearbox_model_id)
             or i.version <> (select count(*) from stock_movements m where m.item_id = i.id)
             or row(i.rack, i.level) is distinct from (select row(m.to_rack, m.to_level) from stock_movements m where m.item_id = i.id and m.to_rack is not null order by m.at desc limit 1)
             or i.condition is distinct from (select m.to_condition from stock_movements m where m.item_id = i.id and m.to_condition is not null order by m.at desc limit 1)
             or (i.out_on is not null) <> exists (select 1 from stock_movements m where m.item_id = i.id and m.kind = 'removed' and m.reason = i.out_reason)
             or exists (select 1 from stock_movements m left join auth.users u on u.id = m.by_user_id where m.item_id = i.id and u.display_name is distinct from m.by_name)`,
    );
    expect(broken).toEqual([]);

    // The repair orders: each with a referent who may be one, a gearbox code of its model (or none
    // read), its history, and the box of the stock it names fitted on it.
    const drawn = demoRepairOrders();
    const [orders] = await queryRows<Record<string, number>>(
      database.db,
      sql`select count(*)::int as orders, count(*) filter (where status = 'CLOSED')::int as closed, count(distinct gearbox_model_id)::int as models,
            (select count(*)::int from intervention_history) as history from repair_orders`,
    );
    expect(orders).toEqual({
      orders: drawn.length,
      closed: drawn.filter((o) => o.status === 'CLOSED').length,
      models: 9,
      history: drawn.reduce((n, o) => n + o.history.length, 0),
    });
    const wrongOrders = await queryRows<{ number: string }>(
      database.db,
      sql`select o.number from repair_orders o left join auth.users u on u.id = o.referent_id
          where u.default_role is distinct from 'diagnostician' and u.default_role is distinct from 'app_admin'
             or (o.gearbox_code <> '' and not exists (select 1 from gearbox_codes g join doctor_codes d on d.id = g.doctor_code_id where d.gearbox_model_id = o.gearbox_model_id and g.code = o.gearbox_code))
             or (o.status = 'CLOSED') <> (o.closed_on is not null)
             or (o.can_read_fault_codes is false and exists (select 1 from order_fault_codes f where f.repair_order_id = o.id))
             or exists (select 1 from intervention_history h where h.repair_order_id = o.id and h.position > (select count(*) from intervention_history k where k.repair_order_id = o.id))
             or exists (select 1 from unnest(o.interventions) line where line like '% du stock%' and not exists (
                  select 1 from stock_items s where s.gearbox_model_id = o.gearbox_model_id and s.out_reason = 'Posée sur ' || o.number
                    and line like '% du stock S-' || lpad(s.number::text, 6, '0')))`,
    );
    expect(wrongOrders).toEqual([]);

    // Their diagnostics: every closed order has its confirmed outage and validated procedure (the
    // ranking's history); the orders in progress stand at every stage of the diagnostic.
    const [diagnostics] = await queryRows<Record<string, number>>(
      database.db,
      sql`select count(*) filter (where status = 'CLOSED' and validated_at is not null and exists (select 1 from order_outages x where x.repair_order_id = o.id))::int as confirmed,
            count(distinct diagnostic_step + case when validated_at is null then 0 else 1 end) filter (where status = 'IN_PROGRESS')::int as stages,
            count(*) filter (where status = 'IN_PROGRESS' and validated_at is not null)::int as waiting,
            (select count(*)::int from order_fault_codes) as codes, (select count(*)::int from order_symptoms) as symptoms,
            (select count(*)::int from order_measures where check_result = 'nok') as nok
          from repair_orders o`,
    );
    expect(diagnostics!.confirmed).toBe(drawn.filter((o) => o.status === 'CLOSED').length);
    expect(diagnostics!.stages).toBe(5);
    expect(diagnostics!.waiting).toBeGreaterThanOrEqual(2);
    expect(diagnostics!.codes).toBeGreaterThan(30);
    expect(diagnostics!.symptoms).toBeGreaterThan(35);
    expect(diagnostics!.nok).toBeGreaterThan(5);
    // Plausible readings: a measure out of range stays within reach of its band, a percentage
    // never passes 100; a symptom is the one the customer's words name (a leak after a knock
    // on a kerb is a leak, not a shift's jolt).
    const [implausible] = await queryRows<Record<string, number>>(
      database.db,
      sql`select (select count(*)::int from order_measures where (unit = '%' and measured_value > 100) or measured_value > maximum + (maximum - minimum) * 0.5) as measures,
            (select count(*)::int from order_symptoms s join base_items b on b.id = s.symptom_id where s.comment ilike 'Fuite d''huile%' and b.name <> 'Fuite d''huile') as symptoms`,
    );
    expect(implausible).toEqual({ measures: 0, symptoms: 0 });
    // Closed orders: every checkpoint answered, the closing recorded; some in progress half done.
    const [shopFloor] = await queryRows<Record<string, number>>(
      database.db,
      sql`select (select count(*)::int from order_checkpoints c join repair_orders o on o.id = c.repair_order_id where o.status = 'CLOSED' and c.check_result is null) as open_on_closed,
            (select count(*)::int from repair_orders o where o.status = 'CLOSED' and not exists (select 1 from order_events e where e.repair_order_id = o.id and e.kind = 'closed')) as unrecorded,
            (select count(distinct c.repair_order_id)::int from order_checkpoints c join repair_orders o on o.id = c.repair_order_id where o.status = 'IN_PROGRESS' and c.check_result is null) as to_answer`,
    );
    expect(shopFloor).toMatchObject({ open_on_closed: 0, unrecorded: 0 });
    expect(shopFloor!.to_answer).toBeGreaterThanOrEqual(2);
    // Curves recorded on orders, each over its model's reference, their CSV in the store.
    const curves = await queryRows<{ file_id: string; same_model: boolean }>(
      database.db,
      sql`select f.file_id, d.gearbox_model_id = o.gearbox_model_id as same_model from order_curves c join repair_orders o on o.id = c.repair_order_id
          join gearbox_documents d on d.id = c.reference_document_id join order_files f on f.curve_id = c.id`,
    );
    expect(curves.length).toBeGreaterThanOrEqual(8);
    expect(curves.every((c) => c.same_model)).toBe(true);
  });

  it('leaves an embedded database vacuumed and analysed, as autovacuum would a server (decision 085)', async () => {
    const database = await prepare({}, { dataDir: tempDir() });
    // The demo's seed updated and deleted rows; PGlite has no autovacuum to reclaim them. (Not
    // `n_dead_tup`: the seed's counts reach the view up to a second late, after the vacuum's.)
    const left = await queryRows<{ table: string }>(
      database.db,
      sql`select schemaname || '.' || relname as table from pg_stat_user_tables
          where last_vacuum is null or last_analyze is null order by 1`,
    );
    expect(left).toEqual([]);
  });

  it('creates the admin of ADMIN_EMAIL and ADMIN_PASSWORD, without demo data when DEMO_DATA=0', async () => {
    const database = await prepare({ DEMO_DATA: '0', ADMIN_EMAIL: 'Chef@Garage.fr', ADMIN_PASSWORD: 'Chef-Atelier-2026!' }, { dataDir: tempDir() });
    expect(await emails(database)).toEqual(['chef@garage.fr']);
  });

  it('generates and prints a strong admin password once when none is given', async () => {
    const printed: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (printed.push(String(chunk)), true));
    const dataDir = tempDir();
    try {
      const database = await prepare({ DEMO_DATA: '0' }, { dataDir });
      await database.close();
      await prepare({ DEMO_DATA: '0' }, { dataDir });
    } finally {
      spy.mockRestore();
    }
    expect(printed).toHaveLength(1);
    const [, email, password] = printed[0]!.match(/First admin account: (\S+)\s+password: (\S+)/)!;
    expect(email).toBe('admin@atelier.local');
    expect(password!.length).toBeGreaterThanOrEqual(24);
  });

  it('refuses an ADMIN_PASSWORD that breaks the password policy', async () => {
    await expect(prepare({ DEMO_DATA: '0', ADMIN_EMAIL: 'chef@garage.fr', ADMIN_PASSWORD: 'faible' }, { dataDir: tempDir() })).rejects.toThrow(
      new ConfigError('Invalid ADMIN_PASSWORD: Minimum 8 caractères'),
    );
  });

  it('never loads demo data into a PostgreSQL server unless DEMO_DATA=1', async () => {
    const plain = await prepare(
      { ADMIN_EMAIL: 'chef@garage.fr', ADMIN_PASSWORD: 'Chef-Atelier-2026!' },
      { dataDir: tempDir(), databaseUrl: await createPostgresDatabase() },
    );
    expect(plain.kind).toBe('postgres');
    expect(await emails(plain)).toEqual(['chef@garage.fr']);
    const demo = await prepare({ DEMO_DATA: '1' }, { dataDir: tempDir(), databaseUrl: await createPostgresDatabase() });
    expect(await emails(demo)).toContain('admin@demo.local');
  });

  it('applies migrations once, whatever the number of starts', async () => {
    const url = await createPostgresDatabase();
    // Instances of one database with files on disk share DATA_DIR (decision 057).
    const dataDir = tempDir();
    const [a, b] = await Promise.all([prepare({ DEMO_DATA: '1' }, { dataDir, databaseUrl: url }), prepare({ DEMO_DATA: '1' }, { dataDir, databaseUrl: url })]);
    expect(await emails(a)).toEqual(await emails(b));
    // And one claim of the files' home: one token, which the marker names.
    const token = await readToken(a.db);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'files', HOME_MARKER), 'utf8')).installation).toBe(token);
    const applied = await queryRows<{ n: number }>(a.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(applied[0]!.n).toBe(readdirSync(path.join(import.meta.dirname, '../server/db/migrations')).filter((f) => f.endsWith('.sql')).length);
  });
});

describe('a new embedded database (decision 024)', () => {
  it('is a copy of one empty cluster, made once even by two servers starting together', async () => {
    const cache = tempDir();
    const [a, b] = [path.join(tempDir(), 'db'), path.join(tempDir(), 'db')];
    expect(await Promise.all([copyClusterTemplate(a, cache), copyClusterTemplate(b, cache)])).toEqual([null, null]);
    // One cluster in the cache, no directory left half made beside it.
    expect(readdirSync(cache)).toEqual([expect.stringMatching(/^pglite-[\d.]+-cluster$/)]);
    for (const dir of [a, b]) {
      const db = await PGlite.create(dir, { extensions: { pg_trgm } });
      expect((await db.query<{ n: number }>('select 1 as n')).rows).toEqual([{ n: 1 }]);
      await db.close();
    }
    // PGlite's initdb runs in WebAssembly on the test's thread: slow when the machine is loaded.
  }, 90_000);

  it("is left to PGlite's own initdb when the cache cannot be written, with the reason", async () => {
    const blocked = path.join(tempDir(), 'a-file');
    writeFileSync(blocked, '');
    const dir = path.join(tempDir(), 'db');
    expect(await copyClusterTemplate(dir, path.join(blocked, 'cache'))).toMatch(/ENOTDIR/);
    expect(hasCluster(dir)).toBe(false);
    const db = await PGlite.create(dir, { extensions: { pg_trgm } });
    expect((await db.query<{ n: number }>('select 1 as n')).rows).toEqual([{ n: 1 }]);
    await db.close();
  });
});

describe('the embedded database lock', () => {
  it('refuses a second opening of the same directory, with a clear message', async () => {
    const dataDir = tempDir();
    const first = await openDatabase({ dataDir });
    cleanup.push(() => first.close());
    const second = openDatabase({ dataDir });
    await expect(second).rejects.toThrow(DatabaseLockedError);
    await expect(openDatabase({ dataDir })).rejects.toThrow(`is already open in process ${process.pid}`);
  });

  it('opens again once the first process closed it', async () => {
    const dataDir = tempDir();
    await (await openDatabase({ dataDir })).close();
    const again = await openDatabase({ dataDir });
    await again.close();
  });

  it('takes over a lock left by a process that died', async () => {
    const dataDir = tempDir();
    await (await openDatabase({ dataDir })).close();
    writeFileSync(path.join(dataDir, 'db.lock'), '999999');
    const database = await openDatabase({ dataDir });
    await database.close();
  });
});

describe('the supported PostgreSQL versions (README: 15 to 18)', () => {
  it('are the two servers the PostgreSQL half of the suite runs on, and the ones the README names', async () => {
    const majors: number[] = [];
    for (const version of [15, 18] as const) {
      const database = await openDatabase({ dataDir: tempDir(), databaseUrl: await createPostgresDatabase(version) });
      cleanup.push(() => database.close());
      const [row] = await queryRows<{ version: string }>(database.db, sql`select current_setting('server_version_num') as version`);
      majors.push(Math.floor(Number(row!.version) / 10_000));
    }
    expect(majors).toEqual([15, 18]);
    expect(databaseKinds).toEqual(['pglite', 'postgres', 'postgres-15']);
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('**Supported PostgreSQL versions: 15 to 18.**');
  });
});

describe('reads built once (decisions 082, 084)', () => {
  it('are one prepared statement per PostgreSQL connection, prepared once for one SQL', async () => {
    const database = await openDatabase({ dataDir: tempDir(), databaseUrl: await createPostgresDatabase() });
    try {
      // Two reads of the same SQL, as two instances' services would build them.
      const plusOne = () => prepared(() => rawRead<{ n: number }>(database.db, sql`select ${sql.placeholder('n')}::int + 1 as n`));
      const [a, b] = [plusOne(), plusOne()];
      expect(await a().execute({ n: 1 })).toEqual([{ n: 2 }]);
      expect(await a().execute({ n: 5 })).toEqual([{ n: 6 }]);
      expect(await b().execute({ n: 2 })).toEqual([{ n: 3 }]);
      // Asked one after the other, one connection ran them all, and prepared the SQL once.
      // (postgres.js also prepares its own read of the array types, at connecting.)
      const held = await queryRows<{ statement: string }>(
        database.db,
        sql`select statement from pg_prepared_statements where statement not like '%pg_catalog.pg_type%'`,
      );
      expect(held).toEqual([{ statement: 'select $1::int + 1 as n' }]);
    } finally {
      await database.close();
    }
  });
});

describe('values bound in SQL written by hand (decision 084)', () => {
  it.each(['pglite', 'postgres'])('take a Date and an object for JSON on %s', async (kind) => {
    const database = await openDatabase({ dataDir: tempDir(), databaseUrl: kind === 'postgres' ? await createPostgresDatabase() : undefined });
    cleanup.push(() => database.close());
    const at = new Date('2026-11-28T10:00:00Z');
    const [row] = await queryRows<{ later: boolean; day: string; json: { a: number } }>(
      database.db,
      sql`select ${at}::timestamptz < now() as later, ${at}::date::text as day, ${{ a: 1 }}::jsonb as json`,
    );
    expect(row).toEqual({ later: true, day: '2026-11-28', json: { a: 1 } });
  });
});

describe('the database away, as the PostgreSQL client says it (decisions 036, 084)', () => {
  it('is a connection cut under a query, or a query asked once the client is closed: 503, not 500', async () => {
    const target = new URL(await createPostgresDatabase());
    // A relay between the client and PostgreSQL, whose connections the test cuts without a word.
    const sockets = new Set<Socket>();
    const relay = createServer((client) => {
      const server = connect(Number(target.port), target.hostname);
      client.pipe(server).pipe(client);
      for (const s of [client, server]) {
        sockets.add(s);
        s.on('error', () => s.destroy());
      }
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => void relay.close());
    const url = new URL(target);
    url.host = `127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const database = await openDatabase({ dataDir: tempDir(), databaseUrl: url.toString() });
    const inFlight = queryRows(database.db, sql`select pg_sleep(5)`).catch((error: unknown) => error);
    await new Promise((r) => setTimeout(r, 300));
    for (const s of sockets) s.destroy();
    const cut = await inFlight;
    expect(cut).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(cut)).toBe(true);

    await database.close();
    const ended = await queryRows(database.db, sql`select 1`).catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(ended)).toBe(true);
  });
});

describe('DATABASE_URL (decision 084)', () => {
  it('is read as node-postgres reads it: TLS settings kept, libpq keys it ignores left out', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'ca.pem'), 'the CA');
    expect(
      postgresConnection(
        `postgres://atelier:p%40ss@db.example:6543/bva?sslmode=verify-full&sslrootcert=${path.join(dir, 'ca.pem')}&channel_binding=require&keepalives=1&application_name=atelier`,
      ),
    ).toEqual({
      host: 'db.example',
      port: 6543,
      database: 'bva',
      user: 'atelier',
      password: 'p@ss',
      ssl: { ca: 'the CA' },
      connection: { application_name: 'atelier' },
    });
    expect(postgresConnection('postgres://u@db.example/bva?sslmode=no-verify').ssl).toEqual({ rejectUnauthorized: false });
    expect(postgresConnection('postgres://u@db.example/bva?sslmode=disable').ssl).toBe(false);
    expect(postgresConnection('postgres:///bva?host=/var/run/postgresql')).toMatchObject({ host: '/var/run/postgresql', database: 'bva' });
  });

  it('with a libpq key the server does not know opens the database and answers', async () => {
    const url = `${await createPostgresDatabase()}?channel_binding=prefer&keepalives=1`;
    const database = await openDatabase({ dataDir: tempDir(), databaseUrl: url });
    cleanup.push(() => database.close());
    expect(await queryRows(database.db, sql`select 1 as one`)).toEqual([{ one: 1 }]);
  });
});
