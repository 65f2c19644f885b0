// The second factor (TOTP and recovery codes) as a client sees it: enrolment over HTTP, sign-in
// with an MFA ticket through @nhost/hasura-auth-js, and every replayed, expired, foreign or
// malformed code or ticket refused with the documented error and no session.
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKeyring, open, totpContext } from '#server/auth/vault.ts';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { databaseKinds, postJson, startTestApp, verifyLink, type TestApp, authClient } from './support/app.ts';

/** The code of the app `steps` periods from now. */
const codeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
const CLAIMS = 'https://hasura.io/jwt/claims';
const elevatedClaim = (accessToken: string) => (decodeJwt(accessToken)[CLAIMS] as Record<string, unknown>)['x-hasura-auth-elevated'];

describe.each(databaseKinds)('TOTP on %s', (kind) => {
  let t: TestApp;
  let api: string;
  const signInPassword = (email: string) => postJson(`${api}/signin/email-password`, { email, password: DEMO_PASSWORD });
  const bearerOf = (session: { accessToken: string }) => ({ authorization: `Bearer ${session.accessToken}` });
  /** Enrols `email`; returns its secret and recovery codes. */
  async function enrol(email: string) {
    const headers = bearerOf((await signInPassword(email)).body.session);
    const generated = await fetch(`${api}/mfa/totp/generate`, { headers }).then((r) => r.json());
    const activated = await postJson(`${api}/user/mfa`, { code: codeOf(generated.totpSecret), activeMfaType: 'totp' }, headers);
    expect(activated.status).toBe(200);
    return { secret: generated.totpSecret as string, recoveryCodes: activated.body.recoveryCodes as string[], headers };
  }
  /** Lets the next code of the same period be accepted again (each test's codes are its own). */
  const forgetLastCode = (email: string) => t.database.db.execute(sql`update auth.users set totp_last_step = null where email = ${email}`);

  beforeAll(async () => {
    t = await startTestApp(kind);
    api = `${t.url}/api/auth`;
  });
  afterAll(() => t?.close());

  it('enrols with a secret and QR code, refuses a wrong first code, and gives ten recovery codes once', async () => {
    const headers = bearerOf((await signInPassword('commercial@demo.local')).body.session);
    const unsigned = await fetch(`${api}/mfa/totp/generate`);
    expect(unsigned.status).toBe(401);
    const activateEarly = await postJson(`${api}/user/mfa`, { code: '123456', activeMfaType: 'totp' }, headers);
    expect(activateEarly).toMatchObject({ status: 400, body: { error: 'no-totp-secret' } });

    const res = await fetch(`${api}/mfa/totp/generate`, { headers });
    const generated = await res.json();
    expect(res.status).toBe(200);
    expect(generated.totpSecret).toMatch(/^[A-Z2-7]{32}$/);
    expect(generated.imageUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(generated.imageUrl.split(',')[1], 'base64').toString()).toContain('<path');

    const wrong = String((Number(codeOf(generated.totpSecret)) + 1) % 1_000_000).padStart(6, '0');
    expect(await postJson(`${api}/user/mfa`, { code: wrong, activeMfaType: 'totp' }, headers)).toMatchObject({ status: 400, body: { error: 'invalid-totp' } });
    expect(await postJson(`${api}/user/mfa`, { code: 'abc', activeMfaType: 'sms' }, headers)).toMatchObject({
      status: 400,
      body: { error: 'invalid-request' },
    });

    const activated = await postJson(`${api}/user/mfa`, { code: codeOf(generated.totpSecret), activeMfaType: 'totp' }, headers);
    expect(activated.status).toBe(200);
    expect(activated.body.recoveryCodes).toHaveLength(10);
    for (const code of activated.body.recoveryCodes) expect(code).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    expect(new Set(activated.body.recoveryCodes).size).toBe(10);

    expect(await fetch(`${api}/mfa/totp/generate`, { headers }).then((r) => r.status)).toBe(409);
    expect(await fetch(`${api}/user`, { headers }).then((r) => r.json() as Promise<object>)).toMatchObject({ activeMfaType: 'totp' });
    // Only hashes are kept.
    const stored = await queryRows<{ code_hash: string }>(t.database.db, sql`select code_hash from auth.recovery_codes`);
    expect(stored.length).toBeGreaterThanOrEqual(10);
    for (const code of activated.body.recoveryCodes) expect(stored.map((row) => row.code_hash).join(' ')).not.toContain(code.replace('-', ''));
  });

  it('signs in through @nhost/hasura-auth-js with the password, then the ticket and a code; the code works once', async () => {
    const { secret } = await enrol('diagnostic@demo.local');
    const auth = authClient(t.url);
    const first = await auth.signIn({ email: 'diagnostic@demo.local', password: DEMO_PASSWORD });
    expect(first.session).toBeNull();
    expect(first.mfa?.ticket).toMatch(/^mfaTotp:[0-9a-f-]{36}$/);
    expect(auth.isAuthenticated()).toBe(false);

    const code = codeOf(secret, 1);
    const second = await auth.signIn({ otp: code, ticket: first.mfa!.ticket });
    expect(second.error).toBeNull();
    expect(auth.isAuthenticated()).toBe(true);
    expect(auth.getUser()).toMatchObject({ email: 'diagnostic@demo.local', activeMfaType: 'totp' });
    // The code proved the second factor: the sign-in is elevated for step-up.
    expect(elevatedClaim(second.session!.accessToken)).toBe(auth.getUser()!.id);

    // The same code again, with a fresh ticket: refused.
    const again = await signInPassword('diagnostic@demo.local');
    const replay = await postJson(`${api}/signin/mfa/totp`, { ticket: again.body.mfa.ticket, otp: code });
    expect(replay).toMatchObject({ status: 401, body: { error: 'invalid-totp' } });
    expect(replay.body.session).toBeUndefined();
    // The used ticket is gone.
    await forgetLastCode('diagnostic@demo.local');
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket: first.mfa!.ticket, otp: codeOf(secret) })).toMatchObject({
      status: 401,
      body: { error: 'invalid-mfa-ticket' },
    });
  });

  it('refuses a missing, malformed, expired or foreign ticket and a wrong code, and keeps the ticket for another try', async () => {
    const { secret } = await enrol('admin@demo.local');
    const { body } = await signInPassword('admin@demo.local');
    expect(body).toMatchObject({ session: null, mfa: { ticket: expect.any(String) } });
    const ticket = body.mfa.ticket as string;

    expect(await postJson(`${api}/signin/mfa/totp`, { otp: '123456' })).toMatchObject({ status: 400, body: { error: 'no-mfa-ticket' } });
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket: 'mfaTotp:nope', otp: '123456' })).toMatchObject({
      status: 401,
      body: { error: 'invalid-mfa-ticket' },
    });
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket: `mfaTotp:${crypto.randomUUID()}`, otp: '123456' })).toMatchObject({
      status: 401,
      body: { error: 'invalid-mfa-ticket' },
    });
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket, otp: '' })).toMatchObject({ status: 400 });

    // Another user's code does not open this ticket.
    const other = await enrol('mecanicien@demo.local');
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket, otp: codeOf(other.secret) })).toMatchObject({ status: 401, body: { error: 'invalid-totp' } });
    // ...and the ticket still works with the right one (the next period's: enrolment used this one's).
    const ok = await postJson(`${api}/signin/mfa/totp`, { ticket, otp: codeOf(secret, 1) });
    expect(ok).toMatchObject({ status: 200, body: { session: { user: { email: 'admin@demo.local' } }, mfa: null } });

    const late = (await signInPassword('admin@demo.local')).body.mfa.ticket;
    await t.database.db.execute(sql`update auth.challenges set expires_at = now() - interval '1 second' where kind = 'mfaTotp' and used_at is null`);
    await forgetLastCode('admin@demo.local');
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket: late, otp: codeOf(secret) })).toMatchObject({
      status: 401,
      body: { error: 'invalid-mfa-ticket' },
    });
  });

  it('takes each recovery code once, typed in any case and with or without its dash', async () => {
    // Enrolled by the previous test: start again from a clean slate.
    await t.database.db.execute(sql`update auth.users set active_mfa_type = null, totp_secret = null where email = 'mecanicien@demo.local'`);
    const { recoveryCodes } = await enrol('mecanicien@demo.local');
    const typed = recoveryCodes[0]!.toLowerCase().replace('-', ' ');
    const first = await postJson(`${api}/signin/mfa/totp`, { ticket: (await signInPassword('mecanicien@demo.local')).body.mfa.ticket, otp: typed });
    expect(first).toMatchObject({ status: 200, body: { session: { user: { email: 'mecanicien@demo.local' } } } });
    const second = await postJson(`${api}/signin/mfa/totp`, { ticket: (await signInPassword('mecanicien@demo.local')).body.mfa.ticket, otp: recoveryCodes[0] });
    expect(second).toMatchObject({ status: 401, body: { error: 'invalid-totp' } });
    const next = await postJson(`${api}/signin/mfa/totp`, { ticket: (await signInPassword('mecanicien@demo.local')).body.mfa.ticket, otp: recoveryCodes[1] });
    expect(next.status).toBe(200);
  });

  it('deactivates with a code: the password alone signs in again', async () => {
    const { body } = await signInPassword('diagnostic@demo.local');
    await forgetLastCode('diagnostic@demo.local');
    const [row] = await queryRows<{ id: string; sealed: string }>(
      t.database.db,
      sql`select id::text, totp_secret as sealed from auth.users where email = 'diagnostic@demo.local'`,
    );
    // Sealed at rest (decision 050): the key of the installation opens it.
    const secret = open(createKeyring(t.config.encryptionKeys), row!.sealed, totpContext(row!.id));
    const signedIn = await postJson(`${api}/signin/mfa/totp`, { ticket: body.mfa.ticket, otp: codeOf(secret, -1) });
    const headers = bearerOf(signedIn.body.session);
    expect(await postJson(`${api}/user/mfa`, { code: '000000', activeMfaType: '' }, headers)).toMatchObject({ status: 400, body: { error: 'invalid-totp' } });
    expect(await postJson(`${api}/user/mfa`, { code: codeOf(secret), activeMfaType: '' }, headers)).toMatchObject({ status: 200, body: 'OK' });
    expect(await signInPassword('diagnostic@demo.local')).toMatchObject({ status: 200, body: { session: { user: { activeMfaType: null } }, mfa: null } });
  });

  it('kills a ticket after five wrong codes, and slows down the next guesses at the user', async () => {
    const { body } = await signInPassword('admin@demo.local');
    for (let i = 0; i < 5; i++) {
      expect(await postJson(`${api}/signin/mfa/totp`, { ticket: body.mfa.ticket, otp: '000000' })).toMatchObject({
        status: 401,
        body: { error: 'invalid-totp' },
      });
    }
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket: body.mfa.ticket, otp: '000000' })).toMatchObject({
      status: 401,
      body: { error: 'invalid-mfa-ticket' },
    });
    const next = (await signInPassword('admin@demo.local')).body.mfa.ticket;
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket: next, otp: '000000' })).toMatchObject({ status: 429, body: { error: 'too-many-requests' } });
  });

  it('sweeps out ceremonies over for a day, and only those', async () => {
    const { body } = await signInPassword('admin@demo.local');
    await t.database.db.execute(sql`update auth.challenges set expires_at = now() - interval '25 hours' where kind = 'mfaTotp' and used_at is null`);
    // A new ceremony sweeps now and then by chance (1 in 100): not this one, so the call below has some to sweep.
    const chance = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const live = (await signInPassword('admin@demo.local')).body.mfa.ticket;
    chance.mockRestore();
    expect(await t.app.services.auth.sweepChallenges()).toBeGreaterThanOrEqual(1);
    const [{ n }] = (await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from auth.challenges where expires_at < now() - interval '1 day'`,
    )) as [{ n: number }];
    expect(n).toBe(0);
    expect(body.mfa.ticket).not.toBe(live);
    expect(
      (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from auth.challenges where used_at is null`))[0]!.n,
    ).toBeGreaterThanOrEqual(1);
  });

  it('asks the code after every e-mail link too: a password reset lands on the code step, not in the account', async () => {
    await postJson(`${api}/user/password/reset`, { email: 'admin@demo.local' });
    const link = verifyLink((await t.outbox()).at(-1)!);
    const res = await fetch(link, { redirect: 'manual' });
    const landing = new URL(res.headers.get('location')!);
    expect(landing.pathname).toBe('/sign-in');
    expect(landing.searchParams.get('refreshToken')).toBeNull();
    expect(landing.searchParams.get('mfaTicket')).toMatch(/^mfaTotp:/);
    expect(landing.searchParams.get('redirectTo')).toBe('/set-password?type=passwordReset');
  });
});

describe('TOTP switched off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { env: { AUTH_MFA_ENABLED: 'false' } });
  });
  afterAll(() => t?.close());

  it('answers disabled-endpoint on its routes', async () => {
    const api = `${t.url}/api/auth`;
    expect(await postJson(`${api}/signin/mfa/totp`, { ticket: `mfaTotp:${crypto.randomUUID()}`, otp: '123456' })).toMatchObject({
      status: 409,
      body: { error: 'disabled-endpoint' },
    });
    expect((await fetch(`${api}/mfa/totp/generate`)).status).toBe(409);
  });
});
