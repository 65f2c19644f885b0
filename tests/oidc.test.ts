// OpenID Connect identity providers (decision 029) against a real local provider: the browser
// round trip, ID tokens brought by a client, linking, and every forged, stale or foreign answer
// getting the documented error and never a session.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#server/config.ts';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { databaseKinds, postJson, startTestApp, type TestApp, authClient } from './support/app.ts';
import { createBrowser, startOidcProvider, testClient, type TestProvider } from './support/oidc-provider.ts';
import { freePort } from './support/postgres-server.ts';

const hex = (value: string) => createHash('sha256').update(value).digest('hex');

describe('configuration of identity providers', () => {
  const base = {
    AUTH_PROVIDERS: 'google',
    AUTH_PROVIDER_GOOGLE_ISSUER: 'https://accounts.google.com',
    AUTH_PROVIDER_GOOGLE_CLIENT_ID: 'client',
    AUTH_PROVIDER_GOOGLE_CLIENT_SECRET: 'secret',
  };
  const load = (env: Record<string, string>) =>
    loadConfig({ DATA_DIR: '/tmp/atelier-oidc-config', ...env }, { jwtSecret: 'j'.repeat(32), sessionSecret: 's'.repeat(32) });

  it('has none until AUTH_PROVIDERS names one, then reads its settings', () => {
    expect(load({}).authProviders).toEqual([]);
    expect(load(base).authProviders).toEqual([
      {
        name: 'google',
        issuer: 'https://accounts.google.com',
        clientId: 'client',
        clientSecret: 'secret',
        label: 'Google',
        emailDomains: null,
        prompt: 'login',
      },
    ]);
    const entra = load({
      ...base,
      AUTH_PROVIDERS: 'entra, google',
      AUTH_PROVIDER_ENTRA_ISSUER: 'https://login.microsoftonline.com/0000/v2.0',
      AUTH_PROVIDER_ENTRA_CLIENT_ID: 'e',
      AUTH_PROVIDER_ENTRA_CLIENT_SECRET: 'f',
      AUTH_PROVIDER_ENTRA_LABEL: 'Microsoft Entra',
      AUTH_PROVIDER_ENTRA_EMAIL_DOMAINS: 'Atelier.fr, garage.atelier.fr',
      AUTH_PROVIDER_ENTRA_PROMPT: 'auto',
    }).authProviders;
    expect(entra.map((p) => p.name)).toEqual(['entra', 'google']);
    expect(entra[0]).toMatchObject({ label: 'Microsoft Entra', emailDomains: ['atelier.fr', 'garage.atelier.fr'], prompt: null });
  });

  it('stops the start with one line naming the setting that is wrong', () => {
    expect(() => load({ AUTH_PROVIDERS: 'Google Workspace' })).toThrow(
      'Invalid AUTH_PROVIDERS: "Google Workspace" is not a provider name (lower-case letters and digits, from a letter)',
    );
    expect(() => load({ ...base, AUTH_PROVIDERS: 'google,google' })).toThrow('Invalid AUTH_PROVIDERS: a provider is named twice');
    expect(() => load({ AUTH_PROVIDERS: 'google' })).toThrow('Missing AUTH_PROVIDER_GOOGLE_ISSUER: provider google is named in AUTH_PROVIDERS');
    expect(() => load({ ...base, AUTH_PROVIDER_GOOGLE_CLIENT_SECRET: '' })).toThrow('Missing AUTH_PROVIDER_GOOGLE_CLIENT_SECRET');
    expect(() => load({ ...base, AUTH_PROVIDER_GOOGLE_ISSUER: 'http://accounts.google.com' })).toThrow(
      'Invalid AUTH_PROVIDER_GOOGLE_ISSUER: must start with https://',
    );
    expect(() => load({ ...base, AUTH_PROVIDER_GOOGLE_ISSUER: 'accounts.google.com' })).toThrow('Invalid AUTH_PROVIDER_GOOGLE_ISSUER: not a URL');
    expect(() => load({ ...base, AUTH_PROVIDER_GOOGLE_EMAIL_DOMAINS: 'atelier' })).toThrow(
      'Invalid AUTH_PROVIDER_GOOGLE_EMAIL_DOMAINS: "atelier" is not a domain name',
    );
    expect(() => load({ ...base, AUTH_PROVIDER_GOOGLE_PROMPT: 'none' })).toThrow('Invalid AUTH_PROVIDER_GOOGLE_PROMPT: login, select_account or auto');
    expect(() => load({ AUTH_PROVIDER_GOOGLE_ISSUER: 'https://accounts.google.com' })).toThrow(
      'Invalid AUTH_PROVIDER_GOOGLE_ISSUER: google is not named in AUTH_PROVIDERS',
    );
    // Plain http only to a provider on this machine (the tests' own).
    expect(load({ ...base, AUTH_PROVIDER_GOOGLE_ISSUER: 'http://127.0.0.1:9999' }).authProviders[0]!.issuer).toBe('http://127.0.0.1:9999');
  });
});

describe('with no provider configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t?.close());

  it('answers disabled-endpoint for ID tokens and knows no provider path', async () => {
    expect(await postJson(`${t.url}/api/auth/signin/idtoken`, { provider: 'google', idToken: 'x' })).toMatchObject({
      status: 409,
      body: { error: 'disabled-endpoint' },
    });
    expect(await postJson(`${t.url}/api/auth/link/idtoken`, { provider: 'google', idToken: 'x' })).toMatchObject({ status: 409 });
    const res = await fetch(`${t.url}/api/auth/signin/provider/google?redirectTo=/repair-orders`, { redirect: 'manual' });
    expect(res.status).toBe(404);
  });
});

describe.each(databaseKinds)('identity providers on %s', (kind) => {
  let t: TestApp;
  let idp: TestProvider;
  let api: string;
  beforeAll(async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    t = await startTestApp(kind, {
      env: {
        AUTH_PROVIDERS: 'local,workspace,offline',
        AUTH_PROVIDER_LOCAL_ISSUER: issuer,
        AUTH_PROVIDER_LOCAL_CLIENT_ID: testClient.id,
        AUTH_PROVIDER_LOCAL_CLIENT_SECRET: testClient.secret,
        AUTH_PROVIDER_LOCAL_LABEL: 'SSO Atelier',
        // The same provider again, held to the workshop's domain.
        AUTH_PROVIDER_WORKSPACE_ISSUER: issuer,
        AUTH_PROVIDER_WORKSPACE_CLIENT_ID: testClient.id,
        AUTH_PROVIDER_WORKSPACE_CLIENT_SECRET: testClient.secret,
        AUTH_PROVIDER_WORKSPACE_EMAIL_DOMAINS: 'atelier.test',
        // A provider that does not answer.
        AUTH_PROVIDER_OFFLINE_ISSUER: `http://127.0.0.1:${await freePort()}`,
        AUTH_PROVIDER_OFFLINE_CLIENT_ID: testClient.id,
        AUTH_PROVIDER_OFFLINE_CLIENT_SECRET: testClient.secret,
      },
    });
    api = `${t.url}/api/auth`;
    idp = await startOidcProvider({
      port,
      redirectUris: [`${api}/signin/provider/local/callback`, `${api}/signin/provider/workspace/callback`],
    });
    idp.accounts.set('karim', { sub: 'karim', email: 'mecanicien@demo.local', email_verified: true, name: 'Karim B.' });
    idp.accounts.set('unverified', { sub: 'unverified', email: 'diagnostic@demo.local', email_verified: false });
    idp.accounts.set('newcomer', { sub: 'newcomer', email: 'Nouveau@Atelier.test', email_verified: true, name: 'Léa Nouvelle' });
    idp.accounts.set('outsider', { sub: 'outsider', email: 'someone@gmail.test', email_verified: true });
    idp.accounts.set('squatted', { sub: 'squatted', email: 'pending@atelier.test', email_verified: true });
    idp.accounts.set('invited', { sub: 'invited', email: 'invited@atelier.test', email_verified: true });
  });
  afterAll(async () => {
    await idp?.close();
    await t?.close();
  });

  const onApp = (url: URL) => url.origin === t.url && !url.pathname.startsWith('/api/auth/');
  const atCallback = (url: URL) => url.origin === t.url && url.pathname.endsWith('/callback');
  const grantsOf = async (email: string) =>
    (
      await queryRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from auth.grants g join auth.users u on u.id = g.user_id where u.email = ${email} and g.method like 'provider:%'`,
      )
    )[0]!.n;
  const allGrants = async () => (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from auth.grants`))[0]!.n;
  const links = (sub: string) =>
    queryRows<{ email: string; provider_id: string }>(
      t.database.db,
      sql`select u.email, p.provider_id from auth.user_providers p join auth.users u on u.id = p.user_id where p.provider_user_id = ${sub}`,
    );
  /** Signs `account` in through the browser round trip; the app's landing URL. */
  async function roundTrip(account: string, provider = 'local', redirectTo = '/gearboxes') {
    idp.next = { account };
    const browser = createBrowser();
    return new URL(await browser.follow(`${api}/signin/provider/${provider}?redirectTo=${encodeURIComponent(redirectTo)}`, onApp));
  }

  describe('the browser round trip', () => {
    it('sends the browser to the provider with state, nonce, PKCE S256 and prompt=login, tied to a cookie', async () => {
      const res = await fetch(`${api}/signin/provider/local?redirectTo=/gearboxes`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin).toBe(idp.issuer);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: testClient.id,
        redirect_uri: `${api}/signin/provider/local/callback`,
        scope: 'openid email profile',
        code_challenge_method: 'S256',
        prompt: 'login',
      });
      expect(location.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
      expect(location.searchParams.get('nonce')).toMatch(/^[\w-]{43}$/);
      expect(location.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
      expect(res.headers.get('set-cookie')).toMatch(/^atelier_oidc=[\w-]{43}; Path=\/api\/auth\/signin\/provider\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
      // Only the state's hash is kept, single use, for ten minutes.
      const [row] = await queryRows<{ key_hash: string; minutes: number; data: Record<string, unknown> }>(
        t.database.db,
        sql`select key_hash, round(extract(epoch from expires_at - created_at) / 60)::int as minutes, data from auth.challenges where kind = 'oidcState' order by created_at desc limit 1`,
      );
      expect(row!.key_hash).not.toBe(location.searchParams.get('state'));
      expect(row!.minutes).toBe(10);
      expect(JSON.stringify(row!.data)).not.toContain(location.searchParams.get('nonce'));
    });

    it('signs in the account of the verified e-mail, links it, and lands with a refresh token', async () => {
      const landing = await roundTrip('karim');
      expect(landing.pathname).toBe('/gearboxes');
      expect(landing.searchParams.get('error')).toBeNull();
      const refreshToken = landing.searchParams.get('refreshToken')!;
      const session = await postJson(`${api}/token`, { refreshToken });
      expect(session).toMatchObject({ status: 200, body: { user: { email: 'mecanicien@demo.local', defaultRole: 'mechanic' } } });
      expect(await links('karim')).toEqual([{ email: 'mecanicien@demo.local', provider_id: 'local' }]);
      expect(await grantsOf('mecanicien@demo.local')).toBeGreaterThanOrEqual(1);

      // Linked: the provider account keeps its way in even when its address changes there.
      idp.accounts.set('karim', { sub: 'karim', email: 'karim@ailleurs.test', email_verified: false });
      try {
        const again = await roundTrip('karim');
        expect((await postJson(`${api}/token`, { refreshToken: again.searchParams.get('refreshToken') })).body.user.email).toBe('mecanicien@demo.local');
      } finally {
        idp.accounts.set('karim', { sub: 'karim', email: 'mecanicien@demo.local', email_verified: true, name: 'Karim B.' });
      }
    });

    it('creates an unknown user disabled with the least role, until an admin enables the account', async () => {
      const first = await roundTrip('newcomer');
      expect(Object.fromEntries(first.searchParams)).toEqual({ error: 'disabled-user', errorDescription: 'User is disabled' });
      const [user] = await queryRows<{ disabled: boolean; default_role: string; email_verified: boolean; display_name: string }>(
        t.database.db,
        sql`select disabled, default_role, email_verified, display_name from auth.users where email = 'nouveau@atelier.test'`,
      );
      expect(user).toEqual({ disabled: true, default_role: 'mechanic', email_verified: true, display_name: 'Léa Nouvelle' });
      // The audit trail has the account's creation, by its owner, once.
      const events = await queryRows(
        t.database.db,
        sql`select e.action, e.actor_id = u.id as by_owner from audit.events e join auth.users u on u.id = e.entity_id where u.email = 'nouveau@atelier.test'`,
      );
      expect(events).toEqual([{ action: 'created', by_owner: true }]);
      expect((await roundTrip('newcomer')).searchParams.get('error')).toBe('disabled-user');
      expect(await grantsOf('nouveau@atelier.test')).toBe(0);

      await t.database.db.execute(sql`update auth.users set disabled = false where email = 'nouveau@atelier.test'`);
      const enabled = await roundTrip('newcomer');
      expect((await postJson(`${api}/token`, { refreshToken: enabled.searchParams.get('refreshToken') })).body.user.email).toBe('nouveau@atelier.test');
    });

    it('never lets an unverified address into the account that has it', async () => {
      const landing = await roundTrip('unverified');
      expect(Object.fromEntries(landing.searchParams)).toEqual({ error: 'email-already-in-use', errorDescription: 'Email already in use' });
      expect(await links('unverified')).toEqual([]);
      expect(await grantsOf('diagnostic@demo.local')).toBe(0);
    });

    it('links an unproven address only to an account nobody can enter yet (no pre-hijacking)', async () => {
      // Registered by whoever typed the address, with a password: the provider's user is not let in.
      await t.database.db.execute(
        sql`insert into auth.users (email, default_role, email_verified, password_hash) values ('pending@atelier.test', 'mechanic', false, 'x')`,
      );
      expect((await roundTrip('squatted')).searchParams.get('error')).toBe('email-already-in-use');
      expect(await links('squatted')).toEqual([]);
      // Created by an admin, no way in yet: the provider proves the address and signs its user in.
      await t.database.db.execute(sql`insert into auth.users (email, default_role, email_verified) values ('invited@atelier.test', 'commercial', false)`);
      const landing = await roundTrip('invited');
      expect((await postJson(`${api}/token`, { refreshToken: landing.searchParams.get('refreshToken') })).body.user).toMatchObject({
        email: 'invited@atelier.test',
        emailVerified: true,
        defaultRole: 'commercial',
      });
    });

    it('holds a provider to its e-mail domains', async () => {
      expect((await roundTrip('outsider', 'workspace')).searchParams.get('error')).toBe('email-domain-not-allowed');
      expect(await links('outsider')).toEqual([]);
      expect((await roundTrip('newcomer', 'workspace')).searchParams.get('refreshToken')).toBeTruthy();
    });

    it("brings the provider's refusal back as oauth-provider-error", async () => {
      idp.next = { error: 'access_denied' };
      const landing = new URL(await createBrowser().follow(`${api}/signin/provider/local?redirectTo=/stock`, onApp));
      expect(landing.pathname).toBe('/stock');
      expect(Object.fromEntries(landing.searchParams)).toEqual({ error: 'oauth-provider-error', errorDescription: 'Provider returned an error' });
    });

    it('refuses a replayed state, a state of another flow, another browser and a forged state: no session', async () => {
      idp.next = { account: 'karim' };
      const browser = createBrowser();
      const before = await allGrants();
      const callbackA = new URL(await browser.follow(`${api}/signin/provider/local?redirectTo=/gearboxes`, atCallback));
      const callbackB = new URL(await browser.follow(`${api}/signin/provider/local?redirectTo=/gearboxes`, atCallback));

      // Another browser brings flow A's answer (a login CSRF): its state is not tied to it.
      const stranger = createBrowser();
      const csrf = new URL((await stranger.open(callbackA.href)).location!);
      expect(Object.fromEntries(csrf.searchParams)).toEqual({ error: 'invalid-state', errorDescription: 'Invalid state' });
      expect(csrf.pathname).toBe('/sign-in');

      // Flow B's state with flow A's code: PKCE makes the provider refuse the exchange.
      const mixed = new URL(callbackB);
      mixed.searchParams.set('code', callbackA.searchParams.get('code')!);
      const crossed = new URL((await browser.open(mixed.href)).location!);
      expect(crossed.pathname).toBe('/gearboxes');
      expect(crossed.searchParams.get('error')).toBe('oauth-token-echange-failed');
      expect(crossed.searchParams.has('refreshToken')).toBe(false);
      expect(await allGrants()).toBe(before);

      // A fresh flow goes through once; its answer replayed is refused.
      const callbackC = await browser.follow(`${api}/signin/provider/local?redirectTo=/gearboxes`, atCallback);
      expect(new URL((await browser.open(callbackC)).location!).searchParams.has('refreshToken')).toBe(true);
      const replay = new URL((await browser.open(callbackC)).location!);
      expect(replay.searchParams.get('error')).toBe('invalid-state');
      expect(replay.searchParams.has('refreshToken')).toBe(false);

      const forged = new URL(callbackC);
      forged.searchParams.set('state', 'x'.repeat(43));
      expect(new URL((await browser.open(forged.href)).location!).searchParams.get('error')).toBe('invalid-state');
      forged.searchParams.delete('state');
      expect(new URL((await browser.open(forged.href)).location!).searchParams.get('error')).toBe('invalid-state');
      forged.searchParams.set('state', 'y'.repeat(5000));
      expect(new URL((await browser.open(forged.href)).location!).searchParams.get('error')).toBe('invalid-state');
      expect(await allGrants()).toBe(before + 1);
    });

    it("refuses a state used at another provider's callback, and an answer naming another issuer", async () => {
      idp.next = { account: 'newcomer' };
      const browser = createBrowser();
      const callback = new URL(await browser.follow(`${api}/signin/provider/workspace?redirectTo=/gearboxes`, atCallback));
      const elsewhere = new URL(callback.href.replace('/workspace/', '/local/'));
      expect(new URL((await browser.open(elsewhere.href)).location!).searchParams.get('error')).toBe('invalid-state');

      const mixUp = new URL(await browser.follow(`${api}/signin/provider/workspace?redirectTo=/gearboxes`, atCallback));
      mixUp.searchParams.set('iss', 'https://evil.example');
      expect(new URL((await browser.open(mixUp.href)).location!).searchParams.get('error')).toBe('oauth-provider-error');
    });

    it("refuses an ID token whose nonce is not the round trip's", async () => {
      idp.next = { account: 'karim' };
      const browser = createBrowser();
      const callback = await browser.follow(`${api}/signin/provider/local?redirectTo=/gearboxes`, atCallback);
      // The provider answers with the nonce it was sent; the round trip now expects another.
      await t.database.db.execute(
        sql`update auth.challenges set data = jsonb_set(data, '{nonceHash}', '"another"') where kind = 'oidcState' and used_at is null`,
      );
      const landing = new URL((await browser.open(callback)).location!);
      expect(Object.fromEntries(landing.searchParams)).toEqual({ error: 'oauth-profile-fetch-failed', errorDescription: 'Failed to get user profile' });
    });

    it('says when the provider does not answer', async () => {
      const res = await fetch(`${api}/signin/provider/offline?redirectTo=/gearboxes`, { redirect: 'manual' });
      expect(Object.fromEntries(new URL(res.headers.get('location')!).searchParams)).toEqual({
        error: 'oauth-provider-unavailable',
        errorDescription: 'The identity provider could not be reached',
      });
      expect(await postJson(`${api}/signin/idtoken`, { provider: 'offline', idToken: await idp.sign({ sub: 'karim' }) })).toMatchObject({
        status: 502,
        body: { error: 'oauth-provider-unavailable' },
      });
    });

    it('refuses a redirectTo that is not ours outright, and knows no unconfigured provider', async () => {
      const evil = await fetch(`${api}/signin/provider/local?redirectTo=${encodeURIComponent('https://evil.example/')}`, { redirect: 'manual' });
      expect(evil.status).toBe(400);
      expect(await evil.json()).toMatchObject({ error: 'redirectTo-not-allowed' });
      expect((await fetch(`${api}/signin/provider/github?redirectTo=/gearboxes`, { redirect: 'manual' })).status).toBe(404);
      const role = await fetch(`${api}/signin/provider/local?redirectTo=/gearboxes&defaultRole=app_admin`, { redirect: 'manual' });
      expect(new URL(role.headers.get('location')!).searchParams.get('error')).toBe('role-not-allowed');
    });
  });

  describe('POST /signin/idtoken', () => {
    const signIn = (body: unknown) => postJson(`${api}/signin/idtoken`, body);

    it("signs in the holder of a token the provider signed for us, with hasura-auth's nonce rule", async () => {
      const plain = await idp.sign({ sub: 'karim', email: 'mecanicien@demo.local', email_verified: true });
      expect(await signIn({ provider: 'local', idToken: plain })).toMatchObject({
        status: 200,
        body: { session: { user: { email: 'mecanicien@demo.local' }, refreshToken: expect.any(String) }, mfa: null },
      });
      const bound = await idp.sign({ sub: 'karim', nonce: hex('my-nonce') });
      expect((await signIn({ provider: 'local', idToken: bound, nonce: 'my-nonce' })).status).toBe(200);
    });

    it('takes a token once: replayed, it opens nothing', async () => {
      const idToken = await idp.sign({ sub: 'karim' });
      expect((await signIn({ provider: 'local', idToken })).status).toBe(200);
      const before = await allGrants();
      expect(await signIn({ provider: 'local', idToken })).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
      expect(await allGrants()).toBe(before);
    });

    it('works through @nhost/hasura-auth-js', async () => {
      const client = authClient(t.url);
      const result = await client.signInIdToken({ provider: 'local' as never, idToken: await idp.sign({ sub: 'karim' }) });
      expect(result.error).toBeNull();
      expect(client.getUser()).toMatchObject({ email: 'mecanicien@demo.local' });
      const refused = await createBrowserlessClientSignIn(await idp.sign({ sub: 'karim', aud: 'someone-else' }));
      expect(refused).toMatchObject({ error: 'invalid-request' });
    });

    it('refuses a wrong audience, issuer, nonce, signature, algorithm or an expired token: invalid-request, no session', async () => {
      const before = await allGrants();
      const now = Math.floor(Date.now() / 1000);
      const cases: [string, Record<string, unknown>][] = [
        ['wrong aud', { idToken: await idp.sign({ sub: 'karim', aud: 'another-client' }) }],
        ['two audiences without us as party', { idToken: await idp.sign({ sub: 'karim', aud: [testClient.id, 'other'], azp: 'other' }) }],
        ['wrong iss', { idToken: await idp.sign({ sub: 'karim', iss: 'https://accounts.google.com' }) }],
        ['expired', { idToken: await idp.sign({ sub: 'karim', iat: now - 3600, exp: now - 120 }) }],
        ['nonce expected, none in the token', { idToken: await idp.sign({ sub: 'karim' }), nonce: 'n' }],
        ['nonce in the token, none given', { idToken: await idp.sign({ sub: 'karim', nonce: hex('n') }) }],
        ['wrong nonce', { idToken: await idp.sign({ sub: 'karim', nonce: hex('n') }), nonce: 'm' }],
        ['the raw nonce in the token', { idToken: await idp.sign({ sub: 'karim', nonce: 'n' }), nonce: 'n' }],
        ['bad signature', { idToken: await idp.sign({ sub: 'karim' }, { key: idp.strangerKey }) }],
        ['unknown key', { idToken: await idp.sign({ sub: 'karim' }, { key: idp.strangerKey, kid: 'stranger' }) }],
        ['a shared secret', { idToken: await hs256({ iss: idp.issuer, aud: testClient.id, sub: 'karim', iat: now, exp: now + 60 }) }],
        ['alg none', { idToken: unsigned({ iss: idp.issuer, aud: testClient.id, sub: 'karim', iat: now, exp: now + 60 }) }],
        ['no sub', { idToken: await idp.sign({}) }],
        ['not a JWT', { idToken: 'not-a-token' }],
      ];
      for (const [label, body] of cases) {
        const res = await signIn({ provider: 'local', ...body });
        expect({ label, status: res.status, error: res.body.error, session: res.body.session }).toEqual({
          label,
          status: 400,
          error: 'invalid-request',
          session: undefined,
        });
      }
      expect(await allGrants()).toBe(before);
    });

    it('refuses an unknown provider and a malformed body', async () => {
      const idToken = await idp.sign({ sub: 'karim' });
      expect(await signIn({ provider: 'github', idToken })).toMatchObject({ status: 409, body: { error: 'disabled-endpoint' } });
      expect(await signIn({ provider: 'local' })).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
      expect(await signIn({ provider: 'local', idToken, role: 'app_admin' })).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
      expect(await signIn({ provider: 'local', idToken: 'x'.repeat(20_000) })).toMatchObject({ status: 400 });
      expect(await signIn('[')).toMatchObject({ status: 400 });
    });

    it('answers disabled-user for a disabled account', async () => {
      await t.database.db.execute(sql`update auth.users set disabled = true where email = 'mecanicien@demo.local'`);
      try {
        expect(await signIn({ provider: 'local', idToken: await idp.sign({ sub: 'karim' }) })).toMatchObject({ status: 401, body: { error: 'disabled-user' } });
      } finally {
        await t.database.db.execute(sql`update auth.users set disabled = false where email = 'mecanicien@demo.local'`);
      }
    });
  });

  describe('POST /link/idtoken', () => {
    const signInPassword = async (email: string) =>
      (await postJson(`${api}/signin/email-password`, { email, password: DEMO_PASSWORD })).body.session.accessToken as string;
    const link = (accessToken: string | null, body: unknown) =>
      postJson(`${api}/link/idtoken`, body, accessToken ? { authorization: `Bearer ${accessToken}` } : {});

    it('links the provider account to the signed-in user, who then signs in with it', async () => {
      const token = await signInPassword('commercial@demo.local');
      const claims = { sub: 'commercial-at-idp', email: 'c.dupont@perso.test', email_verified: false };
      const idToken = await idp.sign(claims);
      // A new way in: one event on the account and one notice to its address (decision 056).
      const told = async () =>
        (
          await queryRows<{ events: number; mails: number }>(
            t.database.db,
            sql`select (select count(*)::int from audit.events e join auth.users u on u.id = e.entity_id
                         where u.email = 'commercial@demo.local' and e.changes::text like '%lié : SSO Atelier%') as events,
                       (select count(*)::int from auth.message_queue where kind = 'wayInNotice' and recipient = 'commercial@demo.local') as mails`,
          )
        )[0]!;
      const before = await told();
      expect(await link(token, { provider: 'local', idToken })).toMatchObject({ status: 200, body: 'OK' });
      expect(await told()).toEqual({ events: before.events + 1, mails: before.mails + 1 });
      expect(await link(token, { provider: 'local', idToken })).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
      // Linked already: nothing new is told.
      expect(await link(token, { provider: 'local', idToken: await idp.sign(claims) })).toMatchObject({ status: 200 });
      expect(await told()).toEqual({ events: before.events + 1, mails: before.mails + 1 });
      expect(await links('commercial-at-idp')).toEqual([{ email: 'commercial@demo.local', provider_id: 'local' }]);
      const signedIn = await postJson(`${api}/signin/idtoken`, { provider: 'local', idToken: await idp.sign(claims) });
      expect(signedIn.body.session.user.email).toBe('commercial@demo.local');
    });

    it('refuses a provider account linked to another user, a bad token, a signed-out caller, and a stale proof', async () => {
      const token = await signInPassword('diagnostic@demo.local');
      expect(await link(token, { provider: 'local', idToken: await idp.sign({ sub: 'commercial-at-idp' }) })).toMatchObject({
        status: 409,
        body: { error: 'provider-account-already-linked' },
      });
      expect(await link(token, { provider: 'local', idToken: await idp.sign({ sub: 'd', aud: 'other' }) })).toMatchObject({
        status: 400,
        body: { error: 'invalid-request' },
      });
      expect(await link(null, { provider: 'local', idToken: await idp.sign({ sub: 'd' }) })).toMatchObject({
        status: 401,
        body: { error: 'unauthenticated-user' },
      });
      expect(await link(token, { provider: 'github', idToken: await idp.sign({ sub: 'd' }) })).toMatchObject({
        status: 409,
        body: { error: 'disabled-endpoint' },
      });

      // A user with a second factor links only within five minutes of proving it (step-up).
      await t.database.db.execute(sql`update auth.users set active_mfa_type = 'totp' where email = 'diagnostic@demo.local'`);
      try {
        expect(await link(token, { provider: 'local', idToken: await idp.sign({ sub: 'd' }) })).toMatchObject({
          status: 403,
          body: { error: 'elevated-claim-required' },
        });
      } finally {
        await t.database.db.execute(sql`update auth.users set active_mfa_type = null where email = 'diagnostic@demo.local'`);
      }
      expect(await links('d')).toEqual([]);
    });

    it("links through the browser round trip with hasura-auth's connect", async () => {
      const token = await signInPassword('admin@demo.local');
      idp.accounts.set('admin-at-idp', { sub: 'admin-at-idp', email: 'admin@ailleurs.test', email_verified: true });
      idp.next = { account: 'admin-at-idp' };
      const landing = new URL(await createBrowser().follow(`${api}/signin/provider/local?redirectTo=/users&connect=${token}`, onApp));
      expect(landing.href).toBe(`${t.url}/users`);
      expect(await links('admin-at-idp')).toEqual([{ email: 'admin@demo.local', provider_id: 'local' }]);
      const refused = await fetch(`${api}/signin/provider/local?redirectTo=/users&connect=forged`, { redirect: 'manual' });
      expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('unauthenticated-user');
    });
  });

  /** What @nhost/hasura-auth-js reports for a refused ID token. */
  async function createBrowserlessClientSignIn(idToken: string) {
    const client = authClient(t.url);
    const result = await client.signInIdToken({ provider: 'local' as never, idToken });
    return result.error;
  }
});

function hs256(claims: Record<string, unknown>) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'test-key' }).sign(new TextEncoder().encode('a-shared-secret-of-32-characters!'));
}

function unsigned(claims: Record<string, unknown>) {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', kid: 'test-key' })}.${part(claims)}.`;
}
