// The order of an auth route's refusals (issue 29 day-walk; decision 048): a malformed body is
// told first (400 invalid-request), before any session, token, role, proof or throttle answer;
// then a personal access token's sign-in is told it manages nothing (403 forbidden-pat), whatever
// its role; only then the role, then the proof.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';

let t: TestApp;
let api: string;
beforeAll(async () => {
  t = await startTestApp('pglite');
  api = `${t.url}/api/auth`;
});
afterAll(() => t?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const passwordSignIn = async (email: string) =>
  (await postJson(`${api}/signin/email-password`, { email, password: DEMO_PASSWORD })).body.session.accessToken as string;
async function patSignIn(email: string): Promise<string> {
  const created = await postJson(`${api}/pat`, { expiresAt: new Date(Date.now() + 86_400_000).toISOString() }, bearer(await passwordSignIn(email)));
  expect(created.status).toBe(200);
  return (await postJson(`${api}/signin/pat`, { personalAccessToken: created.body.personalAccessToken })).body.session.accessToken as string;
}
/** A body that is not JSON at all, declared as JSON. */
const notJson = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{otp:' }).then(async (res) => ({
    status: res.status,
    body: await res.json(),
  }));

describe('a personal access token of a mechanic', () => {
  it('is told it manages nothing before it is told its role may not', async () => {
    const token = await patSignIn('mecanicien@demo.local');
    expect(await postJson(`${api}/user/email/change`, { newEmail: 'nouvelle@demo.local' }, bearer(token))).toMatchObject({
      status: 403,
      body: { error: 'forbidden-pat' },
    });
    // The role's own refusal still stands for the mechanic's own sign-in.
    expect(
      await postJson(`${api}/user/email/change`, { newEmail: 'nouvelle@demo.local' }, bearer(await passwordSignIn('mecanicien@demo.local'))),
    ).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
  });
});

describe('a malformed body on a step-up or account route', () => {
  const malformed: [string, unknown][] = [
    ['/elevate/totp', {}],
    ['/elevate/totp', { otp: 123456 }],
    ['/elevate/totp', { code: '123456' }],
    ['/elevate/password', { password: DEMO_PASSWORD, extra: true }],
    ['/elevate/webauthn', { extra: true }],
    ['/elevate/webauthn/verify', { credential: 'nope' }],
    ['/user/mfa', { activeMfaType: 'totp' }],
    ['/user/webauthn/add', { extra: true }],
    ['/user/webauthn/verify', {}],
    ['/pat', { expiresAt: 'demain' }],
  ];

  it('answers 400 invalid-request without a session, with a dead token, and with a token sign-in', async () => {
    const pat = await patSignIn('commercial@demo.local');
    const callers: [string, Record<string, string>][] = [
      ['none', {}],
      ['dead', bearer('not-a-token')],
      ['pat', bearer(pat)],
    ];
    for (const [path, body] of malformed) {
      for (const [who, headers] of callers) {
        const answer = await postJson(`${api}${path}`, body, headers);
        expect({ path, body, who, status: answer.status, error: answer.body?.error }).toEqual({ path, body, who, status: 400, error: 'invalid-request' });
      }
    }
  });

  it('answers 400 invalid-request to a body that is not JSON, before the session or the throttle', async () => {
    const pat = await patSignIn('commercial@demo.local');
    for (const headers of [{}, bearer('not-a-token'), bearer(pat)]) {
      expect(await notJson('/elevate/totp', headers)).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
    }
    // A well-formed code from a token's sign-in: now the token is told.
    expect(await postJson(`${api}/elevate/totp`, { otp: '123456' }, bearer(pat))).toMatchObject({ status: 403, body: { error: 'forbidden-pat' } });
  });
});

describe('the same order through GraphQL and on the authenticator app', () => {
  type Answer = { data?: unknown; errors?: { message: string; extensions?: { code?: string; reason?: string } }[] };
  const gql = (token: string, query: string, variables: object) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify({ query, variables }),
    }).then((r) => r.json() as Promise<Answer>);
  const idOf = async (email: string) => (await t.app.services.auth.findUserByEmail(email))!.id;
  /** The refusal's extensions, with its French message. */
  const changeEmail = async (token: string, email: string, newEmail: string) => {
    const [error] =
      (
        await gql(token, 'mutation($id: uuid!, $email: String!) { updateUser(pk_columns: { id: $id }, _set: { email: $email }) { email } }', {
          id: await idOf(email),
          email: newEmail,
        })
      ).errors ?? [];
    return error && { ...error.extensions, message: error.message };
  };

  it("tells a mechanic's token it manages nothing before its role may not change its address", async () => {
    const token = await patSignIn('mecanicien@demo.local');
    expect(await changeEmail(token, 'mecanicien@demo.local', 'nouvelle@demo.local')).toMatchObject({ code: 'forbidden', reason: 'forbidden-pat' });
  });

  it('never tells a token, nor an unproved sign-in, whether an address has an account', async () => {
    const token = await patSignIn('commercial@demo.local');
    expect(await changeEmail(token, 'commercial@demo.local', 'admin@demo.local')).toMatchObject({ code: 'forbidden', reason: 'forbidden-pat' });
    // A password sign-in older than the proof's few minutes: the proof is asked for first.
    const stale = await passwordSignIn('commercial@demo.local');
    await t.database.db.execute(
      sql`update auth.grants set created_at = now() - interval '1 hour' where user_id = ${await idOf('commercial@demo.local')} and method = 'password'`,
    );
    // Asked in the words of what this account has: its password, not a code or key it lacks.
    expect(await changeEmail(stale, 'commercial@demo.local', 'admin@demo.local')).toMatchObject({
      reason: 'elevated-claim-required',
      proof: 'password',
      message: 'Pour cette modification, confirmez votre identité avec votre mot de passe actuel.',
    });
  });

  it("tells a token it manages nothing before saying the account's app is already active", async () => {
    const email = 'diagnostic@demo.local';
    const token = await patSignIn(email);
    await t.database.db.execute(sql`update auth.users set active_mfa_type = 'totp' where email = ${email}`);
    try {
      const res = await fetch(`${api}/mfa/totp/generate`, { headers: bearer(token) });
      expect({ status: res.status, body: await res.json() }).toMatchObject({ status: 403, body: { error: 'forbidden-pat' } });
    } finally {
      await t.database.db.execute(sql`update auth.users set active_mfa_type = null where email = ${email}`);
    }
  });
});
