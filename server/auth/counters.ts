// Where rate limits and throttles count (decision 053): in PostgreSQL, shared by every instance,
// or in memory when the embedded database's one process owns them anyway. The same figures
// either way: `rate-limit.ts` holds the rules, a store counts (and, to reserve a guess in one
// atomic step, applies the throttle's wait, `throttleWait`, which its SQL mirrors).
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Database, type Db, queryRows } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';

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
  /** Takes `key` for `leaseMs` with `token` unless a holder's lease runs still: true when taken. */
  claim(key: string, token: number, leaseMs: number): Promise<boolean>;
  /** Gives `key` back, if `token` still holds it. */
  release(key: string, token: number): Promise<void>;
  /**
   * One failure under each key, counted before the guess it stands for is checked, unless a key
   * must wait (`throttleWait` of its count, its `free` failures and the rule's longest delay):
   * then nothing is counted and the longest wait comes back. Atomic: of guesses sent at once,
   * no more pass than a key has free failures left.
   */
  reserve(keys: { key: string; free: number }[], rule: { maxDelayMs: number; forgetMs: number }): Promise<{ waitMs: number } | Reservation>;
};

/** Failures counted ahead of a guess (`reserve`); a guess found wrong keeps them. */
export type Reservation = {
  /**
   * The guess was not wrong: each key counts one failure less, its last failure's time back to
   * what it was unless a later one came; the key `forget` (the owner proved) loses every failure.
   */
  giveBack(forget?: string): Promise<void>;
};

/**
 * How long a key with `count` failures, the last `agoMs` ago, must wait before another guess:
 * none while fewer than `free`, then 1 s doubling per failure past them, at most `maxDelayMs`.
 */
export function throttleWait(count: number, agoMs: number, free: number, maxDelayMs: number): number {
  if (count < free) return 0;
  return Math.max(0, Math.min(maxDelayMs, 1000 * 2 ** (count - free)) - agoMs);
}

/** The store of the database this process opened. */
export function createCounterStore(database: Pick<Database, 'kind' | 'db'>, secret: string): CounterStore {
  return database.kind === 'postgres' ? createPostgresCounters(database.db, secret) : createMemoryCounters();
}

const MAX_ENTRIES = 100_000;
const MEMORY_SWEEP_MS = 60_000;

/** In this process's memory: bounded, the oldest entries going first. */
export function createMemoryCounters(now: () => number = Date.now): CounterStore {
  // `stamp` names the last write of an entry: a reservation given back knows whether it was last.
  type Entry = { count: number; last: number; expiresAt: number; stamp?: number };
  const entries = new Map<string, Entry>();
  let stamps = 0;
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
    const entry: Entry = { count: 1, last: t, expiresAt: t + lifeMs };
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
        entry.stamp = undefined;
      }
    },
    async read(keys) {
      const t = now();
      return keys.map((key) => {
        const entry = live(key, t);
        return entry && { count: entry.count, agoMs: t - entry.last };
      });
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
    async reserve(keys, rule) {
      const t = now();
      const before = keys.map(({ key, free }) => ({ key, free, entry: live(key, t) }));
      const waitMs = Math.max(0, ...before.map(({ entry, free }) => (entry ? throttleWait(entry.count, t - entry.last, free, rule.maxDelayMs) : 0)));
      if (waitMs > 0) return { waitMs };
      const stamp = ++stamps;
      const was = before.map(({ key, entry }) => ({ key, last: entry?.last, expiresAt: entry?.expiresAt }));
      for (const { key, entry } of before) {
        const counted = entry ?? start(key, t, rule.forgetMs);
        if (entry) {
          entry.count++;
          entry.last = t;
          entry.expiresAt = t + rule.forgetMs;
        }
        counted.stamp = stamp;
      }
      return {
        async giveBack(forget) {
          for (const { key, last, expiresAt } of was) {
            const entry = entries.get(key);
            if (!entry) continue;
            if (key === forget || entry.count <= 1) {
              entries.delete(key);
              continue;
            }
            entry.count--;
            if (entry.stamp === stamp && last !== undefined && expiresAt !== undefined) {
              entry.last = last;
              entry.expiresAt = expiresAt;
            }
          }
        },
      };
    },
  };
}

/** Deadlocks a statement is tried again after, before its error reaches the caller. */
const DEADLOCK_RETRIES = 3;

/**
 * Runs `run` again when PostgreSQL aborted it to break a deadlock (40P01): every statement of a
 * store is its own transaction, rolled back whole, so it can simply be sent again (never inside an
 * outer transaction: that one would be aborted, 25P02).
 */
async function untilNoDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (pgCode(error) !== '40P01' || attempt > DEADLOCK_RETRIES) throw error;
    }
  }
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
    async reserve(keys, rule) {
      const wanted = [...new Map(keys.map(({ key, free }) => [stored(key), free])).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      const values = sql.join(
        wanted.map(([key, free]) => sql`(${key}::text, ${free}::int)`),
        sql`, `,
      );
      // The rows are locked in the database's key order, as `giveBack` locks them. But FOR
      // UPDATE locks only the rows in the statement's snapshot: a row committed after it (a
      // guess at a new key, counted at this moment) is locked later, by the upsert in `taken`,
      // out of that order, and two guesses can each hold the row the other waits for. PostgreSQL
      // then aborts one (40P01, after its deadlock_timeout, 1 s by default), rolled back whole,
      // and it is sent again: the guess waits, never fails. (Making the rows first, in a
      // statement of their own, would avoid it, for one more round trip on every guess.)
      // `held` locks the rows (FOR UPDATE waits for a guess counted at this moment, then reads
      // its count); the wait is `throttleWait`'s, in SQL; `taken` counts only when no key must
      // wait. What the rows held comes back, for the reservation's return.
      const rows = await untilNoDeadlock(() =>
        queryRows<{
          wait_ms: number;
          at: string;
          key: string;
          free: number;
          last_at: string | null;
          expires_at: string | null;
          unseen: boolean;
          counted: number | null;
        }>(
          db,
          sql`with wanted (key, free) as (values ${values}),
            held as (
              select key, count, last_at, expires_at from auth.rate_counters
              where key in (select key from wanted) order by key for update
            ),
            state as (
              select w.key, w.free, h.last_at, h.expires_at,
                case when h.expires_at >= now() then h.count else 0 end as count,
                (extract(epoch from now() - h.last_at) * 1000)::float8 as ago_ms
              from wanted w left join held h on h.key = w.key
            ),
            verdict as (
              select coalesce(max(case when count < free then 0
                else greatest(0, least(${rule.maxDelayMs}::float8, 1000 * power(2::float8, least(count - free, 60))) - ago_ms) end), 0)::float8 as wait_ms
              from state
            ),
            taken as (
              insert into auth.rate_counters as c (key, count, last_at, expires_at)
              select key, 1, now(), now() + ${ms(rule.forgetMs)} from wanted where (select wait_ms from verdict) <= 0 order by key
              on conflict (key) do update set
                count = case when c.expires_at < now() then 1 else c.count + 1 end,
                last_at = now(),
                expires_at = excluded.expires_at
              returning c.key, c.count
            )
            select (select wait_ms from verdict) as wait_ms, now()::text as at, s.key, s.free, s.last_at::text as last_at, s.expires_at::text as expires_at,
              s.last_at is null as unseen, t.count as counted
            from state s left join taken t on t.key = s.key`,
        ),
      );
      const waitMs = Number(rows[0]?.wait_ms ?? 0);
      if (waitMs > 0) return { waitMs };
      await maybeSweep();
      const at = rows[0]!.at;
      const reservation: Reservation = {
        async giveBack(forget) {
          const gone = forget === undefined ? undefined : stored(forget);
          const back = rows.filter((r) => r.key !== gone);
          if (!back.length) {
            if (gone) await db.execute(sql`delete from auth.rate_counters where key = ${gone}`);
            return;
          }
          const values = sql.join(
            back.map((r) => sql`(${r.key}::text, ${r.last_at}::timestamptz, ${r.expires_at}::timestamptz)`),
            sql`, `,
          );
          // Locked in the key's order first, as `reserve` locks them. A key's last failure goes
          // back to what it was only if this reservation is still the last.
          await untilNoDeadlock(() =>
            db.execute(
              sql`with locked as (
                  select key from auth.rate_counters where key in (${sql.join(
                    rows.map((r) => sql`${r.key}`),
                    sql`, `,
                  )}) order by key for update
                ),
                gone as (delete from auth.rate_counters where key = ${gone ?? null} and key in (select key from locked))
                update auth.rate_counters as c set
                  count = greatest(c.count - 1, 0),
                  last_at = case when c.last_at = ${at}::timestamptz and b.last_at is not null then b.last_at else c.last_at end,
                  expires_at = case when c.last_at = ${at}::timestamptz and b.last_at is not null then b.expires_at else c.expires_at end
                from (values ${values}) as b (key, last_at, expires_at)
                where c.key = b.key and c.key in (select key from locked)`,
            ),
          );
        },
      };
      // A row made by a guess counted at this very moment is not in this statement's snapshot
      // (FOR UPDATE waits only for the rows it sees): its count came in as 0. The count returned
      // is exact, and those failures are this instant's: past the free ones, the guess waits.
      const late = Math.max(
        0,
        ...rows.filter((r) => r.unseen && r.counted !== null).map((r) => throttleWait(Number(r.counted) - 1, 0, Number(r.free), rule.maxDelayMs)),
      );
      if (late > 0) {
        await reservation.giveBack();
        return { waitMs: late };
      }
      return reservation;
    },
  };
}
