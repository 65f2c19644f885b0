// The signed session as the built pages serve it: cookie, refresh, guard, refusals.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { startTestApp, viewerOf, type TestApp } from './support/app.ts';
import { browser } from './support/browser.ts';

describe('the signed session', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Two-second access tokens: the refresh margin is one second.
    t = await startTestApp('pglite', { pages: true, accessTokenExpiresIn: 2 });
  });
  afterAll(() => t?.close());

  it('signs in without JavaScript into an HttpOnly, SameSite=Lax cookie', async () => {
    const b = browser(t.url);
    const res = await b.signIn('commercial@demo.local');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/repair-orders');
    const cookie = b.setCookies.find((c) => c.startsWith('atelier_session='))!;
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Secure/i);
    expect(cookie).not.toContain(DEMO_PASSWORD);
    const page = await b.request('/repair-orders');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sophie Laurent');
  });

  it('stays home after sign-in and from an e-mail link, whatever redirectTo says', async () => {
    for (const [target, landing] of [
      ['/stock?onglet=historique', '/stock?onglet=historique'],
      ['/.//evil.example', '/repair-orders'],
      ['/\\evil.example', '/repair-orders'],
      ['https://evil.example/stock', '/repair-orders'],
    ]) {
      const b = browser(t.url);
      const res = await b.request(`/sign-in?redirectTo=${encodeURIComponent(target!)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'commercial@demo.local', password: DEMO_PASSWORD }).toString(),
      });
      expect(res.headers.get('location'), target).toBe(landing);
    }
    const link = await fetch(`${t.url}//evil.example/?error=x&errorDescription=y`, { redirect: 'manual' });
    // A landing URL that is not one of ours never becomes a protocol-relative Location.
    expect(link.headers.get('location')).toMatch(/^\/[a-z]/);
  });

  it('answers a wrong password with a 303 to the page, which says the French message', async () => {
    const b = browser(t.url);
    const res = await b.signIn('commercial@demo.local', 'mauvais');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
    expect(await (await b.request('/sign-in')).text()).toContain('Identifiant ou mot de passe incorrect');
  });

  it('keeps one cookie per sign-in and mints a fresh short access token from it', async () => {
    const b = browser(t.url);
    await b.signIn('diagnostic@demo.local');
    const cookie = b.jar.get('atelier_session');
    await new Promise((r) => setTimeout(r, 2_200));
    // Past the token's lifetime, concurrent pages pass without a rotation to race on.
    const pages = await Promise.all(Array.from({ length: 4 }, () => b.request('/gearboxes')));
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200]);
    expect(b.jar.get('atelier_session')).toBe(cookie);
    const { accessToken, expiresAt } = await (await b.request('/api/session/token')).json();
    expect(await t.app.services.auth.issuer.verify(accessToken)).toMatchObject({ defaultRole: 'diagnostician' });
    expect(expiresAt - Date.now()).toBeGreaterThan(1_000);
    const [row] = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from auth.refresh_tokens r join auth.grants g on g.id = r.grant_id join auth.users u on u.id = g.user_id where u.email = 'diagnostic@demo.local' and g.revoked_at is null`,
    );
    expect(row!.n).toBe(1);
  });

  it('signs out a browser whose sign-in was revoked, a disabled user and a deleted one', async () => {
    const revoked = browser(t.url);
    await revoked.signIn('admin@demo.local');
    await t.database.db.execute(sql`update auth.grants set revoked_at = now() where user_id = (select id from auth.users where email = 'admin@demo.local')`);
    const res = await revoked.request('/repair-orders');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/sign-in?redirectTo=%2Frepair-orders');
    expect(revoked.jar.has('atelier_session')).toBe(false);

    const disabled = browser(t.url);
    await disabled.signIn('mecanicien@demo.local');
    await t.database.db.execute(sql`update auth.users set disabled = true where email = 'mecanicien@demo.local'`);
    expect((await disabled.request('/repair-orders')).headers.get('location')).toMatch(/^\/sign-in/);
    expect(disabled.jar.has('atelier_session')).toBe(false);
    await t.database.db.execute(sql`update auth.users set disabled = false where email = 'mecanicien@demo.local'`);

    const deleted = browser(t.url);
    await deleted.signIn('mecanicien@demo.local');
    await t.database.db.execute(sql`delete from auth.users where email = 'mecanicien@demo.local'`);
    expect((await deleted.request('/gearboxes')).headers.get('location')).toMatch(/^\/sign-in/);
  });

  it('refuses state changes from another origin with a French page, forms and JSON alike', async () => {
    const b = browser(t.url);
    await b.signIn('commercial@demo.local');
    const form = await b.request('/sign-out', { method: 'POST', origin: 'https://evil.example' });
    expect(form.status).toBe(403);
    expect(await form.text()).toContain("Requête refusée : elle ne vient pas de l'application.");
    const json = await b.request('/api/session/password', {
      method: 'POST',
      origin: 'https://evil.example',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'Pirate-Passe-1!' }),
    });
    expect(json.status).toBe(403);
    expect((await b.request('/repair-orders')).status).toBe(200);
  });

  it('answers a page posted something else than its form with a French 415, not a 500', async () => {
    const b = browser(t.url);
    await b.signIn('diagnostic@demo.local');
    for (const body of [JSON.stringify({ number: 'X' }), '\u0000\u0001']) {
      const res = await b.request('/repair-order', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(415);
      expect(await res.text()).toContain("Requête refusée : cette page n'accepte que ses propres formulaires.");
    }
    const none = await b.request('/repair-orders?action=supprimer', { method: 'POST' });
    expect(none.status).toBe(415);
    // A form over its size is refused before it is read.
    const huge = await b.request('/repair-order', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `number=${'x'.repeat(2 * 1024 * 1024)}`,
    });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain('le formulaire envoyé dépasse 1 Mo');
    // A chunked form declares no size: refused before it is read, whatever it would have carried.
    const chunked = await b.request('/repair-order', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('number=OR-1'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(411);
    expect(await chunked.text()).toContain('Requête refusée : le formulaire envoyé ne déclare pas sa taille.');
  });

  it('answers the password endpoint with 400 and 415 for bad input, and changes nothing', async () => {
    const b = browser(t.url);
    await b.signIn('commercial@demo.local');
    const post = (body: string, type = 'application/json') => b.request('/api/session/password', { method: 'POST', headers: { 'content-type': type }, body });
    expect((await post('{"password":')).status).toBe(400);
    expect((await post('password=x', 'application/x-www-form-urlencoded')).status).toBe(415);
    const weak = await post(JSON.stringify({ currentPassword: DEMO_PASSWORD, password: 'faible', confirmation: 'faible' }));
    expect(await weak.json()).toEqual({
      status: 400,
      error: 'validation',
      message: 'Invalid input',
      fields: { password: 'Minimum 8 caractères, au moins une majuscule, au moins un chiffre, au moins un caractère spécial' },
    });
    const good = { currentPassword: DEMO_PASSWORD, password: 'Bonne-Passe-2027!', confirmation: 'Bonne-Passe-2027!' };
    expect((await post(JSON.stringify({ ...good, role: 'app_admin' }))).status).toBe(400);
    // Without the current password, or with a wrong one, nothing changes.
    const without = await post(JSON.stringify({ ...good, currentPassword: '' }));
    expect((await without.json()).fields).toEqual({ currentPassword: 'Champ obligatoire' });
    const wrong = await post(JSON.stringify({ ...good, currentPassword: 'Pas-Le-Bon-1!' }));
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).fields).toEqual({ currentPassword: 'Mot de passe actuel incorrect' });
    expect((await browser(t.url).signIn('commercial@demo.local')).status).toBe(303);
  });

  it('takes a role changed by an admin into the next page and token', async () => {
    const b = browser(t.url);
    await b.signIn('diagnostic@demo.local');
    expect((await b.request('/symptoms-conditions-base')).status).toBe(200);
    const users = t.app.services.forViewer(await viewerOf(t, 'admin@demo.local')).users;
    const user = (await users.list({ where: { email: { _eq: 'diagnostic@demo.local' } } }))[0]!;
    await users.update(user.id, { defaultRole: 'commercial' });
    try {
      expect((await b.request('/symptoms-conditions-base')).headers.get('location')).toBe('/repair-orders');
      const { accessToken } = await (await b.request('/api/session/token')).json();
      expect(await t.app.services.auth.issuer.verify(accessToken)).toMatchObject({ defaultRole: 'commercial' });
    } finally {
      await users.update(user.id, { defaultRole: 'diagnostician' });
    }
  });

  it('hands islands a short-lived access token, never the refresh token', async () => {
    const b = browser(t.url);
    expect((await b.request('/api/session/token')).status).toBe(401);
    await b.signIn('commercial@demo.local');
    const res = await b.request('/api/session/token');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresAt']);
    expect(await t.app.services.auth.issuer.verify(body.accessToken)).toMatchObject({ defaultRole: 'commercial' });
  });

  it('lands an e-mail link signed in on a URL without its token', async () => {
    const b = browser(t.url);
    await t.app.services.auth.requestPasswordReset('commercial@demo.local', undefined, { ip: '127.0.0.1' });
    const link = (await t.outbox())
      .at(-1)!
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=')
      .match(/http:\/\/\S+\/api\/auth\/verify\?[^\s"<]+/)![0]
      .replace(/&amp;/g, '&');
    const verify = await b.request(link.slice(t.url.length));
    const landing = verify.headers.get('location')!;
    expect(landing).toContain('refreshToken=');
    // The link names its account; the user confirms by a same-origin form (decision 052).
    const confirm = await b.request(landing.slice(t.url.length));
    expect(await confirm.text()).toContain('Continuer en tant que Sophie Laurent');
    const query = new URL(landing).searchParams;
    const signedIn = await b.request('/sign-in/continue', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ refreshToken: query.get('refreshToken')!, to: '/set-password?type=passwordReset', type: query.get('type')! }).toString(),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/set-password?type=passwordReset');
    const page = await b.request('/set-password?type=passwordReset');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Nouveau mot de passe');
  });
});

describe('behind https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true, publicUrl: 'https://atelier.example' });
  });
  afterAll(() => t?.close());

  it('names the cookie __Host- and marks it Secure', async () => {
    const b = browser(t.url);
    const res = await b.request('/sign-in', {
      method: 'POST',
      origin: 'https://atelier.example',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'admin@demo.local', password: DEMO_PASSWORD }).toString(),
    });
    expect(res.status).toBe(303);
    const cookie = b.setCookies.find((c) => c.startsWith('__Host-atelier_session='))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
  });
});
