// Rate limits (fixed windows) and throttles (failures, then growing delays), counted in a
// CounterStore: PostgreSQL's, shared by every instance, or this process's memory (decision 053).
import type { RateLimitRule, ThrottleRule } from '#server/config.ts';
import { randomInt } from 'node:crypto';
import { DomainError } from '#server/errors.ts';
import type { CounterStore } from './counters.ts';

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
  /** Throws 429 (Retry-After) while this account from this address, or this address, must wait. */
  check(account: string, ip: string): Promise<void>;
  fail(account: string, ip: string): Promise<void>;
  /** A success forgets the failures of this account from this address. */
  succeed(account: string, ip: string): Promise<void>;
  /** Failures of this account from this address still remembered. */
  failures(account: string, ip: string): Promise<number>;
};

/**
 * Password guesses, throttled without lockout: failures count per (account, address) and per
 * address, each with free attempts then a delay that doubles per failure. A stranger's
 * failures never delay the owner signing in from another address, and a success resets.
 * `name` keeps apart throttles that share a store (passwords, the second factor's ceiling).
 */
export function createSignInThrottle(rule: ThrottleRule, store: CounterStore, name: string): SignInThrottle {
  // An address has no space in it: what follows the first one is the account, whatever it holds.
  const pair = (account: string, ip: string) => `${name}-pair:${ip} ${account.toLowerCase()}`;
  const address = (ip: string) => `${name}-address:${ip}`;
  const waitOf = (entry: { count: number; agoMs: number } | undefined, free: number) => {
    if (!entry || entry.count < free) return 0;
    const delay = Math.min(rule.maxDelayMs, 1000 * 2 ** (entry.count - free));
    return Math.max(0, delay - entry.agoMs);
  };
  return {
    async check(account, ip) {
      const [ofPair, ofAddress] = await store.read([pair(account, ip), address(ip)]);
      const wait = Math.max(waitOf(ofPair, rule.accountFree), waitOf(ofAddress, rule.addressFree));
      if (wait > 0) throw tooManyRequests(Math.ceil(wait / 1000));
    },
    fail: (account, ip) => store.fail([pair(account, ip), address(ip)], rule.forgetMs),
    succeed: (account, ip) => store.forget(pair(account, ip)),
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
