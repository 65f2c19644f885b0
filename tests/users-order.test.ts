// walk12 F11: the users are listed in the alphabet's order, accents and case aside («Élodie»
// beside «eric», not after «Zoé» as bytes would have it), on every database the app runs on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, graphqlAs, ok, signInAll } from './kit/index.ts';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';

const USERS = `query($w: users_bool_exp!) { users(where: $w, order_by: [{ displayName: asc }]) { displayName } }`;

describe.each(databaseKinds)('the users in alphabetical order on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  it('sorts names as a French reader does, not by their bytes', async () => {
    for (const displayName of ['Zoé Tri', 'Émile Tri', 'Thomas Tri', 'eric Tri', 'Élodie Tri', 'alice Tri']) await createUser(gql.app_admin, { displayName });
    const { users } = ok(await gql('app_admin', USERS, { w: { displayName: { _ilike: '% Tri' } } })) as { users: { displayName: string }[] };
    expect(users.map((u) => u.displayName)).toEqual(['alice Tri', 'Élodie Tri', 'Émile Tri', 'eric Tri', 'Thomas Tri', 'Zoé Tri']);
  });
});
