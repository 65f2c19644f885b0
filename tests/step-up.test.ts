// Step-up (issue 18, item 7): deleting a user, changing a role and creating a token need a
// proof of the second factor from the last five minutes, when the user has one; everyone
// else goes on as before.
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';
import type { GqlResult } from './kit/index.ts';

const codeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();

describe('step-up', () => {
  let t: TestApp;
  let api: string;
  let secret: string;
  let adminToken: string;
  const gql = (token: string, query: string, variables?: object): Promise<GqlResult> =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    }).then((r) => r.json() as Promise<GqlResult>);
  /** Moves the admin's last proof of the second factor six minutes back. */
  const age = () => t.database.db.execute(sql`update auth.grants set elevated_at = now() - interval '6 minutes' where elevated_at is not null`);
  const userId = async (email: string) => (await postJson(`${api}/signin/email-password`, { email, password: DEMO_PASSWORD })).body.session.user.id as string;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    api = `${t.url}/api/auth`;
    const first = await postJson(`${api}/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD });
    const headers = { authorization: `Bearer ${first.body.session.accessToken}` };
    secret = (await fetch(`${api}/mfa/totp/generate`, { headers }).then((r) => r.json() as Promise<{ totpSecret: string }>)).totpSecret;
    expect((await postJson(`${api}/user/mfa`, { code: codeOf(secret, -1), activeMfaType: 'totp' }, headers)).status).toBe(200);
    const { body } = await postJson(`${api}/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD });
    adminToken = (await postJson(`${api}/signin/mfa/totp`, { ticket: body.mfa.ticket, otp: codeOf(secret) })).body.session.accessToken;
  });
  afterAll(() => t?.close());

  it('lets a user without a second factor act as before', async () => {
    const { body } = await postJson(`${api}/signin/email-password`, { email: 'mecanicien@demo.local', password: DEMO_PASSWORD });
    const created = await postJson(`${api}/pat`, { expiresAt: tomorrow() }, { authorization: `Bearer ${body.session.accessToken}` });
    expect(created).toMatchObject({ status: 200, body: { personalAccessToken: expect.any(String) } });
  });

  it('takes the code of the sign-in as proof for five minutes, then asks again', async () => {
    const headers = { authorization: `Bearer ${adminToken}` };
    expect((await postJson(`${api}/pat`, { expiresAt: tomorrow() }, headers)).status).toBe(200);
    await age();
    const refused = await postJson(`${api}/pat`, { expiresAt: tomorrow() }, headers);
    expect(refused).toMatchObject({ status: 403, body: { error: 'elevated-claim-required' } });
    expect(refused.body.personalAccessToken).toBeUndefined();

    expect(await postJson(`${api}/elevate/totp`, { otp: '000000' }, headers)).toMatchObject({ status: 400, body: { error: 'invalid-totp' } });
    const elevated = await postJson(`${api}/elevate/totp`, { otp: codeOf(secret, 1) }, headers);
    expect(elevated.status).toBe(200);
    const claims = decodeJwt(elevated.body.session.accessToken)['https://hasura.io/jwt/claims'] as Record<string, string>;
    expect(claims['x-hasura-auth-elevated']).toBe(claims['x-hasura-user-id']);
    // The proof is the sign-in's: the token held before works too.
    expect((await postJson(`${api}/pat`, { expiresAt: tomorrow() }, headers)).status).toBe(200);
  });

  it('guards deleting, creating, enabling or disabling a user and changing a role, not renaming', async () => {
    const target = await userId('commercial@demo.local');
    await age();
    const renamed = await gql(adminToken, 'mutation($id: uuid!) { updateUser(pk_columns: { id: $id }, _set: { displayName: "Sophie L." }) { displayName } }', {
      id: target,
    });
    expect(renamed.errors).toBeUndefined();

    const role = 'mutation($id: uuid!) { updateUser(pk_columns: { id: $id }, _set: { defaultRole: "diagnostician" }) { defaultRole } }';
    const refusedRole = await gql(adminToken, role, { id: target });
    expect(refusedRole.errors?.[0]?.extensions).toMatchObject({ code: 'forbidden', reason: 'elevated-claim-required' });
    expect(refusedRole.errors?.[0]?.message).toContain('confirmez votre identité');
    const remove = 'mutation($id: uuid!) { deleteUser(id: $id) { id } }';
    const refusedDelete = await gql(adminToken, remove, { id: target });
    expect(refusedDelete.errors?.[0]?.extensions).toMatchObject({ code: 'forbidden', reason: 'elevated-claim-required' });
    const [still] = await queryRows<{ default_role: string }>(t.database.db, sql`select default_role from auth.users where id = ${target}`);
    expect(still?.default_role).toBe('commercial');

    // Each code is good once: this test's own.
    await t.database.db.execute(sql`update auth.users set totp_last_step = null`);
    expect((await postJson(`${api}/elevate/totp`, { otp: codeOf(secret) }, { authorization: `Bearer ${adminToken}` })).status).toBe(200);
    expect((await gql(adminToken, role, { id: target })).data?.updateUser).toEqual({ defaultRole: 'diagnostician' });
    await age();
    const insert = 'mutation { insertUser(object: { email: "nouvel.admin@demo.local", displayName: "Nouvel Admin", defaultRole: "app_admin" }) { id } }';
    expect((await gql(adminToken, insert)).errors?.[0]?.extensions).toMatchObject({ code: 'forbidden', reason: 'elevated-claim-required' });
    const disable = 'mutation($id: uuid!) { updateUser(pk_columns: { id: $id }, _set: { disabled: true }) { disabled } }';
    expect((await gql(adminToken, disable, { id: target })).errors?.[0]?.extensions).toMatchObject({ reason: 'elevated-claim-required' });
    await t.database.db.execute(sql`update auth.users set totp_last_step = null`);
    await postJson(`${api}/elevate/totp`, { otp: codeOf(secret) }, { authorization: `Bearer ${adminToken}` });
    expect((await gql(adminToken, remove, { id: target })).data?.deleteUser).toEqual({ id: target });
  });
});
