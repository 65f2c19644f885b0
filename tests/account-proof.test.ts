// Proof before changing a way in (issue 29, item 1; decision 048): the e-mail, the phone, the
// password, a second factor, a security key and a new personal access token need a proof of
// the account's strongest factor from the last five minutes, whatever way the sign-in began.
// A personal access token's sign-in never manages the account; a mechanic cannot change their
// own address (SPEC §6).
import { sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AstroCookies } from 'astro';
import { cookieOf, writeSession } from '#lib/auth/session.server.ts';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { browser, htmlText } from './support/browser.ts';
import { postJson, startTestApp, verifyLink, decodeMail, type TestApp } from './support/app.ts';

const NEW_PASSWORD = 'Nouveau-mot-de-passe-2026!';
const codeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();

let t: TestApp;
let api: string;
beforeAll(async () => {
  t = await startTestApp('pglite', { env: { AUTH_SMS_PASSWORDLESS_ENABLED: '1' }, pages: true });
  api = `${t.url}/api/auth`;
});
afterAll(() => t?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const passwordSignIn = async (email: string, password = DEMO_PASSWORD) =>
  (await postJson(`${api}/signin/email-password`, { email, password })).body.session.accessToken as string;

/** A sign-in by the e-mail link sent to `email`: what a leaked link (or mailbox) gives. */
async function linkSignIn(email: string): Promise<string> {
  return (await linkSession(email)).accessToken as string;
}

/** The session of that link: its access token, and what a browser's cookie is made of. */
async function linkSession(email: string) {
  expect((await postJson(`${api}/signin/passwordless/email`, { email })).status).toBe(200);
  const mail = (await t.outbox())
    .map(decodeMail)
    .filter((m) => m.includes(`To: ${email}`))
    .at(-1)!;
  const landing = await fetch(verifyLink(mail), { redirect: 'manual' });
  const refreshToken = new URL(landing.headers.get('location')!).searchParams.get('refreshToken')!;
  expect(refreshToken).toBeTruthy();
  return (await postJson(`${api}/token`, { refreshToken })).body;
}

/** A sign-in by a personal access token of `email`: what a leaked script token gives. */
async function patSignIn(email: string): Promise<string> {
  const created = await postJson(`${api}/pat`, { expiresAt: tomorrow() }, bearer(await passwordSignIn(email)));
  expect(created.status).toBe(200);
  return (await postJson(`${api}/signin/pat`, { personalAccessToken: created.body.personalAccessToken })).body.session.accessToken as string;
}

const sessionOf = async (token: string) => t.app.services.auth.authenticate(token);

/** Every change of a way in, as the API (and, for the phone, the profile screen) asks it. */
const changes = {
  email: (token: string) => postJson(`${api}/user/email/change`, { newEmail: `nouvelle-${Date.now()}@demo.local` }, bearer(token)),
  totpGenerate: async (token: string) => {
    const res = await fetch(`${api}/mfa/totp/generate`, { headers: bearer(token) });
    return { status: res.status, body: (await res.json()) as any };
  },
  totpActivate: (token: string) => postJson(`${api}/user/mfa`, { code: '123456', activeMfaType: 'totp' }, bearer(token)),
  keyOptions: (token: string) => postJson(`${api}/user/webauthn/add`, {}, bearer(token)),
  pat: (token: string) => postJson(`${api}/pat`, { expiresAt: tomorrow() }, bearer(token)),
  password: (token: string, currentPassword?: string) => postJson(`${api}/user/password`, { newPassword: NEW_PASSWORD, currentPassword }, bearer(token)),
  phone: async (token: string) => {
    try {
      await t.app.services.passwordless.sendPhoneCode(await sessionOf(token), '+33611223344', { ip: '127.0.0.9' });
      return { status: 200, body: 'OK' as unknown };
    } catch (error) {
      const e = error as { reason?: string };
      return { status: 403, body: { error: e.reason } };
    }
  },
};

describe('a sign-in by e-mail link, on an account with a password and no second factor', () => {
  const email = 'diagnostic@demo.local';
  let token: string;
  beforeAll(async () => {
    token = await linkSignIn(email);
  });

  it('cannot change the e-mail, the phone, the password, add a factor or a key, or create a token', async () => {
    for (const [name, change] of Object.entries(changes)) {
      const answer = await change(token);
      expect({ name, status: answer.status, error: answer.body?.error }).toEqual({ name, status: 403, error: 'elevated-claim-required' });
    }
    // The wrong current password is no proof either.
    expect(await changes.password(token, 'pas-le-bon-mot')).toMatchObject({ status: 400, body: { error: 'invalid-current-password' } });
  });

  it('refuses a wrong password as proof', async () => {
    expect(await postJson(`${api}/elevate/password`, { password: 'pas-le-bon-mot' }, bearer(token))).toMatchObject({
      status: 400,
      body: { error: 'invalid-current-password' },
    });
    expect((await changes.email(token)).status).toBe(403);
  });

  it('does each of them once the current password is proved, for five minutes', async () => {
    const proved = await postJson(`${api}/elevate/password`, { password: DEMO_PASSWORD }, bearer(token));
    expect(proved).toMatchObject({ status: 200, body: { session: { accessToken: expect.any(String) } } });
    token = proved.body.session.accessToken;
    expect(await changes.email(token)).toMatchObject({ status: 200 });
    expect(await changes.phone(token)).toMatchObject({ status: 200 });
    expect(await changes.keyOptions(token)).toMatchObject({ status: 200, body: { challenge: expect.any(String) } });
    expect(await changes.pat(token)).toMatchObject({ status: 200, body: { personalAccessToken: expect.any(String) } });
    expect(await changes.password(token)).toMatchObject({ status: 200 });
    const generated = await changes.totpGenerate(token);
    expect(generated).toMatchObject({ status: 200, body: { totpSecret: expect.any(String) } });
    expect(await postJson(`${api}/user/mfa`, { code: codeOf(generated.body.totpSecret), activeMfaType: 'totp' }, bearer(token))).toMatchObject({
      status: 200,
      body: { recoveryCodes: expect.any(Array) },
    });
  });

  it('asks again once the proof is over five minutes old', async () => {
    const other = await linkSignIn('commercial@demo.local');
    expect((await postJson(`${api}/elevate/password`, { password: DEMO_PASSWORD }, bearer(other))).status).toBe(200);
    await t.database.db.execute(sql`update auth.grants set elevated_at = now() - interval '6 minutes' where elevated_at is not null`);
    expect(await changes.email(other)).toMatchObject({ status: 403, body: { error: 'elevated-claim-required' } });
  });
});

describe('a sign-in by personal access token', () => {
  it('manages nothing of the account, proof or not', async () => {
    const token = await patSignIn('commercial@demo.local');
    for (const [name, change] of Object.entries(changes)) {
      const answer = await change(token);
      expect({ name, status: answer.status, error: answer.body?.error }).toEqual({ name, status: 403, error: 'forbidden-pat' });
    }
    expect(await changes.password(token, DEMO_PASSWORD)).toMatchObject({ status: 403, body: { error: 'forbidden-pat' } });
    expect(await postJson(`${api}/elevate/password`, { password: DEMO_PASSWORD }, bearer(token))).toMatchObject({
      status: 403,
      body: { error: 'forbidden-pat' },
    });
    expect((await changes.email(token)).status).toBe(403);
  });

  it('of an admin without a second factor, plants no way into another account through GraphQL', async () => {
    const token = await patSignIn('admin@demo.local');
    const gql = (query: string, variables: object) =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ query, variables }),
      }).then((r) => r.json() as Promise<{ data?: unknown; errors?: { extensions?: { reason?: string } }[] }>);
    const [target] = await queryRows<{ id: string }>(t.database.db, sql`select id from auth.users where email = 'commercial@demo.local'`);
    const email = await gql('mutation($id: uuid!) { updateUser(pk_columns: { id: $id }, _set: { email: "pirate@example.com" }) { email } }', {
      id: target!.id,
    });
    expect(email.errors?.[0]?.extensions, JSON.stringify(email)).toMatchObject({ reason: 'forbidden-pat' });
    const created = await gql(
      'mutation { insertUser(object: { email: "pirate2@example.com", displayName: "Pirate", defaultRole: "diagnostician" }) { id } }',
      {},
    );
    expect(created.errors?.[0]?.extensions, JSON.stringify(created)).toMatchObject({ reason: 'forbidden-pat' });
    const [row] = await queryRows(t.database.db, sql`select email, new_email from auth.users where id = ${target!.id}`);
    expect(row).toEqual({ email: 'commercial@demo.local', new_email: null });
  });
});

describe('an account with a second factor', () => {
  it('takes its code as proof, never the password alone', async () => {
    const email = 'admin@demo.local';
    const first = await passwordSignIn(email);
    const secret = (await changes.totpGenerate(first)).body.totpSecret as string;
    expect((await postJson(`${api}/user/mfa`, { code: codeOf(secret, -1), activeMfaType: 'totp' }, bearer(first))).status).toBe(200);
    const token = await linkSignInWithCode(email, secret);
    await t.database.db.execute(sql`update auth.grants set elevated_at = now() - interval '6 minutes' where elevated_at is not null`);
    expect(await changes.email(token)).toMatchObject({ status: 403, body: { error: 'elevated-claim-required' } });
    expect(await postJson(`${api}/elevate/password`, { password: DEMO_PASSWORD }, bearer(token))).toMatchObject({
      status: 403,
      body: { error: 'elevated-claim-required' },
    });
    expect((await changes.email(token)).status).toBe(403);
    const elevated = await postJson(`${api}/elevate/totp`, { otp: codeOf(secret, 1) }, bearer(token));
    expect(elevated.status).toBe(200);
    expect(await changes.email(elevated.body.session.accessToken)).toMatchObject({ status: 200 });
  });
});

/** The e-mail link of a TOTP user: its landing asks the code, which opens the sign-in. */
async function linkSignInWithCode(email: string, secret: string): Promise<string> {
  await postJson(`${api}/signin/passwordless/email`, { email });
  const mail = (await t.outbox())
    .map(decodeMail)
    .filter((m) => m.includes(`To: ${email}`))
    .at(-1)!;
  const landing = await fetch(verifyLink(mail), { redirect: 'manual' });
  const ticket = new URL(landing.headers.get('location')!).searchParams.get('mfaTicket')!;
  return (await postJson(`${api}/signin/mfa/totp`, { ticket, otp: codeOf(secret) })).body.session.accessToken as string;
}

describe('the phone screen, signed in by an e-mail link', () => {
  it('asks the current password in the form that sends the code, says a wrong one there, then sends it', async () => {
    const session = await linkSession('commercial@demo.local');
    let cookie = '';
    const jar = { set: (_name: string, value: string) => void (cookie = value) } as unknown as AstroCookies;
    await writeSession(jar, t.app.services, cookieOf(session));
    const headers = { cookie: `atelier_session=${cookie}`, origin: t.url, 'content-type': 'application/x-www-form-urlencoded' };
    const post = (fields: Record<string, string>) =>
      fetch(`${t.url}/profile/phone`, { method: 'POST', headers, body: new URLSearchParams(fields), redirect: 'manual' });

    const page = htmlText(await (await fetch(`${t.url}/profile/phone`, { headers })).text());
    expect(page).toContain('confirmez votre identité avec votre mot de passe actuel');
    expect(page).toContain('Mot de passe actuel');
    // A refusal moves to the page's own address (decision 087), whose GET shows it: the cookies it set, not those it deleted.
    const shownAfter = async (answer: Response) => {
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/profile/phone');
      const set = answer.headers.getSetCookie().filter((line) => !/max-age=0|expires=thu, 01 jan 1970/i.test(line));
      const cookies = [headers.cookie, ...set.map((line) => line.split(';')[0])].join('; ');
      return htmlText(await (await fetch(`${t.url}/profile/phone`, { headers: { ...headers, cookie: cookies } })).text());
    };
    const bare = await shownAfter(await post({ action: 'send', phoneNumber: '07 22 33 44 55' }));
    expect(bare).toContain('confirmez votre identité avec votre mot de passe actuel');
    expect(bare).toContain('07 22 33 44 55');
    const wrong = await shownAfter(await post({ action: 'send', phoneNumber: '07 22 33 44 55', currentPassword: 'pas-le-bon-mot' }));
    expect(wrong).toContain('Mot de passe actuel incorrect');
    expect(wrong).not.toContain('pas-le-bon-mot');
    const right = await post({ action: 'send', phoneNumber: '07 22 33 44 55', currentPassword: DEMO_PASSWORD });
    expect(right.status).toBe(200);
    expect(htmlText(await right.text())).toContain('Un code à six chiffres vient d');
  });
});

describe('the profile screen, signed in by password more than five minutes ago', () => {
  it('asks the current password for an address already taken, and only then says it is taken', async () => {
    const b = browser(t.url);
    expect((await b.signIn('nathalie.garnier@demo.local')).status).toBe(303);
    const user = (await t.app.services.auth.findUserByEmail('nathalie.garnier@demo.local'))!;
    await t.database.db.execute(sql`update auth.grants set created_at = now() - interval '1 hour' where user_id = ${user.id}`);
    /** Posts the profile's form with an address taken; the refusal, as the page shows it again. */
    const post = async (fields: Record<string, string>) => {
      const answer = await b.request('/profile', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ displayName: 'Nathalie Garnier', email: 'admin@demo.local', ...fields }).toString(),
      });
      expect(answer.headers.get('location')).toBe('/profile');
      return htmlText(await (await b.request('/profile')).text());
    };
    const asked = await post({});
    expect(asked).toContain('confirmez votre identité avec votre mot de passe actuel');
    expect(asked).toContain('name="currentPassword"');
    expect(asked).not.toContain('Email non disponible');
    expect(asked).not.toContain('code de vérification ou votre clé');
    expect(await post({ currentPassword: DEMO_PASSWORD })).toContain('Email non disponible');
  });
});

describe('an account with neither password nor second factor', () => {
  it('takes a sign-in of the last five minutes as proof, then asks for a new one', async () => {
    await t.database.db.execute(sql`update auth.users set password_hash = null where email = 'commercial@demo.local'`);
    const token = await linkSignIn('commercial@demo.local');
    expect(await changes.email(token)).toMatchObject({ status: 200 });
    await t.database.db.execute(sql`update auth.grants set created_at = now() - interval '6 minutes' where method = 'signinPasswordless'`);
    expect(await changes.email(token)).toMatchObject({ status: 403, body: { error: 'elevated-claim-required' } });
    expect(await changes.email(await linkSignIn('commercial@demo.local'))).toMatchObject({ status: 200 });
  });
});

describe('a mechanic', () => {
  it('cannot change their own e-mail through the auth API, as GraphQL refuses it (SPEC §6)', async () => {
    const token = await passwordSignIn('mecanicien@demo.local');
    expect(await changes.email(token)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    const rows = await t.database.db.execute(sql`select new_email from auth.users where email = 'mecanicien@demo.local'`);
    expect((rows as unknown as { rows: { new_email: string | null }[] }).rows[0]!.new_email).toBeNull();
  });
});
