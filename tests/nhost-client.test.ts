// Nhost's own client library, unchanged, against our auth service.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { databaseKinds, startTestApp, verifyLink, type TestApp, authClient } from './support/app.ts';

describe.each(databaseKinds)('@nhost/hasura-auth-js on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(() => t?.close());

  it('signs in, reads claims, refreshes, changes the password, resets it by e-mail and signs out', async () => {
    let auth = authClient(t.url);
    const signedIn = await auth.signIn({ email: 'mecanicien@demo.local', password: DEMO_PASSWORD });
    expect(signedIn.error).toBeNull();
    expect(auth.isAuthenticated()).toBe(true);
    expect(auth.getUser()).toMatchObject({ email: 'mecanicien@demo.local', displayName: 'Karim Benali', defaultRole: 'mechanic' });
    expect(auth.getHasuraClaim('default-role')).toBe('mechanic');
    expect(auth.getHasuraClaims()).toMatchObject({ 'x-hasura-allowed-roles': ['mechanic'], 'x-hasura-user-id': auth.getUser()!.id });

    const firstRefreshToken = signedIn.session!.refreshToken!;
    const refreshed = await auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.session!.refreshToken).not.toBe(firstRefreshToken);
    expect(auth.getAccessToken()).toBe(refreshed.session!.accessToken);

    // The old token is honoured inside the grace window, refused after it.
    await t.database.db.execute(sql`update auth.refresh_tokens set rotated_at = now() - interval '11 seconds' where rotated_at is not null`);
    const other = authClient(t.url);
    const replay = await other.refreshSession(firstRefreshToken);
    // The client reports any refused refresh with its own code.
    expect(replay).toMatchObject({ session: null, error: { error: 'invalid-refresh-token' } });

    // The reuse ended that sign-in at once: its access token is refused too.
    expect((await auth.changePassword({ newPassword: 'Boite-Auto-2026!' })).error).toMatchObject({ status: 401 });
    auth = authClient(t.url);
    expect((await auth.signIn({ email: 'mecanicien@demo.local', password: DEMO_PASSWORD })).error).toBeNull();
    // A fresh sign-in proves the user for a password change (hasura-auth's body has no current password).
    const changed = await auth.changePassword({ newPassword: 'Boite-Auto-2026!' });
    expect(changed.error).toBeNull();
    const withNew = authClient(t.url);
    expect((await withNew.signIn({ email: 'mecanicien@demo.local', password: 'Boite-Auto-2026!' })).error).toBeNull();
    await withNew.signOut();

    const reset = await auth.resetPassword({ email: 'mecanicien@demo.local' });
    expect(reset.error).toBeNull();
    const landing = await fetch(verifyLink((await t.outbox()).at(-1)!), { redirect: 'manual' });
    const location = new URL(landing.headers.get('location')!);
    expect(location.pathname).toBe('/set-password');
    expect(location.searchParams.get('type')).toBe('passwordReset');
    const fromLink = authClient(t.url);
    const linked = await fromLink.refreshSession(location.searchParams.get('refreshToken')!);
    expect(linked.error).toBeNull();
    expect(fromLink.getUser()?.email).toBe('mecanicien@demo.local');
    expect((await fromLink.changePassword({ newPassword: 'Apres-Reset-2026!' })).error).toBeNull();
    expect((await authClient(t.url).signIn({ email: 'mecanicien@demo.local', password: 'Apres-Reset-2026!' })).error).toBeNull();

    const lastRefreshToken = auth.getSession()!.refreshToken!;
    await auth.signOut();
    expect(auth.isAuthenticated()).toBe(false);
    expect(await authClient(t.url).refreshSession(lastRefreshToken)).toMatchObject({ session: null, error: { error: 'invalid-refresh-token' } });
  });

  it('creates a personal access token, signs in with it as its user, and reads the API with that session', async () => {
    const owner = authClient(t.url);
    expect((await owner.signIn({ email: 'diagnostic@demo.local', password: DEMO_PASSWORD })).error).toBeNull();
    const created = await owner.createPAT(new Date(Date.now() + 86_400_000), { script: 'export-stock' });
    expect(created.error).toBeNull();
    const pat = created.data!.personalAccessToken!;
    expect(pat).toMatch(/^[\w-]{40,}$/);

    const script = authClient(t.url);
    const signedIn = await script.signInPAT(pat);
    expect(signedIn.error).toBeNull();
    expect(script.getUser()).toMatchObject({ email: 'diagnostic@demo.local', defaultRole: 'diagnostician' });
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${script.getAccessToken()}` },
      body: JSON.stringify({ query: '{ gearboxModelsAggregate { aggregate { count } } }' }),
    });
    expect((await res.json()).data.gearboxModelsAggregate.aggregate.count).toBeGreaterThan(0);
    // Stored hashed, with its metadata, and used.
    const [row] = await queryRows<{ token_hash: string; metadata: unknown; last_used_at: Date | null }>(
      t.database.db,
      sql`select token_hash, metadata, last_used_at from auth.personal_access_tokens where id = ${created.data!.id}`,
    );
    expect(row).toMatchObject({ metadata: { script: 'export-stock' } });
    expect(row!.token_hash).not.toContain(pat);
    expect(row!.last_used_at).not.toBeNull();
  });

  it("refuses a weak password at sign-up in hasura-auth's words, as every other refusal (SPEC §8)", async () => {
    const auth = authClient(t.url);
    const weak = await auth.signUp({ email: `faible-${kind}@garage.fr`, password: 'motdepasse' });
    expect(weak.session).toBeNull();
    // The code says which rule; the screens say it in French from the catalogue.
    expect(weak.error).toMatchObject({ status: 400, error: 'invalid-password', message: 'Password is incorrectly formatted' });
    // As the other refusals of the same call are.
    const taken = await auth.signUp({ email: 'admin@demo.local', password: 'Inscription-2026!' });
    expect(taken.error).toMatchObject({ status: 409, error: 'email-already-in-use', message: 'Email already in use' });
  });

  it('reports a wrong password with the hasura-auth error', async () => {
    const result = await authClient(t.url).signIn({ email: 'admin@demo.local', password: 'Mauvais-Passe-1!' });
    expect(result.session).toBeNull();
    expect(result.error).toMatchObject({ status: 401, error: 'invalid-email-password' });
  });
});
