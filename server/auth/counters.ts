// Where rate limits and throttles count (decision 053): in PostgreSQL, shared by every instance,
// or in memory when the embedded database's one process owns them anyway. The same figures
// either way: `rate-limit.ts` decides, a store only counts.
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Database, type Db, queryRows } from '#server/db/client.ts';

/**
 * Counters by key, `kind:subject` (the kind is ours, the subject an address or an account).
 * Each call is one round trip on PostgreSQL, atomic: instances counting at once lose no hit.
 */
export type CounterStore = {
  /** One hit in the key's fixed window (a new window once the last has ended): its count, and ms until it ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; leftMs: number }>;
  /** One failure under each key, remembered `forgetMs` after the last (older ones are forgotten first). */
  fail(keys: string[], forgetMs: number): Promise<void>;
  /** The failures still remembered under each key, and how long ago the last was; undefined for none. */
  read(keys: string[]): Promise<({ count: number; agoMs: number } | undefined)[]>;
  /** Forgets a key's failures. */
  forget(key: string): Promise<void>;
  /** Takes `key` for `leaseMs` with `token` unless a holder's lease runs still: true when taken. */
  claim(key: string, token: number, leaseMs: number): Promise<boolean>;
  /** Gives `key` back, if `token` still holds it. */
  release(key: string, token: number): Promise<void>;
};

/** The store of the database this process opened. */
export function createCounterStore(database: Pick<Database, 'kind' | 'db'>, secret: string): CounterStore {
  return database.kind === 'postgres' ? createPostgresCounters(database.db, secret) : createMemoryCounters();
}

const MAX_ENTRIES = 100_000;
const MEMORY_SWEEP_MS = 60_000;

/** In this process's memory: bounded, the oldest entries going first. */
export function createMemoryCounters(now: () => number = Date.now): CounterStore {
  const entries = new Map<string, { count: number; last: number; expiresAt: number }>();
  let lastSweep = now();
  const sweep = (t: number) => {
    if (t - lastSweep <= MEMORY_SWEEP_MS) return;
    for (const [k, e] of entries) if (e.expiresAt < t) entries.delete(k);
    lastSweep = t;
  };
  const live = (key: string, t: number) => {
    sweep(t);
    const entry = entries.get(key);
    return entry && entry.expiresAt >= t ? entry : undefined;
  };
  const start = (key: string, t: number, lifeMs: number) => {
    // Map keeps insertion order: the first key is the oldest, and goes when memory is full.
    entries.delete(key);
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    const entry = { count: 1, last: t, expiresAt: t + lifeMs };
    entries.set(key, entry);
    return entry;
  };
  return {
    async hit(key, windowMs) {
      const t = now();
      sweep(t);
      const current = entries.get(key);
      let entry;
      if (current && current.expiresAt > t) {
        entry = current;
        entry.count++;
        entry.last = t;
      } else entry = start(key, t, windowMs);
      return { count: entry.count, leftMs: entry.expiresAt - t };
    },
    async fail(keys, forgetMs) {
      const t = now();
      for (const key of keys) {
        const entry = live(key, t);
        if (!entry) {
          start(key, t, forgetMs);
          continue;
        }
        entry.count++;
        entry.last = t;
        entry.expiresAt = t + forgetMs;
      }
    },
    async read(keys) {
      const t = now();
      return keys.map((key) => {
        const entry = live(key, t);
        return entry && { count: entry.count, agoMs: t - entry.last };
      });
    },
    async forget(key) {
      entries.delete(key);
    },
    async claim(key, token, leaseMs) {
      const t = now();
      if (live(key, t)) return false;
      start(key, t, leaseMs).count = token;
      return true;
    },
    async release(key, token) {
      if (entries.get(key)?.count === token) entries.delete(key);
    },
  };
}

/** One hit or failure in this many also sweeps out the rows that mean nothing any more. */
const SWEEP_RATE = 1 / 100;

/**
 * In `auth.rate_counters`, on the database's clock (instances' clocks may differ). Subjects are
 * kept as keyed hashes (HMAC with a secret every instance shares): the table names no address
 * or e-mail, and a long one costs no more than a short one.
 */
export function createPostgresCounters(db: Db, secret: string, sweepRate = SWEEP_RATE): CounterStore {
  const stored = (key: string) => {
    const colon = key.indexOf(':');
    return `${key.slice(0, colon)}:${createHmac('sha256', secret)
      .update(key.slice(colon + 1))
      .digest('base64url')
      .slice(0, 22)}`;
  };
  const ms = (value: number) => sql`(${value}::float8 * interval '1 millisecond')`;
  const maybeSweep = async () => {
    if (Math.random() < sweepRate) await db.execute(sql`delete from auth.rate_counters where expires_at < now()`);
  };
  return {
    async hit(key, windowMs) {
      const [row] = await queryRows<{ count: number; left_ms: number }>(
        db,
        sql`insert into auth.rate_counters as c (key, count, last_at, expires_at)
            values (${stored(key)}, 1, now(), now() + ${ms(windowMs)})
            on conflict (key) do update set
              count = case when c.expires_at <= now() then 1 else c.count + 1 end,
              last_at = now(),
              expires_at = case when c.expires_at <= now() then excluded.expires_at else c.expires_at end
            returning count, (extract(epoch from expires_at - now()) * 1000)::float8 as left_ms`,
      );
      await maybeSweep();
      return { count: Number(row!.count), leftMs: Number(row!.left_ms) };
    },
    async fail(keys, forgetMs) {
      if (!keys.length) return;
      // One order for every statement: two failures counted at once never deadlock.
      const rows = [...new Set(keys.map(stored))].sort().map((k) => sql`(${k}, 1, now(), now() + ${ms(forgetMs)})`);
      await db.execute(
        sql`insert into auth.rate_counters as c (key, count, last_at, expires_at)
            values ${sql.join(rows, sql`, `)}
            on conflict (key) do update set
              count = case when c.expires_at < now() then 1 else c.count + 1 end,
              last_at = now(),
              expires_at = excluded.expires_at`,
      );
      await maybeSweep();
    },
    async read(keys) {
      const wanted = keys.map(stored);
      const rows = await queryRows<{ key: string; count: number; ago_ms: number }>(
        db,
        sql`select key, count, (extract(epoch from now() - last_at) * 1000)::float8 as ago_ms from auth.rate_counters
            where key in (${sql.join(
              wanted.map((k) => sql`${k}`),
              sql`, `,
            )}) and expires_at >= now()`,
      );
      return wanted.map((k) => {
        const row = rows.find((r) => r.key === k);
        return row && { count: Number(row.count), agoMs: Number(row.ago_ms) };
      });
    },
    async forget(key) {
      await db.execute(sql`delete from auth.rate_counters where key = ${stored(key)}`);
    },
    async claim(key, token, leaseMs) {
      const rows = await queryRows<{ key: string }>(
        db,
        sql`insert into auth.rate_counters as c (key, count, last_at, expires_at)
            values (${stored(key)}, ${token}, now(), now() + ${ms(leaseMs)})
            on conflict (key) do update set count = excluded.count, last_at = now(), expires_at = excluded.expires_at
            where c.expires_at < now()
            returning key`,
      );
      return rows.length > 0;
    },
    async release(key, token) {
      await db.execute(sql`delete from auth.rate_counters where key = ${stored(key)} and count = ${token}`);
    },
  };
}
