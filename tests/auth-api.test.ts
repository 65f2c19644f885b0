// The hasura-auth HTTP API, as a client sees it, on the embedded database and on PostgreSQL.
import { SignJWT, UnsecuredJWT, decodeJwt } from 'jose';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { defaultRateLimits } from '#server/config.ts';
import { databaseKinds, decodeMail, postJson, startTestApp, verifyLink, type TestApp } from './support/app.ts';

const CLAIMS = 'https://hasura.io/jwt/claims';

describe.each(databaseKinds)('auth API on %s', (kind) => {
  let t: TestApp;
  let api: string;
  const signIn = (email: string, password = DEMO_PASSWORD) => postJson(`${api}/signin/email-password`, { email, password });
  const getUser = (token: string) =>
    fetch(`${api}/user`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.status, body: await r.json() }));

  beforeAll(async () => {
    t = await startTestApp(kind);
    api = `${t.url}/api/auth`;
  });
  afterAll(() => t?.close());

  it('answers health and readiness', async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    // One field per dependency (issue 30): files on this instance's disk, an empty mail queue.
    expect(await ready.json()).toEqual({
      status: 'ok',
      database: { status: 'ok', kind: kind === 'pglite' ? 'pglite' : 'postgres' },
      files: { status: 'ok', kind: 'disk' },
      mail: { status: 'ok', waiting: 0, oldestWaitingSeconds: null, failed: 0 },
    });
  });

  it('signs a demo account in with a session carrying the Hasura claims', async () => {
    const res = await signIn('diagnostic@demo.local');
    expect(res.status).toBe(200);
    const { session, mfa } = res.body;
    expect(mfa).toBeNull();
    expect(session).toMatchObject({ accessTokenExpiresIn: 900, user: { email: 'diagnostic@demo.local', defaultRole: 'diagnostician', emailVerified: true } });
    expect(session.refreshToken).toMatch(/^[\w-]{43}$/);
    expect(session.refreshTokenId).toMatch(/^[0-9a-f-]{36}$/);
    const claims = decodeJwt(session.accessToken);
    expect(claims[CLAIMS]).toEqual({
      'x-hasura-allowed-roles': ['diagnostician'],
      'x-hasura-default-role': 'diagnostician',
      'x-hasura-user-id': session.user.id,
      'x-hasura-user-is-anonymous': 'false',
    });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect((await getUser(session.accessToken)).body).toMatchObject({ id: session.user.id, displayName: 'Julien Moreau' });
  });

  it('gives the same answer for a wrong password and an unknown e-mail', async () => {
    const wrong = await signIn('mecanicien@demo.local', 'Wrong-password-1!');
    const unknown = await signIn('personne@demo.local', 'Wrong-password-1!');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ status: 401, error: 'invalid-email-password', message: 'Incorrect email or password' });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('accepts an e-mail whatever its case', async () => {
    expect((await signIn('Commercial@Demo.Local')).status).toBe(200);
  });

  it('rotates the refresh token on every use', async () => {
    const { session } = (await signIn('admin@demo.local')).body;
    const first = await postJson(`${api}/token`, { refreshToken: session.refreshToken });
    expect(first.status).toBe(200);
    expect(first.body.refreshToken).not.toBe(session.refreshToken);
    expect(first.body.user.email).toBe('admin@demo.local');
    const second = await postJson(`${api}/token`, { refreshToken: first.body.refreshToken });
    expect(second.status).toBe(200);
    expect(second.body.refreshToken).not.toBe(first.body.refreshToken);
  });

  it('hands concurrent refreshes of one token the same new token', async () => {
    const { session } = (await signIn('admin@demo.local')).body;
    const answers = await Promise.all(Array.from({ length: 5 }, () => postJson(`${api}/token`, { refreshToken: session.refreshToken })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.refreshToken)).size).toBe(1);
    // Within the grace window the old token still leads to the head of the chain.
    const next = await postJson(`${api}/token`, { refreshToken: answers[0]!.body.refreshToken });
    const late = await postJson(`${api}/token`, { refreshToken: session.refreshToken });
    expect(late.body.refreshToken).toBe(next.body.refreshToken);
  });

  it('revokes the whole sign-in when a rotated token comes back after the grace window', async () => {
    const { session } = (await signIn('admin@demo.local')).body;
    const rotated = await postJson(`${api}/token`, { refreshToken: session.refreshToken });
    await t.database.db.execute(sql`update auth.refresh_tokens set rotated_at = now() - interval '11 seconds' where rotated_at is not null`);
    const reuse = await postJson(`${api}/token`, { refreshToken: session.refreshToken });
    expect(reuse.status).toBe(401);
    expect(reuse.body.error).toBe('invalid-refresh-token');
    // The thief's use ends the sign-in: the legitimate new token is refused too.
    const legit = await postJson(`${api}/token`, { refreshToken: rotated.body.refreshToken });
    expect(legit.status).toBe(401);
  });

  it('refuses unknown and expired refresh tokens', async () => {
    const unknown = await postJson(`${api}/token`, { refreshToken: 'x'.repeat(43) });
    expect(unknown.body).toEqual({ status: 401, error: 'invalid-refresh-token', message: 'Invalid or expired refresh token' });
    const { session } = (await signIn('commercial@demo.local')).body;
    await t.database.db.execute(sql`update auth.grants set expires_at = now() - interval '1 second'`);
    expect((await postJson(`${api}/token`, { refreshToken: session.refreshToken })).status).toBe(401);
  });

  it('signs out one sign-in, or all of them', async () => {
    const a = (await signIn('commercial@demo.local')).body.session;
    const b = (await signIn('commercial@demo.local')).body.session;
    const c = (await signIn('commercial@demo.local')).body.session;
    const out = await postJson(`${api}/signout`, { refreshToken: a.refreshToken, all: false });
    expect(out).toMatchObject({ status: 200, body: 'OK' });
    expect((await postJson(`${api}/token`, { refreshToken: a.refreshToken })).status).toBe(401);
    const bNext = await postJson(`${api}/token`, { refreshToken: b.refreshToken });
    expect(bNext.status).toBe(200);
    await postJson(`${api}/signout`, { refreshToken: c.refreshToken, all: true }, { authorization: `Bearer ${c.accessToken}` });
    expect((await postJson(`${api}/token`, { refreshToken: bNext.body.refreshToken })).status).toBe(401);
    // Sign-out everywhere needs to know who: neither a token nor a bearer is a 401.
    expect((await postJson(`${api}/signout`, { all: true })).body.error).toBe('unauthenticated-user');
  });

  it('keeps a disabled user out of sign-in and refresh', async () => {
    const { session } = (await signIn('mecanicien@demo.local')).body;
    await t.database.db.execute(sql`update auth.users set disabled = true where email = 'mecanicien@demo.local'`);
    try {
      expect((await signIn('mecanicien@demo.local')).body).toMatchObject({ status: 401, error: 'disabled-user' });
      expect((await postJson(`${api}/token`, { refreshToken: session.refreshToken })).body.error).toBe('disabled-user');
      expect((await getUser(session.accessToken)).status).toBe(401);
    } finally {
      await t.database.db.execute(sql`update auth.users set disabled = false where email = 'mecanicien@demo.local'`);
    }
  });

  it('resets a password from the e-mail link to a new sign-in', async () => {
    const before = (await t.outbox()).length;
    const request = await postJson(`${api}/user/password/reset`, { email: 'diagnostic@demo.local', options: { redirectTo: `${t.url}/set-password` } });
    expect(request).toMatchObject({ status: 200, body: 'OK' });
    const mails = await t.outbox();
    expect(mails).toHaveLength(before + 1);
    const link = verifyLink(mails.at(-1)!);
    expect(link).toContain('type=passwordReset');

    const landing = await fetch(link, { redirect: 'manual' });
    expect(landing.status).toBe(302);
    const location = new URL(landing.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(`${t.url}/set-password`);
    expect(location.searchParams.get('type')).toBe('passwordReset');
    const session = await postJson(`${api}/token`, { refreshToken: location.searchParams.get('refreshToken') });
    expect(session.status).toBe(200);

    const weak = await postJson(`${api}/user/password`, { newPassword: 'motdepasse' }, { authorization: `Bearer ${session.body.accessToken}` });
    expect(weak.body).toEqual({ status: 400, error: 'invalid-password', message: 'Password is incorrectly formatted' });
    const changed = await postJson(`${api}/user/password`, { newPassword: 'Nouveau-Passe-42' }, { authorization: `Bearer ${session.body.accessToken}` });
    expect(changed.status).toBe(200);
    expect((await signIn('diagnostic@demo.local')).status).toBe(401);
    expect((await signIn('diagnostic@demo.local', 'Nouveau-Passe-42')).status).toBe(200);

    // The link works once.
    const again = new URL((await fetch(link, { redirect: 'manual' })).headers.get('location')!);
    expect(again.searchParams.get('error')).toBe('invalid-ticket');
    expect(again.searchParams.get('refreshToken')).toBeNull();
    await t.database.db.execute(
      sql`update auth.users set password_hash = (select password_hash from auth.users where email = 'admin@demo.local') where email = 'diagnostic@demo.local'`,
    );
  });

  it('answers a reset for an unknown e-mail exactly as for a known one, and sends nothing', async () => {
    const before = (await t.outbox()).length;
    const res = await postJson(`${api}/user/password/reset`, { email: 'inconnu@demo.local' });
    expect(res).toMatchObject({ status: 200, body: 'OK' });
    expect(await t.outbox()).toHaveLength(before);
  });

  it('changes a password with a reset ticket and ends every sign-in', async () => {
    const { session } = (await signIn('commercial@demo.local')).body;
    await postJson(`${api}/user/password/reset`, { email: 'commercial@demo.local' });
    const ticket = new URL(verifyLink((await t.outbox()).at(-1)!)).searchParams.get('ticket')!;
    expect(ticket).toMatch(/^passwordReset:/);
    const res = await postJson(`${api}/user/password`, { newPassword: 'Ticket-Passe-42', ticket });
    expect(res.status).toBe(200);
    expect((await postJson(`${api}/token`, { refreshToken: session.refreshToken })).status).toBe(401);
    expect((await postJson(`${api}/user/password`, { newPassword: 'Ticket-Passe-43', ticket })).body.error).toBe('invalid-ticket');
    expect((await signIn('commercial@demo.local', 'Ticket-Passe-42')).status).toBe(200);
    await t.database.db.execute(
      sql`update auth.users set password_hash = (select password_hash from auth.users where email = 'admin@demo.local') where email = 'commercial@demo.local'`,
    );
  });

  it('signs up a disabled, unverified account and verifies its e-mail', async () => {
    const res = await postJson(`${api}/signup/email-password`, {
      email: 'nouveau@garage.fr',
      password: 'Inscription-2026!',
      options: { displayName: 'Paul Nouveau', locale: 'fr' },
    });
    expect(res).toMatchObject({ status: 200, body: { session: null } });
    expect((await signIn('nouveau@garage.fr', 'Inscription-2026!')).body.error).toBe('disabled-user');
    expect((await postJson(`${api}/signup/email-password`, { email: 'nouveau@garage.fr', password: 'Inscription-2026!' })).body).toMatchObject({
      status: 409,
      error: 'email-already-in-use',
    });
    const link = verifyLink((await t.outbox()).at(-1)!);
    expect(link).toContain('type=emailVerify');
    const landing = new URL((await fetch(link, { redirect: 'manual' })).headers.get('location')!);
    // Still disabled: an admin enables self-registered accounts.
    expect(landing.searchParams.get('error')).toBe('disabled-user');
    await t.database.db.execute(sql`update auth.users set disabled = false where email = 'nouveau@garage.fr'`);
    await postJson(`${api}/user/email/send-verification-email`, { email: 'nouveau@garage.fr' });
    const second = new URL((await fetch(verifyLink((await t.outbox()).at(-1)!), { redirect: 'manual' })).headers.get('location')!);
    expect(second.searchParams.get('type')).toBe('emailVerify');
    const session = await signIn('nouveau@garage.fr', 'Inscription-2026!');
    expect(session.body.session.user).toMatchObject({ emailVerified: true, defaultRole: 'mechanic' });
  });

  it('refuses a self-registration that asks for a role', async () => {
    const res = await postJson(`${api}/signup/email-password`, {
      email: 'pirate@garage.fr',
      password: 'Inscription-2026!',
      options: { defaultRole: 'app_admin' },
    });
    expect(res.body).toMatchObject({ status: 400, error: 'role-not-allowed' });
  });

  it('refuses sign-in before the e-mail is verified', async () => {
    await t.database.db.execute(sql`update auth.users set email_verified = false where email = 'nouveau@garage.fr'`);
    expect((await signIn('nouveau@garage.fr', 'Inscription-2026!')).body).toEqual({ status: 401, error: 'unverified-user', message: 'Email is not verified' });
  });

  it('changes the e-mail once the new address is confirmed', async () => {
    const { session } = (await signIn('admin@demo.local')).body;
    const auth = { authorization: `Bearer ${session.accessToken}` };
    expect((await postJson(`${api}/user/email/change`, { newEmail: 'diagnostic@demo.local' }, auth)).body.error).toBe('email-already-in-use');
    expect((await postJson(`${api}/user/email/change`, { newEmail: 'chef@demo.local' }, auth)).status).toBe(200);
    const [mail, notice] = (await t.outbox()).slice(-2);
    expect(mail).toMatch(/^To: chef@demo\.local$/m);
    // The current address is told, and nothing has changed yet.
    expect(notice).toMatch(/^To: admin@demo\.local$/m);
    expect(decodeMail(notice!)).toContain('chef@demo.local');
    expect((await getUser(session.accessToken)).body.email).toBe('admin@demo.local');
    const landing = new URL((await fetch(verifyLink(mail!), { redirect: 'manual' })).headers.get('location')!);
    expect(landing.searchParams.get('type')).toBe('emailConfirmChange');
    expect((await getUser(session.accessToken)).body.email).toBe('chef@demo.local');
    await t.database.db.execute(sql`update auth.users set email = 'admin@demo.local' where email = 'chef@demo.local'`);
  });

  it('voids an earlier change link once a later change is asked or confirmed', async () => {
    const { session } = (await signIn('admin@demo.local')).body;
    const auth = { authorization: `Bearer ${session.accessToken}` };
    // A typo first, then the right address, confirmed: the typo's link must not take the account.
    expect((await postJson(`${api}/user/email/change`, { newEmail: 'chfe@demo.local' }, auth)).status).toBe(200);
    const typo = (await t.outbox()).find((m) => /^To: chfe@demo\.local$/m.test(m))!;
    expect((await postJson(`${api}/user/email/change`, { newEmail: 'chef2@demo.local' }, auth)).status).toBe(200);
    const right = (await t.outbox()).find((m) => /^To: chef2@demo\.local$/m.test(m))!;
    await fetch(verifyLink(right), { redirect: 'manual' });
    expect((await getUser(session.accessToken)).body.email).toBe('chef2@demo.local');
    const landing = new URL((await fetch(verifyLink(typo), { redirect: 'manual' })).headers.get('location')!);
    expect(landing.searchParams.get('refreshToken')).toBeNull();
    expect(landing.searchParams.get('error')).toBe('invalid-ticket');
    expect((await getUser(session.accessToken)).body.email).toBe('chef2@demo.local');
    await t.database.db.execute(sql`update auth.users set email = 'admin@demo.local' where email = 'chef2@demo.local'`);
  });

  describe('bad input', () => {
    it('refuses malformed JSON, other content types and bodies over 1 MB', async () => {
      expect((await postJson(`${api}/signin/email-password`, '{"email":')).body).toMatchObject({ status: 400, error: 'invalid-request' });
      const form = await fetch(`${api}/signin/email-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a',
      });
      expect(form.status).toBe(415);
      const huge = await postJson(`${api}/signin/email-password`, { email: 'a@b.fr', password: 'x'.repeat(1_100_000) });
      expect(huge.body).toMatchObject({ status: 413, error: 'request-too-large' });
    });

    it('refuses unknown fields and wrong types', async () => {
      const extra = await postJson(`${api}/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD, role: 'app_admin' });
      expect(extra.body).toMatchObject({ status: 400, error: 'invalid-request', message: 'Unknown field: role' });
      expect((await postJson(`${api}/token`, { refreshToken: 42 })).body.error).toBe('invalid-request');
      expect((await postJson(`${api}/signin/email-password`, [])).body.error).toBe('invalid-request');
    });

    it('refuses malformed e-mails', async () => {
      for (const email of ['admin @demo.local', ' admin@demo.local', `${'a'.repeat(590)}@demo.local`, 'pas-un-email', '']) {
        const res = await signIn(email);
        expect(res.body, email).toEqual({ status: 400, error: 'invalid-email', message: 'Email is incorrectly formatted' });
      }
    });

    it('refuses forged, expired, unsigned and foreign tokens', async () => {
      const { session } = (await signIn('admin@demo.local')).body;
      const claims = decodeJwt(session.accessToken);
      const now = Math.floor(Date.now() / 1000);
      const sign = (key: string, payload: Record<string, unknown>) =>
        new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key));
      const forged = [
        await sign('another-secret-of-at-least-32-characters!', claims),
        await sign(t.config.jwtSecret, { ...claims, exp: now - 10, iat: now - 100 }),
        await sign(t.config.jwtSecret, { ...claims, aud: 'https://ailleurs.example' }),
        await sign(t.config.jwtSecret, { ...claims, iss: 'someone-else' }),
        new UnsecuredJWT(claims).encode(),
        `${session.accessToken.slice(0, -3)}abc`,
        'not.a.token',
      ];
      for (const token of forged) {
        expect((await getUser(token)).body, token).toEqual({ status: 401, error: 'unauthenticated-user', message: 'User is not authenticated' });
      }
      expect((await getUser(session.accessToken)).status).toBe(200);
    });

    it('refuses redirects outside PUBLIC_URL', async () => {
      for (const redirectTo of [
        'https://evil.example/set-password',
        'javascript:alert(1)',
        '//evil.example/x',
        `${t.url}/.//evil.example`,
        `${t.url}/api/auth/verify`,
      ]) {
        const res = await postJson(`${api}/user/password/reset`, { email: 'admin@demo.local', options: { redirectTo } });
        expect(res.body, redirectTo).toMatchObject({ status: 400, error: 'redirectTo-not-allowed' });
      }
      const verify = await fetch(`${api}/verify?ticket=passwordReset:x&type=passwordReset&redirectTo=${encodeURIComponent('https://evil.example')}`, {
        redirect: 'manual',
      });
      expect(verify.status).toBe(400);
    });

    it('answers unknown routes and methods with JSON errors', async () => {
      expect((await fetch(`${api}/nothing`)).status).toBe(404);
      expect((await fetch(`${api}/token`)).status).toBe(405);
    });

    it('never logs tokens, tickets or passwords', async () => {
      const { session } = (await signIn('admin@demo.local')).body;
      await fetch(`${api}/verify?ticket=passwordReset:secret-ticket&redirectTo=${encodeURIComponent(t.url)}`, { redirect: 'manual' });
      await postJson(`${api}/token`, { refreshToken: session.refreshToken });
      const requestLines = t.logLines.filter((l) => l.msg === 'request');
      expect(requestLines.length).toBeGreaterThan(10);
      for (const line of requestLines) expect(Object.keys(line).sort()).toEqual(['id', 'level', 'method', 'ms', 'msg', 'path', 'status']);
      const text = JSON.stringify(t.logLines.filter((l) => l.msg !== 'mail written to outbox'));
      expect(text).not.toContain('secret-ticket');
      expect(text).not.toContain(session.refreshToken);
      expect(text).not.toContain(session.accessToken);
      expect(text).not.toContain(`${DEMO_PASSWORD.slice(0, 10)}x`);
    });
  });
});

// The same figures whichever store counts: memory beside PGlite, the shared table on PostgreSQL (decision 053).
describe.each(databaseKinds)('rate limits on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, {
      // Behind one proxy: the tests speak from several addresses through X-Forwarded-For.
      trustProxy: 1,
      signInThrottle: { accountFree: 3, addressFree: 6, maxDelayMs: 60_000, forgetMs: 60_000 },
      rateLimits: {
        ...defaultRateLimits,
        ticketPerIp: { max: 5, windowMs: 60_000 },
        signUpPerIp: { max: 10, windowMs: 60_000 },
        emailPerAddress: { max: 2, windowMs: 60_000 },
        emailPerIp: { max: 10, windowMs: 60_000 },
        refreshPerIp: { max: 100, windowMs: 60_000 },
      },
    });
  });
  afterAll(() => t?.close());

  const signInFrom = (ip: string, email: string, password: string) =>
    postJson(`${t.url}/api/auth/signin/email-password`, { email, password }, { 'x-forwarded-for': ip });

  it('throttles a stranger guessing a password with growing delays, never the owner elsewhere', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await signInFrom('203.0.113.7', 'admin@demo.local', 'Faux-passe-1!')).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await signInFrom('203.0.113.7', 'admin@demo.local', DEMO_PASSWORD);
    expect(limited.body).toMatchObject({ status: 429, error: 'too-many-requests' });
    expect(limited.headers.get('retry-after')).toBe('1');
    // The admin, from the workshop's address, is not locked out.
    expect((await signInFrom('198.51.100.20', 'admin@demo.local', DEMO_PASSWORD)).status).toBe(200);
    // Each further failure doubles the wait.
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await signInFrom('203.0.113.7', 'admin@demo.local', 'Faux-passe-2!')).status).toBe(401);
    expect((await signInFrom('203.0.113.7', 'admin@demo.local', 'Faux-passe-3!')).headers.get('retry-after')).toBe('2');
  });

  it('checks wrong passwords sent at once one after the other: the free ones, then 429', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => signInFrom('203.0.113.50', 'mecanicien@demo.local', 'En-rafale-1!')));
    expect(answers.map((r) => r.status).sort()).toEqual([401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
  });

  it('forgets the failures of an account and address once it signs in', async () => {
    const tries = async (n: number) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push((await signInFrom('198.51.100.30', 'diagnostic@demo.local', 'Faute-de-frappe-1!')).status);
      return out;
    };
    expect(await tries(2)).toEqual([401, 401]);
    expect((await signInFrom('198.51.100.30', 'diagnostic@demo.local', DEMO_PASSWORD)).status).toBe(200);
    expect(await tries(3)).toEqual([401, 401, 401]);
  });

  it('throttles one address guessing across accounts', async () => {
    const accounts = ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `${x}@inconnu.fr`);
    for (const email of accounts) expect((await signInFrom('192.0.2.99', email, 'Devinette-1!')).status).toBe(401);
    expect((await signInFrom('192.0.2.99', 'commercial@demo.local', DEMO_PASSWORD)).status).toBe(429);
    expect((await signInFrom('192.0.2.100', 'commercial@demo.local', DEMO_PASSWORD)).status).toBe(200);
  });

  it('limits the e-mails sent to one address', async () => {
    const api = `${t.url}/api/auth`;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await postJson(`${api}/user/password/reset`, { email: 'mecanicien@demo.local' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(await t.outbox()).toHaveLength(2);
  });
});
