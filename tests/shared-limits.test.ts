// Issue 30, item 1 (decision 053): rate limits and throttles count in PostgreSQL, so a caller
// gets the same allowance behind two instances, alternating between them, as behind one; and a
// burst of wrong passwords at many accounts gets no more than its address's free failures.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { type CounterStore, createMemoryCounters, createPostgresCounters } from '#server/auth/counters.ts';
import { createSignInThrottle } from '#server/auth/rate-limit.ts';
import { defaultRateLimits, defaultSignInThrottle } from '#server/config.ts';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';
import { users } from '#server/db/schema/index.ts';

/** Instances behind one proxy share their secrets and PUBLIC_URL, and trust that proxy. */
const behindOneProxy = () => ({
  jwtSecret: randomBytes(32).toString('hex'),
  sessionSecret: randomBytes(32).toString('hex'),
  encryptionKeys: [randomBytes(32).toString('hex')],
  publicUrl: 'http://atelier.test',
  trustProxy: 1,
  // The figures an installation has, not the functional suites' wider ones.
  rateLimits: defaultRateLimits,
});

/**
 * A burst of wrong passwords at as many accounts from one address, sent at once: each account
 * keeps its own five free failures, so only the address's count can stop it. `instances()` take
 * the requests in turn (one, or two on one PostgreSQL).
 */
function describeBurst(label: string, instances: () => TestApp[]) {
  describe(`a burst at many accounts from one address, ${label}`, () => {
    const accounts: string[] = [];
    beforeAll(async () => {
      // Accounts an admin created, whose owners have not chosen a password yet.
      accounts.push(...Array.from({ length: 80 }, (_, n) => `cible-${n}@garage.fr`));
      await instances()[0]!
        .database.db.insert(users)
        .values(accounts.map((email, n) => ({ email, displayName: `Cible ${n}`, defaultRole: 'mechanic' })));
    });
    /**
     * How many wrong passwords past `free` an address may have checked during `ms`: once its free
     * failures are spent it waits 1 s, then 2 s, 4 s… (a burst slowed down by a loaded machine
     * rightly gets one more after each wait).
     */
    const pastFree = (ms: number) => Math.floor(Math.log2(ms / 1000 + 1));
    const timed = async <T>(run: () => Promise<T>) => {
      const started = performance.now();
      const result = await run();
      return { result, ms: performance.now() - started };
    };
    const signIn = (n: number, email: string, password: string, address: string) =>
      postJson(`${instances()[n % instances().length]!.url}/api/auth/signin/email-password`, { email, password }, { 'x-forwarded-for': address });

    it("checks no more wrong passwords than the address's free failures, and never stops the owner elsewhere", async () => {
      const {
        result: [answers, owner],
        ms,
      } = await timed(() =>
        Promise.all([
          Promise.all(accounts.map((email, n) => signIn(n, email, 'Devinette-1!', '203.0.113.80'))),
          signIn(1, 'commercial@demo.local', DEMO_PASSWORD, '198.51.100.80'),
        ]),
      );
      const checked = answers.filter((r) => r.status === 401).length;
      const refused = answers.filter((r) => r.status === 429);
      expect(checked).toBeGreaterThanOrEqual(defaultSignInThrottle.addressFree);
      expect(checked, `checked in ${Math.round(ms)} ms`).toBeLessThanOrEqual(defaultSignInThrottle.addressFree + pastFree(ms));
      expect(refused).toHaveLength(80 - checked);
      for (const r of refused) {
        expect(r.body).toMatchObject({ status: 429, error: 'too-many-requests' });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect(owner.status).toBe(200);
      expect((await signIn(0, 'admin@demo.local', DEMO_PASSWORD, '198.51.100.81')).status).toBe(200);
    });

    it('lets a right password through from an address still under its free failures, in the middle of a burst', async () => {
      const wrong = accounts.slice(0, 40);
      const [answers, right] = await Promise.all([
        Promise.all(wrong.map((email, n) => signIn(n, email, 'Devinette-2!', '203.0.113.81'))),
        signIn(1, 'admin@demo.local', DEMO_PASSWORD, '203.0.113.81'),
      ]);
      expect(answers.map((r) => r.status)).toEqual(wrong.map(() => 401));
      expect(right.status).toBe(200);
      // A right password is no failure: the address has ten left, then waits.
      const { result: next, ms } = await timed(() => Promise.all(accounts.slice(40).map((email, n) => signIn(n, email, 'Devinette-3!', '203.0.113.81'))));
      const checked = next.filter((r) => r.status === 401).length;
      expect(checked).toBeGreaterThanOrEqual(defaultSignInThrottle.addressFree - 40);
      expect(checked, `checked in ${Math.round(ms)} ms`).toBeLessThanOrEqual(defaultSignInThrottle.addressFree - 40 + pastFree(ms));
    });
  });
}

describe('a guess given back', () => {
  it('answers a right password although giving its guess back fails, and logs it', async () => {
    const memory = createMemoryCounters();
    // A store whose giving back fails (a deadlock, a dropped connection), as PostgreSQL's may.
    const failing: CounterStore = {
      ...memory,
      async reserve(keys, rule) {
        const reserved = await memory.reserve(keys, rule);
        return 'waitMs' in reserved ? reserved : { giveBack: () => Promise.reject(new Error('Connection terminated unexpectedly')) };
      },
    };
    const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
    const logger = { info: () => undefined, error: (msg: string, fields?: Record<string, unknown>) => logged.push({ msg, fields }) };
    const throttle = createSignInThrottle(defaultSignInThrottle, failing, 'sign-in', logger);
    expect(await throttle.guess('admin@demo.local', '192.0.2.9', async () => 'signed in', { forgets: true })).toBe('signed in');
    expect(logged).toEqual([{ msg: 'guess not given back: it counts as a failure until forgotten', fields: { error: 'Connection terminated unexpectedly' } }]);
    // Worst case, one failure more for the pair and the address, forgotten as failures are.
    expect(await throttle.failures('admin@demo.local', '192.0.2.9')).toBe(1);
  });
});

describe('one instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', behindOneProxy());
  });
  afterAll(() => t?.close());
  describeBurst('on one instance', () => [t]);
});

describe('limits behind two instances on one PostgreSQL', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const shared = behindOneProxy();
    a = await startTestApp('postgres', shared);
    // And, with files on disk, their DATA_DIR (decision 057).
    b = await startTestApp('postgres', { ...shared, databaseUrl: a.config.databaseUrl, dataDir: a.config.dataDir, env: { DEMO_DATA: '0' } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** Requests answered before the first 429, and that 429's Retry-After. */
  async function allowance(send: (n: number) => Promise<{ status: number; headers: Headers }>) {
    for (let n = 0; n < 30; n++) {
      const res = await send(n);
      if (res.status === 429) return { allowed: n, retryAfter: res.headers.get('retry-after') };
    }
    return { allowed: Infinity, retryAfter: null };
  }
  const signIn = (t: TestApp, email: string, address: string) =>
    postJson(`${t.url}/api/auth/signin/email-password`, { email, password: 'Pas-le-bon-1!' }, { 'x-forwarded-for': address });
  const askReset = (t: TestApp, email: string, address: string) => postJson(`${t.url}/api/auth/user/password/reset`, { email }, { 'x-forwarded-for': address });

  it('gives as many wrong passwords before a 429 behind two instances as behind one', async () => {
    const one = await allowance(() => signIn(a, 'admin@demo.local', '203.0.113.1'));
    const two = await allowance((n) => signIn(n % 2 ? b : a, 'commercial@demo.local', '203.0.113.2'));
    expect(one).toEqual({ allowed: defaultSignInThrottle.accountFree, retryAfter: '1' });
    expect(two).toEqual(one);
  });

  it('checks five of the wrong passwords sent at once at one account, whichever instance takes them', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => signIn(n % 2 ? b : a, 'mecanicien@demo.local', '203.0.113.3')));
    expect(answers.filter((r) => r.status === 401)).toHaveLength(defaultSignInThrottle.accountFree);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(20 - defaultSignInThrottle.accountFree);
  });

  it('gives as many password-reset requests for one address behind two instances as behind one', async () => {
    // A new client address each time: only the limit per e-mail address counts.
    const one = await allowance((n) => askReset(a, 'inconnu-1@garage.fr', `198.51.100.${n + 1}`));
    const two = await allowance((n) => askReset(n % 2 ? b : a, 'inconnu-2@garage.fr', `198.51.100.${n + 101}`));
    expect(one.allowed).toBe(defaultRateLimits.emailPerAddress.max);
    expect(two.allowed).toBe(one.allowed);
    expect(Number(two.retryAfter)).toBeGreaterThan(3500);
  });

  it('loses no request counted by both instances at once', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, n) => askReset(n % 2 ? b : a, 'inconnu-3@garage.fr', `192.0.2.${n + 1}`).then((res) => res.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(defaultRateLimits.emailPerAddress.max);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - defaultRateLimits.emailPerAddress.max);
  });

  it('checks the second-factor guesses of one user one after the other, whichever instance takes them', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const session = (
      await postJson(`${a.url}/api/auth/signin/email-password`, { email: 'diagnostic@demo.local', password: DEMO_PASSWORD }, from('192.0.2.200'))
    ).body.session;
    const headers = { authorization: `Bearer ${session.accessToken}`, ...from('192.0.2.200') };
    const { totpSecret } = await fetch(`${a.url}/api/auth/mfa/totp/generate`, { headers }).then((r) => r.json());
    const codeNow = TOTP.generate({ secret: Secret.fromBase32(totpSecret) });
    expect((await postJson(`${a.url}/api/auth/user/mfa`, { code: codeNow, activeMfaType: 'totp' }, headers)).status).toBe(200);
    const wrong = String((Number(codeNow) + 500_000) % 1_000_000).padStart(6, '0');
    // Four tickets of five tries each, all spent at once from one address through both instances.
    const attacker = '203.0.113.66';
    const tickets: string[] = [];
    for (let i = 0; i < 4; i++) {
      tickets.push(
        (await postJson(`${(i % 2 ? b : a).url}/api/auth/signin/email-password`, { email: 'diagnostic@demo.local', password: DEMO_PASSWORD }, from(attacker)))
          .body.mfa.ticket,
      );
    }
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => postJson(`${(n % 2 ? b : a).url}/api/auth/signin/mfa/totp`, { ticket: tickets[n % 4], otp: wrong }, from(attacker))),
    );
    // As on one instance: five wrong codes checked, then every other guess waits.
    expect(answers.filter((r) => r.body.error === 'invalid-totp')).toHaveLength(defaultSignInThrottle.accountFree);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(20 - defaultSignInThrottle.accountFree);
  });

  describeBurst('behind two instances on one PostgreSQL', () => [a, b]);

  describe.each(['memory', 'PostgreSQL'])('a guess reserved in the %s store', (kind) => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // One free failure, then 150 ms between guesses; failures forgotten 300 ms after the last.
    const rule = { maxDelayMs: 150, forgetMs: 300 };
    const store = (): CounterStore => (kind === 'memory' ? createMemoryCounters() : createPostgresCounters(a.database.db, a.config.sessionSecret));
    const key = () => [{ key: `reserve-test:${randomBytes(4).toString('hex')}`, free: 1 }];

    it('is never given back by a crashed instance, and expires as a failure does', async () => {
      const counters = store();
      const keys = key();
      expect(await counters.reserve(keys, rule)).toHaveProperty('giveBack');
      expect(await counters.reserve(keys, rule)).toEqual({ waitMs: expect.any(Number) });
      await pause(rule.forgetMs + 50);
      expect(await counters.reserve(keys, rule)).toHaveProperty('giveBack');
    });

    it('given back, leaves the wait as the last wrong guess set it', async () => {
      const counters = store();
      const keys = key();
      await counters.reserve(keys, rule);
      await pause(rule.maxDelayMs + 30);
      const right = await counters.reserve(keys, rule);
      if ('waitMs' in right) throw new Error(`refused for ${right.waitMs} ms`);
      await right.giveBack();
      // Waited from the wrong guess, not from the right one: no wait now.
      expect(await counters.reserve(keys, rule)).toHaveProperty('giveBack');
      const [entry] = await counters.read([keys[0]!.key]);
      expect(entry?.count).toBe(2);
    });
  });

  it('never deadlocks two guesses when a row of theirs appears while one of them waits', async () => {
    const [onA, onB] = [a, b].map((t) => createPostgresCounters(t.database.db, t.config.sessionSecret));
    const rule = { maxDelayMs: 60_000, forgetMs: 60_000 };
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // A row appears that sorts before one the guesses wait for (`race-a`, `race-b`), as a first
    // failure's row may (the real kinds sort the address first: this is the store's own guarantee).
    const id = randomBytes(4).toString('hex');
    const keys = [
      { key: `race-a:${id}`, free: 100 },
      { key: `race-b:${id}`, free: 100 },
    ];
    await onA!.fail([keys[1]!.key], rule.forgetMs);
    const stored = (
      await queryRows<{ key: string }>(a.database.db, sql`select key from auth.rate_counters where key like 'race-b:%' order by last_at desc limit 1`)
    )[0]!.key;
    let first: Promise<unknown> = Promise.resolve();
    let second: Promise<unknown> = Promise.resolve();
    let counted: Promise<unknown> = Promise.resolve();
    await a.database.db.transaction(async (tx) => {
      // A guess at the same address holds its row.
      await tx.execute(sql`select 1 from auth.rate_counters where key = ${stored} for update`);
      // One guess starts and waits for it, before the pair's row exists.
      first = onB!.reserve(keys, rule).catch((error: unknown) => error);
      await pause(150);
      // Another guess counts the pair's first failure, and a third starts: it finds both rows.
      counted = onB!.fail([keys[0]!.key], rule.forgetMs);
      await pause(50);
      second = onA!.reserve(keys, rule).catch((error: unknown) => error);
      await pause(150);
    });
    const [answers] = await Promise.all([Promise.all([first, second]), counted]);
    // PostgreSQL finds the deadlock after a second and aborts one: before, that guess failed
    // (40P01, a 500 for the sign-in); now it is sent again.
    expect(answers.map((r) => (r instanceof Error ? (((r.cause as { code?: string }) ?? r).code ?? r.message) : 'giveBack' in (r as object)))).toEqual([
      true,
      true,
    ]);
    const [pair, address] = await onA!.read(keys.map((k) => k.key));
    expect([pair?.count, address?.count]).toEqual([3, 3]);
  });

  it('sweeps out the counters whose window or memory has ended, and only those', async () => {
    const db = a.database.db;
    const left = async () => (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from auth.rate_counters where key like 'old:%'`))[0]!.n;
    await db.execute(sql`insert into auth.rate_counters (key, count, last_at, expires_at)
      select 'old:' || n, 1, now() - interval '2 hours', now() - interval '1 hour' from generate_series(1, 500) n`);
    await db.execute(sql`insert into auth.rate_counters (key, count, last_at, expires_at) values ('old:live', 3, now(), now() + interval '1 hour')`);
    expect(await left()).toBe(501);
    // One hit in a hundred sweeps; this store sweeps at every one.
    await createPostgresCounters(db, a.config.sessionSecret, 1).hit('sweep:192.0.2.1', 60_000);
    expect(await left()).toBe(1);
  });
});
