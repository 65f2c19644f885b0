// Fixed-window counters in memory, per instance.
import type { RateLimitRule } from '../config.ts';
import { ApiError } from '../http/json.ts';

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
        throw new ApiError(429, 'too-many-requests', 'Too many requests, try again later', {
          'Retry-After': String(retryAfter),
        });
      }
    },
    reset() {
      windows.clear();
    },
  };
}
