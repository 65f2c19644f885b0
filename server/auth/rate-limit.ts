// Fixed-window counters in memory, per instance.
import type { RateLimitRule, ThrottleRule } from '#server/config.ts';
import { DomainError } from '#server/errors.ts';

export type RateLimiter = { hit(bucket: string, key: string, rule: RateLimitRule): void; reset(): void };

export function createRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let lastSweep = now();
  return {
    hit(bucket, key, rule) {
      const t = now();
      if (t - lastSweep > 60_000) {
        for (const [k, w] of windows) if (w.resetAt <= t) windows.delete(k);
        lastSweep = t;
      }
      const id = `${bucket}:${key}`;
      let w = windows.get(id);
      if (!w || w.resetAt <= t) {
        w = { count: 0, resetAt: t + rule.windowMs };
        windows.set(id, w);
      }
      w.count++;
      if (w.count > rule.max) {
        const retryAfter = Math.max(1, Math.ceil((w.resetAt - t) / 1000));
        throw new DomainError('too-many-requests', 'too-many-requests', 'Too many requests, try again later', { retryAfter });
      }
    },
    reset() {
      windows.clear();
    },
  };
}

/** Failures before a delay, and the longest delay; `addressFree` counts across accounts. */

export type SignInThrottle = {
  /** Throws 429 (Retry-After) while this account from this address, or this address, must wait. */
  check(account: string, ip: string): void;
  fail(account: string, ip: string): void;
  /** A success forgets the failures of this account from this address. */
  succeed(account: string, ip: string): void;
  /** Failures of this account from this address still remembered. */
  failures(account: string, ip: string): number;
};

const MAX_ENTRIES = 100_000;

/**
 * Password guesses, throttled without lockout: failures count per (account, address) and per
 * address, each with free attempts then a delay that doubles per failure. A stranger's
 * failures never delay the owner signing in from another address, and a success resets.
 */
export function createSignInThrottle(rule: ThrottleRule, now: () => number = Date.now): SignInThrottle {
  const failures = new Map<string, { count: number; last: number }>();
  const waitOf = (key: string, free: number, t: number) => {
    const entry = failures.get(key);
    if (!entry || t - entry.last > rule.forgetMs) return 0;
    if (entry.count < free) return 0;
    const delay = Math.min(rule.maxDelayMs, 1000 * 2 ** (entry.count - free));
    return Math.max(0, entry.last + delay - t);
  };
  const count = (key: string, t: number) => {
    const entry = failures.get(key);
    if (entry && t - entry.last <= rule.forgetMs) {
      entry.count++;
      entry.last = t;
      return;
    }
    // The oldest entries go first (Map keeps insertion order): memory stays bounded.
    if (failures.size >= MAX_ENTRIES) failures.delete(failures.keys().next().value!);
    failures.delete(key);
    failures.set(key, { count: 1, last: t });
  };
  const pair = (account: string, ip: string) => `${account.toLowerCase()}\u0000${ip}`;
  return {
    check(account, ip) {
      const t = now();
      const wait = Math.max(waitOf(pair(account, ip), rule.accountFree, t), waitOf(`\u0000${ip}`, rule.addressFree, t));
      if (wait > 0) {
        throw new DomainError('too-many-requests', 'too-many-requests', 'Too many requests, try again later', { retryAfter: Math.ceil(wait / 1000) });
      }
    },
    fail(account, ip) {
      const t = now();
      count(pair(account, ip), t);
      count(`\u0000${ip}`, t);
    },
    succeed(account, ip) {
      failures.delete(pair(account, ip));
    },
    failures(account, ip) {
      const entry = failures.get(pair(account, ip));
      return entry && now() - entry.last <= rule.forgetMs ? entry.count : 0;
    },
  };
}
