// No session from a URL alone (issue 29, item 5; decision 052): a `refreshToken` in a page's
// address opens a session only as the end of a flow this browser started (the provider's
// binding cookie), or once the user confirms the account by a same-origin form.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { landingBindingOf, LANDING_COOKIE } from '#lib/auth/landing-binding.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { startTestApp, verifyLink, type TestApp } from './support/app.ts';
import { browser, htmlText } from './support/browser.ts';

describe('a refreshToken in a landing URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
  });
  afterAll(() => t?.close());

  /** A refresh token of `email`'s, as an attacker who signed in to their own account holds one. */
  const tokenOf = async (email: string) => {
    const { session } = await t.app.services.auth.signInEmailPassword(email, DEMO_PASSWORD, { ip: '203.0.113.9' });
    return session!.refreshToken;
  };
  const hasSession = (b: ReturnType<typeof browser>) => [...b.jar.keys()].some((name) => name.includes('atelier_session'));

  it("never signs a fresh browser into the token's account by itself", async () => {
    const token = await tokenOf('commercial@demo.local');
    const victim = browser(t.url);
    const res = await victim.request(`/repair-orders?refreshToken=${encodeURIComponent(token)}`);
    expect(hasSession(victim)).toBe(false);
    expect(res.status).toBe(200);
    const page = htmlText(await res.text());
    expect(page).toContain('Continuer en tant que Sophie Laurent ?');
    expect(page).toContain("Ce lien n'a pas été demandé depuis ce navigateur.");
    // Still signed out.
    expect((await victim.request('/repair-orders')).headers.get('location')).toMatch(/^\/sign-in/);
  });

  it('refuses the confirmation posted from another site', async () => {
    const token = await tokenOf('commercial@demo.local');
    const victim = browser(t.url);
    const res = await victim.request('/sign-in/continue', {
      method: 'POST',
      origin: 'https://evil.example',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ refreshToken: token, to: '/repair-orders', type: '' }).toString(),
    });
    expect(res.status).toBe(403);
    expect(hasSession(victim)).toBe(false);
    expect((await victim.request('/sign-in/continue')).headers.get('location')).toBe('/sign-in');
  });

  it('signs in once the user confirms, and lands on a clean address with the link toast', async () => {
    const token = await tokenOf('commercial@demo.local');
    const b = browser(t.url);
    await b.request(`/stock?onglet=historique&type=emailVerify&refreshToken=${encodeURIComponent(token)}`);
    expect(hasSession(b)).toBe(false);
    const res = await b.request('/sign-in/continue', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ refreshToken: token, to: '/stock?onglet=historique', type: 'emailVerify' }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/stock?onglet=historique');
    expect(hasSession(b)).toBe(true);
    const page = htmlText(await (await b.request('/stock?onglet=historique')).text());
    expect(page).toContain('Adresse e-mail vérifiée');
    expect(page).toContain('Sophie Laurent');
  });

  it('keeps the confirmation to our own pages and refuses a used token', async () => {
    const token = await tokenOf('commercial@demo.local');
    const b = browser(t.url);
    const post = (to: string) =>
      b.request('/sign-in/continue', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ refreshToken: token, to, type: '' }).toString(),
      });
    expect((await post('//evil.example/')).headers.get('location')).toBe('/repair-orders');
    const other = browser(t.url);
    const landing = await other.request(`/repair-orders?refreshToken=${encodeURIComponent(token)}`);
    // The token turned into the first browser's session: the link is spent.
    expect(landing.headers.get('location')).toBe('/sign-in');
    expect(hasSession(other)).toBe(false);
  });

  // Declining must end the link: its address stays in the browser's history (a shared terminal).
  it('declines by a same-origin post that ends the link, so the address reopened opens nothing', async () => {
    const token = await tokenOf('commercial@demo.local');
    const b = browser(t.url);
    const page = await (await b.request(`/repair-orders?refreshToken=${encodeURIComponent(token)}`)).text();
    expect(page).toMatch(/<button type="submit" name="decline" value="1"[^>]*>Annuler<\/button>/);
    const decline = (origin?: string) =>
      b.request('/sign-in/continue', {
        method: 'POST',
        ...(origin ? { origin } : {}),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ refreshToken: token, to: '/repair-orders', type: '', decline: '1' }).toString(),
      });
    expect((await decline('https://evil.example')).status).toBe(403);
    expect(await t.app.services.auth.whoseRefreshToken(token)).not.toBeNull();
    const res = await decline();
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
    expect(hasSession(b)).toBe(false);
    expect(htmlText(await (await b.request('/sign-in')).text())).toContain("Aucune session n'a été ouverte : ce lien ne peut plus servir.");
    // Reopened from the history, on this browser or another: the link is spent.
    const again = await browser(t.url).request(`/repair-orders?refreshToken=${encodeURIComponent(token)}`);
    expect(again.headers.get('location')).toBe('/sign-in');
    expect(await t.app.services.auth.whoseRefreshToken(token)).toBeNull();
  });

  it('never ends, by a decline, the session a link already opened', async () => {
    const token = await tokenOf('commercial@demo.local');
    const b = browser(t.url);
    const form = (fields: Record<string, string>) =>
      b.request('/sign-in/continue', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ refreshToken: token, to: '/stock', type: '', ...fields }).toString(),
      });
    expect((await form({})).headers.get('location')).toBe('/stock');
    // A stale confirmation page of the same link, declined afterwards elsewhere.
    const other = browser(t.url);
    expect(
      (
        await other.request('/sign-in/continue', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ refreshToken: token, to: '/stock', type: '', decline: '1' }).toString(),
        })
      ).headers.get('location'),
    ).toBe('/sign-in');
    expect((await b.request('/stock')).status).toBe(200);
  });

  it('asks nothing of a browser signed in as the same account already', async () => {
    const b = browser(t.url);
    await b.signIn('commercial@demo.local');
    const token = await tokenOf('commercial@demo.local');
    const res = await b.request(`/profile?type=emailConfirmChange&refreshToken=${encodeURIComponent(token)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/profile');
    // Signed in as another account: the link's account is named and asked for.
    const other = browser(t.url);
    await other.signIn('admin@demo.local');
    const asked = await other.request(`/profile?refreshToken=${encodeURIComponent(await tokenOf('commercial@demo.local'))}`);
    expect(htmlText(await asked.text())).toContain('Continuer en tant que Sophie Laurent ?');
  });

  it('signs in at once at the end of a flow this browser started (its binding cookie)', async () => {
    const token = await tokenOf('commercial@demo.local');
    const b = browser(t.url);
    b.jar.set(LANDING_COOKIE, landingBindingOf('another token'));
    await b.request(`/repair-orders?refreshToken=${encodeURIComponent(token)}`);
    expect(hasSession(b)).toBe(false);
    b.jar.set(LANDING_COOKIE, landingBindingOf(token));
    const res = await b.request(`/repair-orders?refreshToken=${encodeURIComponent(token)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/repair-orders');
    expect(hasSession(b)).toBe(true);
    expect(b.jar.has(LANDING_COOKIE)).toBe(false);
  });
  it("signs in at once when this browser asked for that account's link, and only that account's", async () => {
    const b = browser(t.url);
    const asked = await b.request('/sign-in?view=forgot-password', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'Commercial@demo.local' }).toString(),
    });
    expect(asked.status).toBe(200);
    // Another account's token in this browser still names its account and waits.
    const foreign = await b.request(`/repair-orders?refreshToken=${encodeURIComponent(await tokenOf('admin@demo.local'))}`);
    expect(htmlText(await foreign.text())).toContain("Ce lien n'a pas été demandé depuis ce navigateur.");
    expect(hasSession(b)).toBe(false);
    const res = await b.request(`/repair-orders?refreshToken=${encodeURIComponent(await tokenOf('commercial@demo.local'))}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/repair-orders');
    expect(hasSession(b)).toBe(true);
  });

  it("names no account for a disabled user's token, an expired or an idle one", async () => {
    const names = async (token: string) => {
      const b = browser(t.url);
      const res = await b.request(`/repair-orders?refreshToken=${encodeURIComponent(token)}`);
      return res.status === 200 && htmlText(await res.text()).includes('Continuer en tant que');
    };
    const disabled = await tokenOf('mecanicien@demo.local');
    await t.database.db.execute(sql`update auth.users set disabled = true where email = 'mecanicien@demo.local'`);
    try {
      expect(await names(disabled)).toBe(false);
    } finally {
      await t.database.db.execute(sql`update auth.users set disabled = false where email = 'mecanicien@demo.local'`);
    }
    expect(await names(disabled)).toBe(true);
    const expired = await tokenOf('diagnostic@demo.local');
    await t.database.db.execute(
      sql`update auth.grants set expires_at = now() - interval '1 minute' where revoked_at is null and user_id = (select id from auth.users where email = 'diagnostic@demo.local')`,
    );
    expect(await names(expired)).toBe(false);
    const idle = await tokenOf('diagnostic@demo.local');
    await t.database.db.execute(
      sql`update auth.grants set last_used_at = now() - interval '60 days' where revoked_at is null and user_id = (select id from auth.users where email = 'diagnostic@demo.local')`,
    );
    expect(await names(idle)).toBe(false);
  });

  // The link has done its work before the page shows: an address confirmed stays confirmed,
  // so the page says so first, and only the session waits for the tap.
  it('says an address confirmed by a link opened elsewhere is confirmed, and offers no «Annuler»', async () => {
    const landingOf = async (to: string) => {
      const mail = (await t.outbox()).findLast((m) => m.includes(`To: ${to}`))!;
      const b = browser(t.url);
      const res = await b.request(verifyLink(mail).slice(t.url.length));
      const page = await b.request(res.headers.get('location')!.replace(t.url, ''));
      expect(page.status).toBe(200);
      expect(hasSession(b)).toBe(false);
      return htmlText(await page.text());
    };
    const user = (await t.app.services.auth.findUserByEmail('commercial@demo.local'))!;
    await t.app.services.auth.changeEmail(user.id, 'sophie.laurent@garage.fr', undefined, { ip: '127.0.0.1' });
    const changed = await landingOf('sophie.laurent@garage.fr');
    expect(changed).toMatch(/<h1[^>]*>Adresse e-mail modifiée<\/h1>/);
    expect(changed).toContain('Adresse confirmée : sophie.laurent@garage.fr.');
    expect(changed.indexOf('Adresse confirmée')).toBeLessThan(changed.indexOf('Continuer en tant que Sophie Laurent ?'));
    expect(changed).not.toContain('Annuler');
    expect(changed).toContain('Ne pas ouvrir de session');
    expect((await t.app.services.auth.findUserById(user.id))!.email).toBe('sophie.laurent@garage.fr');

    const admin = (await t.app.services.auth.findUserByEmail('admin@demo.local'))!;
    await t.app.services.auth.resendAccountEmail(admin.id);
    const verified = await landingOf('admin@demo.local');
    expect(verified).toMatch(/<h1[^>]*>Adresse e-mail vérifiée<\/h1>/);
    expect(verified).toContain('Adresse confirmée : admin@demo.local.');
    expect(verified).not.toContain('Annuler');

    // A sign-in link changed nothing yet: its page still offers «Annuler».
    const token = await tokenOf('diagnostic@demo.local');
    const plain = htmlText(await (await browser(t.url).request(`/repair-orders?type=signinPasswordless&refreshToken=${encodeURIComponent(token)}`)).text());
    expect(plain).toMatch(/<h1[^>]*>Continuer en tant que/);
    expect(plain).not.toContain('Adresse confirmée');
    expect(plain).toContain('Annuler');
  });
});
