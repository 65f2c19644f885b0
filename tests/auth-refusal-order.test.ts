// The order of an auth route's refusals (issue 29 day-walk; decision 048): a malformed body is
// told first (400 invalid-request), before any session, token, role, proof or throttle answer;
// then a personal access token's sign-in is told it manages nothing (403 forbidden-pat), whatever
// its role; only then the role, then the proof.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/db/seed.ts';
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
