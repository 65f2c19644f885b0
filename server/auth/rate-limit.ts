// Rate limits (fixed windows) and throttles (failures, then growing delays), counted in a
// CounterStore: PostgreSQL's, shared by every instance, or this process's memory (decision 053).
import type { RateLimitRule, ThrottleRule } from '#server/config.ts';
import { randomInt } from 'node:crypto';
import { DomainError } from '#server/errors.ts';
import type { Logger } from '#server/log.ts';
import { type CounterStore, throttleWait } from './counters.ts';

export type RateLimiter = {
  /** Counts a request of `key` (an address, an account) under `bucket`; throws 429 (Retry-After) past the rule's allowance. */
  hit(bucket: string, key: string, rule: RateLimitRule): Promise<void>;
};

const tooManyRequests = (retryAfter: number) => new DomainError('too-many-requests', 'too-many-requests', 'Too many requests, try again later', { retryAfter });

export function createRateLimiter(store: CounterStore): RateLimiter {
  return {
    async hit(bucket, key, rule) {
      const { count, leftMs } = await store.hit(`${bucket}:${key}`, rule.windowMs);
      if (count > rule.max) throw tooManyRequests(Math.max(1, Math.ceil(leftMs / 1000)));
    },
  };
}

export type SignInThrottle = {
  /**
   * One guess at `account` from `ip` (a password, a token, a key's or a code's answer): counted
   * as a failure of the pair and of the address BEFORE `run` checks it, so that guesses sent at
   * once, at one account or many, never pass the free failures; 429 (Retry-After) while either
   * must wait. `run` calls `wrong` when the guess was wrong (its failures stay counted); else the
   * guess is given back when `run` ends, and with `forgets` a right one forgets the pair's
   * failures (the owner proved). A reservation never given back (a crash) is a failure, forgotten
   * as failures are.
   */
  guess<T>(account: string, ip: string, run: (wrong: <V>(value: V) => V) => Promise<T>, options?: { forgets?: boolean }): Promise<T>;
  /** Throws 429 (Retry-After) while this account from this address, or this address, must wait; for counts kept under a turn. */
  check(account: string, ip: string): Promise<void>;
  /** Counts a failure checked under a turn (the second factor's ceiling). */
  fail(account: string, ip: string): Promise<void>;
  /** Failures of this account from this address still remembered. */
  failures(account: string, ip: string): Promise<number>;
};

/**
 * Password guesses, throttled without lockout: failures count per (account, address) and per
 * address, each with free attempts then a delay that doubles per failure. A stranger's
 * failures never delay the owner signing in from another address, and a success resets.
 * `name` keeps apart throttles that share a store (passwords, the second factor's ceiling).
 */
export function createSignInThrottle(rule: ThrottleRule, store: CounterStore, name: string, logger: Logger): SignInThrottle {
  // An address has no space in it: what follows the first one is the account, whatever it holds.
  const pair = (account: string, ip: string) => `${name}-pair:${ip} ${account.toLowerCase()}`;
  const address = (ip: string) => `${name}-address:${ip}`;
  const waitOf = (entry: { count: number; agoMs: number } | undefined, free: number) =>
    entry ? throttleWait(entry.count, entry.agoMs, free, rule.maxDelayMs) : 0;
  return {
    async guess<T>(account: string, ip: string, run: (wrong: <V>(value: V) => V) => Promise<T>, options: { forgets?: boolean } = {}): Promise<T> {
      const reserved = await store.reserve(
        [
          { key: pair(account, ip), free: rule.accountFree },
          { key: address(ip), free: rule.addressFree },
        ],
        rule,
      );
      if ('waitMs' in reserved) throw tooManyRequests(Math.ceil(reserved.waitMs / 1000));
      let judged = false;
      const wrong = <V>(value: V) => {
        judged = true;
        return value;
      };
      // Giving back failing (a deadlock, a dropped connection) never fails the guess: the caller
      // proved themselves, or the request failed already. It stays one failure more, which
      // is forgotten as failures are.
      const giveBack = (forget?: string) =>
        reserved
          .giveBack(forget)
          .catch((error: unknown) =>
            logger.error('guess not given back: it counts as a failure until forgotten', { error: error instanceof Error ? error.message : String(error) }),
          );
      let value: T;
      try {
        value = await run(wrong);
      } catch (error) {
        // Not checked (a failing query, a refusal before the check): no failure of its own.
        if (!judged) await giveBack();
        throw error;
      }
      if (!judged) await giveBack(options.forgets ? pair(account, ip) : undefined);
      return value;
    },
    async check(account, ip) {
      const [ofPair, ofAddress] = await store.read([pair(account, ip), address(ip)]);
      const wait = Math.max(waitOf(ofPair, rule.accountFree), waitOf(ofAddress, rule.addressFree));
      if (wait > 0) throw tooManyRequests(Math.ceil(wait / 1000));
    },
    fail: (account, ip) => store.fail([pair(account, ip), address(ip)], rule.forgetMs),
    async failures(account, ip) {
      const [entry] = await store.read([pair(account, ip)]);
      return entry?.count ?? 0;
    },
  };
}

export type Turns = {
  /** Runs `run` with no other run of the same key in between, on this instance or another. */
  take<T>(key: string, run: () => Promise<T>): Promise<T>;
};

/** Longest a turn is held: a crashed instance's turn passes on after this. */
const TURN_LEASE_MS = 5_000;
const TURN_POLL_MS = 20;

/**
 * One run at a time per key, for a check and its count that must not interleave (second-factor
 * guesses, decision 052): runs of this instance queue in memory, and the store's claim makes
 * the instances take turns (decision 053). Only runs of one key on two instances at once wait
 * for the claim.
 */
export function createTurns(store: CounterStore): Turns {
  const queued = new Map<string, Promise<unknown>>();
  async function exclusive<T>(key: string, run: () => Promise<T>): Promise<T> {
    const token = randomInt(1, 2 ** 31 - 1);
    while (!(await store.claim(`turn:${key}`, token, TURN_LEASE_MS))) await new Promise((resolve) => setTimeout(resolve, TURN_POLL_MS));
    try {
      return await run();
    } finally {
      await store.release(`turn:${key}`, token);
    }
  }
  return {
    take(key, run) {
      const before = queued.get(key) ?? Promise.resolve();
      const turn = before.then(() => exclusive(key, run));
      const settled = turn.catch(() => undefined);
      queued.set(key, settled);
      void settled.then(() => {
        if (queued.get(key) === settled) queued.delete(key);
      });
      return turn;
    },
  };
}
