// Personal access tokens over HTTP (hasura-auth's /pat and /signin/pat): what a script sends
// when it is wrong, late or hostile gets the documented error, never a session.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';

let t: TestApp;
let api: string;
let bearer: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp('pglite');
  api = `${t.url}/api/auth`;
  const signedIn = await postJson(`${api}/signin/email-password`, { email: 'mecanicien@demo.local', password: DEMO_PASSWORD });
  bearer = { authorization: `Bearer ${signedIn.body.session.accessToken}` };
});
afterAll(() => t?.close());

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();
const create = async (body: unknown, headers = bearer) => postJson(`${api}/pat`, body, headers);
const signIn = async (personalAccessToken: unknown) => postJson(`${api}/signin/pat`, { personalAccessToken });

describe('POST /pat', () => {
  it('needs a signed-in user', async () => {
    expect(await create({ expiresAt: tomorrow() }, {})).toMatchObject({ status: 401, body: { error: 'unauthenticated-user' } });
    expect(await create({ expiresAt: tomorrow() }, { authorization: 'Bearer nope' })).toMatchObject({ status: 401 });
  });

  it('refuses an expiry that is past, missing or not a date, and metadata it cannot keep', async () => {
    expect(await create({ expiresAt: new Date(Date.now() - 1000).toISOString() })).toMatchObject({ status: 400, body: { error: 'invalid-expiry' } });
    expect(await create({})).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
    expect(await create({ expiresAt: 'demain' })).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
    expect(await create({ expiresAt: tomorrow(), metadata: { nested: { a: 1 } } })).toMatchObject({ status: 400 });
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    expect(await create({ expiresAt: tomorrow(), metadata: many })).toMatchObject({ status: 400 });
    expect(await create({ expiresAt: tomorrow(), role: 'app_admin' })).toMatchObject({ status: 400, body: { error: 'invalid-request' } });
  });
});

describe('POST /signin/pat', () => {
  it('opens a sign-in as the token user, of its own, each time', async () => {
    const { body } = await create({ expiresAt: tomorrow() });
    const first = await signIn(body.personalAccessToken);
    const second = await signIn(body.personalAccessToken);
    expect(first).toMatchObject({ status: 200, body: { session: { user: { email: 'mecanicien@demo.local' } }, mfa: null } });
    expect(second.body.session.refreshToken).not.toBe(first.body.session.refreshToken);
    const grants = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from auth.grants where method = 'pat'`);
    expect(grants[0]!.n).toBeGreaterThanOrEqual(2);
  });

  it('refuses an unknown, malformed or expired token with invalid-pat, and a disabled user', async () => {
    expect(await signIn('x'.repeat(43))).toMatchObject({ status: 401, body: { error: 'invalid-pat' } });
    expect(await signIn('')).toMatchObject({ status: 400 });
    expect(await signIn(42)).toMatchObject({ status: 400 });

    const expired = (await create({ expiresAt: new Date(Date.now() + 60_000).toISOString() })).body;
    await t.database.db.execute(sql`update auth.personal_access_tokens set expires_at = now() - interval '1 second' where id = ${expired.id}`);
    expect(await signIn(expired.personalAccessToken)).toMatchObject({ status: 401, body: { error: 'invalid-pat' } });

    const revoked = (await create({ expiresAt: tomorrow() })).body;
    await t.database.db.execute(sql`update auth.personal_access_tokens set revoked_at = now() where id = ${revoked.id}`);
    expect(await signIn(revoked.personalAccessToken)).toMatchObject({ status: 401, body: { error: 'invalid-pat' } });

    const held = (await create({ expiresAt: tomorrow() })).body;
    await t.database.db.execute(sql`update auth.users set disabled = true where email = 'mecanicien@demo.local'`);
    try {
      expect(await signIn(held.personalAccessToken)).toMatchObject({ status: 401, body: { error: 'disabled-user' } });
    } finally {
      await t.database.db.execute(sql`update auth.users set disabled = false where email = 'mecanicien@demo.local'`);
    }
  });

  it('slows down an address that keeps guessing', async () => {
    let last = await signIn('guess-0'.padEnd(43, 'x'));
    for (let i = 1; i < 30 && last.status !== 429; i++) last = await signIn(`guess-${i}`.padEnd(43, 'x'));
    expect(last).toMatchObject({ status: 429, body: { error: 'too-many-requests' } });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
