// Security keys over HTTP (hasura-auth's /signup, /signin, /user and /elevate webauthn routes),
// answered by a software authenticator: what a key proves opens a session; a response for another
// challenge, origin or RP id, a replay, an unknown key, a cloned key's counter or a wrong
// attachment gets the documented error and never a session.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { createSoftwareAuthenticator, type SoftwareAuthenticator } from './support/software-authenticator.ts';
import { databaseKinds, decodeMail, postJson, startTestApp, type TestApp } from './support/app.ts';

const claimsOf = (accessToken: string) =>
  JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8'))['https://hasura.io/jwt/claims'] as Record<string, unknown>;
const bearerOf = (session: { accessToken: string }) => ({ authorization: `Bearer ${session.accessToken}` });
const randomChallenge = () => randomBytes(32).toString('base64url');

/** Everything a test needs against one running app. */
function harness(t: TestApp) {
  const api = `${t.url}/api/auth`;
  const origin = new URL(t.config.publicUrl).origin;
  const rpId = t.config.webauthn.rpId;
  const call = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(`${api}${path}`, body, headers);
  const authenticator = () => createSoftwareAuthenticator({ origin, rpId });
  const webauthnGrants = async () =>
    (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from auth.grants where method = 'webauthn'`))[0]!.n;
  async function signInWithPassword(email: string) {
    const { body } = await call('/signin/email-password', { email, password: DEMO_PASSWORD });
    return body.session as { accessToken: string; refreshToken: string; user: { id: string } };
  }
  /** A key added to the account through /user/webauthn/add and /verify. */
  async function addKey(email: string, nickname = 'Clé USB') {
    const session = await signInWithPassword(email);
    const key = authenticator();
    const options = await call('/user/webauthn/add', {}, bearerOf(session));
    const added = await call('/user/webauthn/verify', { credential: key.register(options.body), nickname }, bearerOf(session));
    expect(added).toMatchObject({ status: 200, body: { nickname } });
    return { key, session, id: added.body.id as string };
  }
  const signInOptions = async (email?: string) => (await call('/signin/webauthn', email ? { email } : {})).body;
  return { api, origin, rpId, call, authenticator, webauthnGrants, signInWithPassword, addKey, signInOptions };
}

describe.each(databaseKinds)('security keys on %s', (kind) => {
  let t: TestApp;
  let h: ReturnType<typeof harness>;
  let mechanic: { key: SoftwareAuthenticator; id: string; session: { accessToken: string; user: { id: string } } };
  beforeAll(async () => {
    // Wrong answers are throttled per address: these stories send many on purpose (the throttle
    // has its own test below).
    t = await startTestApp(kind, { signInThrottle: { accountFree: 10_000, addressFree: 10_000, maxDelayMs: 1000, forgetMs: 1000 } });
    h = harness(t);
    mechanic = await h.addKey('mecanicien@demo.local');
  });
  afterAll(() => t?.close());

  it('adds a key to a signed-in account, never the same one twice', async () => {
    const options = await h.call('/user/webauthn/add', {}, bearerOf(mechanic.session));
    expect(options).toMatchObject({
      status: 200,
      body: {
        rp: { id: h.rpId, name: 'Atelier BVA' },
        user: { name: 'mecanicien@demo.local' },
        attestation: 'none',
        authenticatorSelection: { userVerification: 'required' },
        excludeCredentials: [{ id: mechanic.key.id }],
      },
    });
    expect(Buffer.from(options.body.user.id, 'base64url').toString('utf8')).toBe(mechanic.session.user.id);
    // The browser refuses an excluded key; a client that does not is refused here.
    const again = await h.call('/user/webauthn/verify', { credential: mechanic.key.register(options.body), nickname: 'Encore' }, bearerOf(mechanic.session));
    expect(again).toMatchObject({ status: 409, body: { error: 'webauthn-authenticator-previously-registered' } });
    expect(await h.call('/user/webauthn/add', {})).toMatchObject({ status: 401, body: { error: 'unauthenticated-user' } });
    const rows = await queryRows<{ nickname: string; transports: string; counter: number }>(
      t.database.db,
      sql`select nickname, transports, counter::int as counter from auth.user_security_keys where credential_id = ${mechanic.key.id}`,
    );
    expect(rows).toEqual([{ nickname: 'Clé USB', transports: 'usb', counter: 0 }]);
  });

  it('signs in with the key, by e-mail or as the autofill form does, elevated, and moves the counter', async () => {
    const options = await h.signInOptions('mecanicien@demo.local');
    expect(options).toMatchObject({ rpId: h.rpId, userVerification: 'required', allowCredentials: [{ id: mechanic.key.id, transports: ['usb'] }] });
    const byEmail = await h.call('/signin/webauthn/verify', { email: 'mecanicien@demo.local', credential: mechanic.key.authenticate(options) });
    expect(byEmail).toMatchObject({ status: 200, body: { session: { user: { email: 'mecanicien@demo.local' } }, mfa: null } });
    expect(claimsOf(byEmail.body.session.accessToken)['x-hasura-auth-elevated']).toBe(mechanic.session.user.id);

    const discoverable = await h.signInOptions();
    expect(discoverable.allowCredentials ?? []).toEqual([]);
    const autofill = await h.call('/signin/webauthn/verify', { credential: mechanic.key.authenticate(discoverable) });
    expect(autofill).toMatchObject({ status: 200, body: { session: { user: { id: mechanic.session.user.id } } } });
    // The session is an ordinary one: it refreshes.
    expect(await h.call('/token', { refreshToken: autofill.body.session.refreshToken })).toMatchObject({ status: 200 });

    const [key] = await queryRows<{ counter: number; used: boolean }>(
      t.database.db,
      sql`select counter::int as counter, last_used_at is not null as used from auth.user_security_keys where credential_id = ${mechanic.key.id}`,
    );
    expect(key).toEqual({ counter: mechanic.key.counter, used: true });
  });

  it('refuses a response for another challenge, origin or RP id, a replay and an expired challenge, with no session', async () => {
    const before = await h.webauthnGrants();
    const verify = (credential: unknown, email?: string) => h.call('/signin/webauthn/verify', email ? { email, credential } : { credential });
    const refused = { status: 401, body: { error: 'invalid-webauthn-verification' } };

    expect(await verify(mechanic.key.authenticate(await h.signInOptions(), { challenge: randomChallenge() }))).toMatchObject(refused);
    expect(await verify(mechanic.key.authenticate(await h.signInOptions(), { origin: 'https://atelier.example' }))).toMatchObject(refused);
    expect(await verify(mechanic.key.authenticate(await h.signInOptions(), { rpId: 'atelier.example' }))).toMatchObject(refused);
    // An assertion of registration type, and one without the user verified (PIN, fingerprint).
    expect(await verify(mechanic.key.authenticate(await h.signInOptions(), { type: 'webauthn.create' }))).toMatchObject(refused);
    expect(await verify(mechanic.key.authenticate(await h.signInOptions(), { flags: 0x01 }))).toMatchObject(refused);

    // A challenge is good once, even when its first answer was wrong.
    const once = await h.signInOptions();
    expect(await verify(mechanic.key.authenticate(once, { origin: 'https://atelier.example' }))).toMatchObject(refused);
    expect(await verify(mechanic.key.authenticate(once))).toMatchObject(refused);

    const good = await h.signInOptions();
    const assertion = mechanic.key.authenticate(good);
    expect(await verify(assertion)).toMatchObject({ status: 200 });
    expect(await verify(assertion)).toMatchObject(refused);

    const late = await h.signInOptions();
    await t.database.db.execute(sql`update auth.challenges set expires_at = now() - interval '1 second' where used_at is null`);
    expect(await verify(mechanic.key.authenticate(late))).toMatchObject(refused);

    // An assertion for a challenge of another ceremony (adding a key) is no sign-in.
    const adding = await h.call('/user/webauthn/add', {}, bearerOf(mechanic.session));
    expect(await verify(mechanic.key.authenticate({ challenge: adding.body.challenge, rpId: h.rpId }))).toMatchObject(refused);

    expect(await h.webauthnGrants()).toBe(before + 1);
  });

  it('refuses an unknown key, a key of another account, a cloned key and a wrong attachment, with no session', async () => {
    const before = await h.webauthnGrants();
    const verify = (credential: unknown, email?: string) => h.call('/signin/webauthn/verify', email ? { email, credential } : { credential });
    const unknownKey = { status: 401, body: { error: 'invalid-webauthn-security-key' } };

    expect(await verify(h.authenticator().authenticate(await h.signInOptions()))).toMatchObject(unknownKey);
    // Options for the admin's keys (none) answered by the mechanic's key; and the e-mail of
    // another account beside a discoverable answer.
    expect(await verify(mechanic.key.authenticate(await h.signInOptions('admin@demo.local')), 'admin@demo.local')).toMatchObject(unknownKey);
    expect(await verify(mechanic.key.authenticate(await h.signInOptions()), 'admin@demo.local')).toMatchObject(unknownKey);
    expect(await verify(mechanic.key.authenticate(await h.signInOptions('personne@demo.local')))).toMatchObject(unknownKey);
    // A user handle that is not the key's account.
    const handle = Buffer.from(crypto.randomUUID()).toString('base64url');
    expect(await verify(mechanic.key.authenticate(await h.signInOptions(), { userHandle: handle }))).toMatchObject(unknownKey);

    // A counter that goes back: two copies of one key.
    expect(await verify(mechanic.key.authenticate(await h.signInOptions(), { counter: 1 }))).toMatchObject({
      status: 401,
      body: { error: 'invalid-webauthn-verification' },
    });

    const wrongAttachment = await verify(mechanic.key.authenticate(await h.signInOptions(), { attachment: 'hybrid' }));
    expect(wrongAttachment).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
    expect(wrongAttachment.body.message).toMatch(/authenticatorAttachment/);
    expect(await h.webauthnGrants()).toBe(before);
  });

  it('answers malformed bodies with invalid-request, never a 500', async () => {
    const credential = mechanic.key.authenticate(await h.signInOptions());
    const bad = [
      {},
      { credential: 'nope' },
      { credential: { ...credential, type: 'password' } },
      { credential: { ...credential, response: { ...credential.response, signature: 'pas du base64url !' } } },
      { credential: { ...credential, response: { ...credential.response, clientDataJSON: 'x'.repeat(9000) } } },
      { credential, role: 'app_admin' },
      { email: 'pas-une-adresse', credential },
    ];
    for (const body of bad) expect((await h.call('/signin/webauthn/verify', body)).status, JSON.stringify(body).slice(0, 80)).toBe(400);
    // Well-formed base64url that is no clientDataJSON.
    const garbage = { ...credential, response: { ...credential.response, clientDataJSON: randomChallenge() } };
    expect(await h.call('/signin/webauthn/verify', { credential: garbage })).toMatchObject({ status: 401, body: { error: 'invalid-webauthn-verification' } });
    expect(await h.call('/signin/webauthn', { email: 'x' })).toMatchObject({ status: 400, body: { error: 'invalid-email' } });
    expect(await h.call('/signin/webauthn', '{"email":')).toMatchObject({ status: 400 });
  });

  it('refuses a registration for another challenge, origin or account, and a wrong attachment', async () => {
    const session = await h.signInWithPassword('diagnostic@demo.local');
    const key = h.authenticator();
    const add = async () => (await h.call('/user/webauthn/add', {}, bearerOf(session))).body;
    const verify = (credential: unknown, headers = bearerOf(session)) => h.call('/user/webauthn/verify', { credential, nickname: 'Clé' }, headers);
    const refused = { status: 401, body: { error: 'invalid-webauthn-verification' } };
    expect(await verify(key.register({ ...(await add()), challenge: randomChallenge() }))).toMatchObject(refused);
    expect(await verify(key.register(await add(), { origin: 'https://atelier.example' }))).toMatchObject(refused);
    expect(await verify(key.register(await add(), { rpId: 'atelier.example' }))).toMatchObject(refused);
    // Options the mechanic asked for, answered under the diagnostician's token.
    const mechanicOptions = (await h.call('/user/webauthn/add', {}, bearerOf(mechanic.session))).body;
    expect(await verify(key.register(mechanicOptions))).toMatchObject(refused);
    expect(await verify(key.register(await add(), { attachment: 'hybrid' }))).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
    // A browser that does not say the attachment is fine.
    expect(await verify(key.register(await add(), { attachment: null }))).toMatchObject({ status: 200, body: { nickname: 'Clé' } });
  });

  it('refuses a disabled account and an unverified address', async () => {
    const { key } = await h.addKey('commercial@demo.local');
    await t.database.db.execute(sql`update auth.users set disabled = true where email = 'commercial@demo.local'`);
    try {
      expect(await h.call('/signin/webauthn/verify', { credential: key.authenticate(await h.signInOptions()) })).toMatchObject({
        status: 401,
        body: { error: 'disabled-user' },
      });
    } finally {
      await t.database.db.execute(sql`update auth.users set disabled = false, email_verified = false where email = 'commercial@demo.local'`);
    }
    try {
      expect(await h.call('/signin/webauthn/verify', { credential: key.authenticate(await h.signInOptions()) })).toMatchObject({
        status: 401,
        body: { error: 'unverified-user' },
      });
    } finally {
      await t.database.db.execute(sql`update auth.users set email_verified = true where email = 'commercial@demo.local'`);
    }
  });

  it('signs up with a key: a disabled account with the least role, its key, the e-mail, and no session', async () => {
    const email = `nouveau-${kind}@atelier.example`;
    expect(await h.call('/signup/webauthn', { email: 'admin@demo.local' })).toMatchObject({ status: 409, body: { error: 'email-already-in-use' } });
    expect(await h.call('/signup/webauthn', { email, options: { defaultRole: 'app_admin' } })).toMatchObject({
      status: 400,
      body: { error: 'role-not-allowed' },
    });
    expect(await h.call('/signup/webauthn', { email, options: { redirectTo: 'https://evil.example/' } })).toMatchObject({
      status: 400,
      body: { error: 'redirectTo-not-allowed' },
    });

    const options = await h.call('/signup/webauthn', { email, options: { displayName: 'Nouveau Venu' } });
    expect(options).toMatchObject({ status: 200, body: { user: { name: email, displayName: 'Nouveau Venu' }, excludeCredentials: [] } });
    const key = h.authenticator();
    const credential = key.register(options.body);
    // As @nhost/hasura-auth-js sends it.
    const signedUp = await h.call('/signup/webauthn/verify', { credential, options: { nickname: 'Ma clé', displayName: 'Nouveau Venu' } });
    expect(signedUp).toEqual(expect.objectContaining({ status: 200, body: { session: null } }));
    expect(await h.call('/signup/webauthn/verify', { credential, options: { nickname: 'Ma clé' } })).toMatchObject({
      status: 401,
      body: { error: 'invalid-webauthn-verification' },
    });

    const [user] = await queryRows<{ id: string; disabled: boolean; default_role: string; display_name: string; password_hash: string | null }>(
      t.database.db,
      sql`select id, disabled, default_role, display_name, password_hash from auth.users where email = ${email}`,
    );
    expect(user).toMatchObject({ disabled: true, default_role: 'mechanic', display_name: 'Nouveau Venu', password_hash: null });
    expect(Buffer.from(options.body.user.id, 'base64url').toString('utf8')).toBe(user!.id);
    // The audit trail has the account's creation, by its owner.
    const events = await queryRows(t.database.db, sql`select action, actor_id from audit.events where entity_id = ${user!.id}`);
    expect(events).toEqual([{ action: 'created', actor_id: user!.id }]);
    const keys = await queryRows<{ nickname: string }>(t.database.db, sql`select nickname from auth.user_security_keys where user_id = ${user!.id}`);
    expect(keys).toEqual([{ nickname: 'Ma clé' }]);
    const mail = decodeMail((await t.outbox()).at(-1)!);
    expect(mail).toContain(`To: ${email}`);
    expect(mail).toMatch(/\/api\/auth\/verify\?ticket=verifyEmail/);

    // Until an admin enables the account, the key opens nothing.
    expect(await h.call('/signin/webauthn/verify', { credential: key.authenticate(await h.signInOptions()) })).toMatchObject({
      status: 401,
      body: { error: 'disabled-user' },
    });
    // The address is now taken, the key too.
    expect(await h.call('/signup/webauthn', { email })).toMatchObject({ status: 409, body: { error: 'email-already-in-use' } });
    const other = await h.call('/signup/webauthn', { email: `autre-${kind}@atelier.example` });
    expect(await h.call('/signup/webauthn/verify', { credential: key.register(other.body) })).toMatchObject({
      status: 409,
      body: { error: 'webauthn-authenticator-previously-registered' },
    });
  });

  it('elevates a password sign-in with a key: the new session carries x-hasura-auth-elevated', async () => {
    const session = await h.signInWithPassword('mecanicien@demo.local');
    expect(claimsOf(session.accessToken)['x-hasura-auth-elevated']).toBeUndefined();
    const headers = bearerOf(session);
    expect(await h.call('/elevate/webauthn', { email: 'admin@demo.local' }, headers)).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
    expect(await h.call('/elevate/webauthn', { email: 'mecanicien@demo.local' })).toMatchObject({ status: 401, body: { error: 'unauthenticated-user' } });

    // A ceremony begun in another sign-in of the same user elevates nothing here.
    const elsewhere = await h.call('/elevate/webauthn', { email: 'mecanicien@demo.local' }, bearerOf(mechanic.session));
    expect(
      await h.call('/elevate/webauthn/verify', { email: 'mecanicien@demo.local', credential: mechanic.key.authenticate(elsewhere.body) }, headers),
    ).toMatchObject({
      status: 401,
      body: { error: 'invalid-webauthn-verification' },
    });
    // Another user's key.
    const colleague = await h.addKey('nathalie.garnier@demo.local');
    const forColleague = await h.call('/elevate/webauthn', {}, headers);
    expect(await h.call('/elevate/webauthn/verify', { credential: colleague.key.authenticate(forColleague.body) }, headers)).toMatchObject({
      status: 401,
      body: { error: 'invalid-webauthn-security-key' },
    });

    const options = await h.call('/elevate/webauthn', { email: 'mecanicien@demo.local' }, headers);
    expect(options).toMatchObject({ status: 200, body: { allowCredentials: [{ id: mechanic.key.id }] } });
    const elevated = await h.call('/elevate/webauthn/verify', { email: 'mecanicien@demo.local', credential: mechanic.key.authenticate(options.body) }, headers);
    expect(elevated).toMatchObject({ status: 200, body: { session: { user: { email: 'mecanicien@demo.local' } } } });
    const renewed = elevated.body.session;
    expect(claimsOf(renewed.accessToken)['x-hasura-auth-elevated']).toBe(session.user.id);
    // The same sign-in: one grant, its new refresh token heads the family.
    expect(claimsOf(renewed.accessToken)['x-hasura-user-id']).toBe(session.user.id);
    const refreshed = await h.call('/token', { refreshToken: renewed.refreshToken });
    expect(refreshed).toMatchObject({ status: 200 });
    expect(claimsOf(refreshed.body.accessToken)['x-hasura-auth-elevated']).toBe(session.user.id);
    // The first token was rotated by the elevation: inside the grace window it is not honoured.
    expect(await h.call('/token', { refreshToken: session.refreshToken })).toMatchObject({ status: 401, body: { error: 'invalid-refresh-token' } });
  });

  it('lists, renames and removes keys; a removed key opens nothing', async () => {
    const { webauthn } = t.app.services;
    const owner = await h.addKey('admin@demo.local', 'Clé du bureau');
    const listed = await webauthn.listSecurityKeys(owner.session.user.id);
    expect(listed.map((key) => key.nickname)).toContain('Clé du bureau');
    await webauthn.renameSecurityKey(owner.session.user.id, owner.id, "  Clé de l'atelier ");
    expect((await webauthn.listSecurityKeys(owner.session.user.id)).find((key) => key.id === owner.id)).toMatchObject({
      nickname: "Clé de l'atelier",
      lastUsedAt: null,
    });
    await expect(webauthn.renameSecurityKey(owner.session.user.id, owner.id, '   ')).rejects.toMatchObject({ reason: 'invalid-request' });
    // Another user cannot touch it, even elevated.
    const { auth } = t.app.services;
    const mechanicRow = await auth.authenticate(mechanic.session.accessToken);
    await auth.elevate(mechanicRow.sessionId);
    await expect(webauthn.removeSecurityKey(mechanicRow, owner.id, { ip: '127.0.0.1' })).rejects.toMatchObject({ kind: 'not-found' });
    await expect(webauthn.renameSecurityKey(mechanic.session.user.id, owner.id, 'À moi')).rejects.toMatchObject({ kind: 'not-found' });

    expect(await h.call('/signin/webauthn/verify', { credential: owner.key.authenticate(await h.signInOptions()) })).toMatchObject({ status: 200 });
    // A sign-in that has not proved the key cannot add a factor nor remove one: a step-up first.
    // Adding the first key elevated this sign-in: five minutes later, it no longer counts.
    const { sessionId } = await auth.authenticate(owner.session.accessToken);
    await t.database.db.execute(sql`update auth.grants set elevated_at = now() - interval '6 minutes' where id = ${sessionId}`);
    const ownerRow = await auth.authenticate(owner.session.accessToken);
    await expect(t.app.services.mfa.generateTotp(ownerRow)).rejects.toMatchObject({ reason: 'elevated-claim-required' });
    expect(await h.call('/user/webauthn/add', {}, { authorization: `Bearer ${owner.session.accessToken}` })).toMatchObject({
      status: 403,
      body: { error: 'elevated-claim-required' },
    });
    await expect(webauthn.removeSecurityKey(ownerRow, owner.id, { ip: '127.0.0.1' })).rejects.toMatchObject({ reason: 'elevated-claim-required' });
    await auth.elevate(ownerRow.sessionId);
    await webauthn.removeSecurityKey(ownerRow, owner.id, { ip: '127.0.0.1' });
    expect((await webauthn.listSecurityKeys(owner.session.user.id)).some((key) => key.id === owner.id)).toBe(false);
    expect(await h.call('/signin/webauthn/verify', { credential: owner.key.authenticate(await h.signInOptions()) })).toMatchObject({
      status: 401,
      body: { error: 'invalid-webauthn-security-key' },
    });
  });
});

describe('security keys switched off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { env: { AUTH_WEBAUTHN_ENABLED: '0', DEMO_DATA: '0' } });
  });
  afterAll(() => t?.close());

  it('answers disabled-endpoint on every route', async () => {
    for (const path of [
      '/signup/webauthn',
      '/signup/webauthn/verify',
      '/signin/webauthn',
      '/signin/webauthn/verify',
      '/user/webauthn/add',
      '/user/webauthn/verify',
      '/elevate/webauthn',
      '/elevate/webauthn/verify',
    ]) {
      expect(await postJson(`${t.url}/api/auth${path}`, {}), path).toMatchObject({ status: 409, body: { error: 'disabled-endpoint' } });
    }
  });
});

describe('the sign-in page with a key', () => {
  let t: TestApp;
  let h: ReturnType<typeof harness>;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    h = harness(t);
  });
  afterAll(() => t?.close());

  const post = (body: unknown) =>
    fetch(`${t.url}/sign-in/security-key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), redirect: 'manual' });

  it('verifies the key in process, writes the page session and says where to go', async () => {
    const { key } = await h.addKey('mecanicien@demo.local');
    const refused = await post({ credential: h.authenticator().authenticate(await h.signInOptions()) });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid-webauthn-security-key', message: 'Clé de sécurité non reconnue.' });
    expect(refused.headers.get('set-cookie') ?? '').not.toMatch(/atelier_session=[^;]/);

    expect((await post({ credential: 'nope' })).status).toBe(400);
    const signedIn = await post({ credential: key.authenticate(await h.signInOptions()), redirectTo: '/gearboxes?type=automatic' });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ location: '/gearboxes?type=automatic' });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const home = await fetch(`${t.url}/repair-orders`, { headers: { cookie }, redirect: 'manual' });
    expect(home.status).toBe(200);
    // A foreign target is not followed.
    const elsewhere = await post({ credential: key.authenticate(await h.signInOptions()), redirectTo: 'https://evil.example/' });
    expect(await elsewhere.json()).toEqual({ location: '/repair-orders' });
  });

  it('slows down an address that keeps sending wrong answers', async () => {
    let last = await h.call('/signin/webauthn/verify', { credential: h.authenticator().authenticate(await h.signInOptions()) });
    for (let i = 0; i < 30 && last.status !== 429; i++) {
      last = await h.call('/signin/webauthn/verify', { credential: h.authenticator().authenticate(await h.signInOptions()) });
    }
    expect(last).toMatchObject({ status: 429, body: { error: 'too-many-requests' } });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
