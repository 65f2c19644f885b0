// Second-factor guesses are throttled per (user, client address), with a slower ceiling per user
// (decision 052): an attacker who has the password and guesses codes from one address never
// locks the owner out from another, and many addresses together still meet the ceiling.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { databaseKinds, postJson, startTestApp, type TestApp } from './support/app.ts';

/** The code of the app `steps` periods from now (the enrolment used this period's). */
const codeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
const wrongCodeOf = (secret: string) => String((Number(codeOf(secret)) + 500_000) % 1_000_000).padStart(6, '0');

// The same figures whichever store counts: memory beside PGlite, the shared table on PostgreSQL (decision 053).
describe.each(databaseKinds)('second-factor throttling on %s', (kind) => {
  let t: TestApp;
  let api: string;
  /** A request from `address`: the app trusts one proxy, which appends the client's address. */
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const signInPassword = (email: string, address: string) => postJson(`${api}/signin/email-password`, { email, password: DEMO_PASSWORD }, from(address));
  async function enrol(email: string) {
    const session = (await signInPassword(email, '198.51.100.1')).body.session;
    const headers = { authorization: `Bearer ${session.accessToken}`, ...from('198.51.100.1') };
    const generated = await fetch(`${api}/mfa/totp/generate`, { headers }).then((r) => r.json());
    expect((await postJson(`${api}/user/mfa`, { code: codeOf(generated.totpSecret), activeMfaType: 'totp' }, headers)).status).toBe(200);
    return generated.totpSecret as string;
  }
  const ticketOf = async (email: string, address: string) => (await signInPassword(email, address)).body.mfa.ticket as string;
  const guess = (ticket: string, otp: string, address: string) => postJson(`${api}/signin/mfa/totp`, { ticket, otp }, from(address));

  beforeAll(async () => {
    t = await startTestApp(kind, { trustProxy: 1 });
    api = `${t.url}/api/auth`;
  });
  afterAll(() => t?.close());

  it("lets the owner in from another address after an attacker's five wrong codes", async () => {
    const secret = await enrol('diagnostic@demo.local');
    const attacker = '203.0.113.7';
    const ticket = await ticketOf('diagnostic@demo.local', attacker);
    for (let i = 0; i < 5; i++) expect(await guess(ticket, wrongCodeOf(secret), attacker)).toMatchObject({ status: 401, body: { error: 'invalid-totp' } });
    // The attacker's next guess waits…
    const again = await ticketOf('diagnostic@demo.local', attacker);
    expect(await guess(again, wrongCodeOf(secret), attacker)).toMatchObject({ status: 429, body: { error: 'too-many-requests' } });
    // …the owner at the workshop does not.
    const owner = '192.0.2.10';
    const signedIn = await guess(await ticketOf('diagnostic@demo.local', owner), codeOf(secret, 1), owner);
    expect(signedIn).toMatchObject({ status: 200, body: { session: { user: { email: 'diagnostic@demo.local' } } } });
  });

  it('stops guesses from many addresses at the per-user ceiling, the owner included', async () => {
    const secret = await enrol('commercial@demo.local');
    // Four wrong codes from each of many addresses: under every address's own allowance.
    let refused = 0;
    for (let n = 0; n < 20 && !refused; n++) {
      const address = `203.0.113.${100 + n}`;
      const ticket = await ticketOf('commercial@demo.local', address);
      for (let i = 0; i < 4; i++) {
        const res = await guess(ticket, wrongCodeOf(secret), address);
        if (res.status === 429) refused = n * 4 + i;
        else expect(res).toMatchObject({ status: 401, body: { error: 'invalid-totp' } });
        if (refused) break;
      }
    }
    // The ceiling (30 failures a day per user) stopped the thirty-first guess.
    expect(refused).toBe(30);
    const owner = '192.0.2.20';
    const res = await guess(await ticketOf('commercial@demo.local', owner), codeOf(secret, 1), owner);
    expect(res).toMatchObject({ status: 429, body: { error: 'too-many-requests' } });
  });

  it('never lets one address alone reach the ceiling, however long it goes on', async () => {
    // The address's own failures forgotten after a second instead of 15 minutes: the rounds run fast.
    const quick = await startTestApp(kind, { trustProxy: 1, signInThrottle: { accountFree: 5, addressFree: 50, maxDelayMs: 1000, forgetMs: 1000 } });
    const main = api;
    api = `${quick.url}/api/auth`;
    try {
      const secret = await enrol('admin@demo.local');
      const attacker = '203.0.113.50';
      // Eight rounds of five wrong codes, each once the address's failures are forgotten: 40 failures.
      for (let round = 0; round < 8; round++) {
        const ticket = await ticketOf('admin@demo.local', attacker);
        for (let i = 0; i < 5; i++) expect(await guess(ticket, wrongCodeOf(secret), attacker)).toMatchObject({ status: 401 });
        await new Promise((resolve) => setTimeout(resolve, 1100));
      }
      const owner = '192.0.2.30';
      const res = await guess(await ticketOf('admin@demo.local', owner), codeOf(secret, 1), owner);
      expect(res).toMatchObject({ status: 200, body: { session: { user: { email: 'admin@demo.local' } } } });
    } finally {
      api = main;
      await quick.close();
    }
  }, 60_000);
});

describe('a sign-in ticket used by its right code', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t?.close());

  it('stays used when a wrong code sent alongside is counted after it', async () => {
    const auth = t.app.services.auth;
    const ticket = `mfaTotp:${crypto.randomUUID()}`;
    await auth.createChallenge('mfaTotp', ticket, { data: { method: 'password' }, ttlMs: 60_000 });
    // A wrong code's request found the ticket live, then the right code's request used it…
    const pending = await auth.findChallenge('mfaTotp', ticket);
    expect(await auth.consumeChallenge('mfaTotp', ticket)).toBeDefined();
    // …and the wrong code is counted last: the ticket is spent, and cannot be redeemed again.
    expect(await auth.failChallenge(pending!.id, 5)).toBe(true);
    expect(await auth.findChallenge('mfaTotp', ticket)).toBeUndefined();
    expect(await auth.consumeChallenge('mfaTotp', ticket)).toBeUndefined();
  });
});
