// The account screens as a diagnostician walked them on 27 November (decision 064): a refused
// profile post is shown for the reload right after it, not on the next visit; a proof given
// elsewhere ends the request for it; the key's confirmation page says what to do and how to go
// back; a token's creation and the authenticator app's set-up answer their post with a 303, so a
// reload makes nothing twice; «Annuler» of the set-up forgets its secret.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { type browser, htmlText, signedInBrowser } from './support/browser.ts';
import { startTestApp, type TestApp } from './support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp('pglite', { pages: true });
});
afterAll(() => t?.close());

type Browser = ReturnType<typeof browser>;
/** A page opened as a browser opens it (a document). */
const open = async (b: Browser, path: string) => {
  const answer = await b.request(path, { headers: { accept: 'text/html', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' } });
  const html = htmlText(await answer.text());
  // What the page shows, without the profile menu's password dialog (its own «Mot de passe actuel»).
  return { status: answer.status, location: answer.headers.get('location'), html, main: html.slice(html.indexOf('<main')) };
};
const post = (b: Browser, path: string, fields: Record<string, string>) =>
  b.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

/** Signed in by password; `aged`: over five minutes ago, so a change of a way in asks a proof. */
const signedIn = (email: string, aged = true) => signedInBrowser(t, email, aged);

describe('a refused profile post', () => {
  const taken = { displayName: 'Nathalie Garnier', email: 'admin@demo.local', currentPassword: DEMO_PASSWORD };

  it('is shown on the page that answers it and on a reload, then gone once another page was opened («Annuler»)', async () => {
    const b = await signedIn('nathalie.garnier@demo.local');
    expect((await post(b, '/profile?retour=%2Fgearboxes', taken)).headers.get('location')).toBe('/profile?retour=%2Fgearboxes');
    const shown = await open(b, '/profile?retour=%2Fgearboxes');
    expect(shown.html).toContain('Email non disponible');
    // The field to fix takes the focus.
    expect(shown.html).toMatch(/<input[^>]*name="email"[^>]*autofocus|<input[^>]*autofocus[^>]*name="email"/);
    expect((await open(b, '/profile?retour=%2Fgearboxes')).html).toContain('Email non disponible');
    // An island's fetch or an image leaves it alone.
    await b.request('/api/session/token', { headers: { 'sec-fetch-dest': 'empty' } });
    expect((await open(b, '/profile?retour=%2Fgearboxes')).html).toContain('Email non disponible');
    // «Annuler» leads to /gearboxes: the profile opened again later is the account's.
    expect((await open(b, '/gearboxes')).status).toBe(200);
    const again = await open(b, '/profile');
    expect(again.html).not.toContain('Email non disponible');
    expect(again.html).not.toContain('value="admin@demo.local"');
  });

  it('is gone after signing out and in again', async () => {
    const b = await signedIn('nathalie.garnier@demo.local');
    await post(b, '/profile', taken);
    expect((await open(b, '/profile')).html).toContain('Email non disponible');
    const out = await post(b, '/sign-out', {});
    expect(out.headers.get('location')).toBe('/sign-in');
    await open(b, '/sign-in');
    expect((await b.signIn('nathalie.garnier@demo.local')).status).toBe(303);
    expect((await open(b, '/profile')).html).not.toContain('Email non disponible');
  });

  it('survives the detour to the key confirmation, which comes back to it', async () => {
    const b = await signedIn('nathalie.garnier@demo.local');
    await post(b, '/profile', taken);
    await open(b, '/profile/confirm?retour=%2Fprofile');
    expect((await open(b, '/profile')).html).toContain('Email non disponible');
  });
});

describe('a proof given elsewhere', () => {
  it('ends the request for it on the profile shown again: what was typed stays, the proof is no longer asked', async () => {
    const b = await signedIn('nathalie.garnier@demo.local');
    await post(b, '/profile', { displayName: 'Nathalie Garnier', email: 'nathalie.libre@demo.local' });
    const asked = await open(b, '/profile');
    expect(asked.html).toContain('confirmez votre identité avec votre mot de passe actuel');
    expect(asked.main).toContain('name="currentPassword"');
    // Proved meanwhile (a key on /profile/confirm, in another tab): the page asks nothing more.
    const user = (await t.app.services.auth.findUserByEmail('nathalie.garnier@demo.local'))!;
    await t.database.db.execute(sql`update auth.grants set elevated_at = now() where user_id = ${user.id}`);
    const proved = await open(b, '/profile');
    expect(proved.html).toContain('value="nathalie.libre@demo.local"');
    expect(proved.html).not.toContain('confirmez votre identité');
    expect(proved.main).not.toContain('name="currentPassword"');
  });

  it('says «Champ obligatoire» at the current password left empty', async () => {
    const b = await signedIn('nathalie.garnier@demo.local');
    await post(b, '/profile', { displayName: 'Nathalie Garnier', email: 'nathalie.vide@demo.local', currentPassword: '' });
    const shown = await open(b, '/profile');
    expect(shown.main).toMatch(/Champ obligatoire/);
    expect(shown.main).toMatch(/name="currentPassword"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="currentPassword"/);
  });

  it("«reconnectez-vous d'abord» offers «Se reconnecter», which signs out and comes back to the profile", async () => {
    const email = 'maxime.blanc@demo.local';
    const b = await signedIn(email);
    // An account with neither password nor second factor (signed in by a link or a code).
    await t.database.db.execute(sql`update auth.users set password_hash = null where email = ${email}`);
    await post(b, '/profile', { displayName: 'Maxime Blanc', email: 'maxime.libre@demo.local' });
    const asked = await open(b, '/profile');
    expect(asked.html).toContain("reconnectez-vous d'abord");
    expect(asked.html).toMatch(/formaction="\/sign-out\?redirectTo=%2Fprofile"[^>]*>\s*Se reconnecter/);
    const out = await post(b, '/sign-out?redirectTo=%2Fprofile', { displayName: 'Maxime Blanc', email: 'maxime.libre@demo.local' });
    expect(out.headers.get('location')).toBe('/sign-in?redirectTo=%2Fprofile');
    expect((await open(b, '/profile')).location).toMatch(/^\/sign-in/);
  });
});

describe('the key confirmation page of an account whose only factor is a key', () => {
  it('says what to do, gives a way back, and says without JavaScript that the key needs it', async () => {
    const email = 'alexandre.chevalier@demo.local';
    const user = (await t.app.services.auth.findUserByEmail(email))!;
    await t.database.db.execute(
      sql`insert into auth.user_security_keys (user_id, credential_id, credential_public_key, nickname) values (${user.id}, 'walk-key', 'cGs', 'Clé USB')`,
    );
    const b = await signedIn(email);
    const page = await open(b, '/profile/confirm?retour=%2Fprofile');
    expect(page.html).toContain('confirmez votre identité avec votre clé de sécurité');
    expect(page.html).toMatch(/<a href="\/profile" class="btn btn-secondary"[^>]*>\s*Annuler/);
    expect(page.html).toMatch(/data-elevate-needs-js[^>]*>\s*La confirmation par clé de sécurité demande JavaScript/);
  });
});

describe('a personal access token', () => {
  it('is created by a post answered with a 303, shown once by the GET: a reload creates no second one', async () => {
    const b = await signedIn('sebastien.fontaine@demo.local', false);
    const created = await post(b, '/profile/tokens', { name: 'Export atelier', days: '30' });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/profile/tokens');
    const shown = await open(b, '/profile/tokens');
    expect(shown.html).toContain('Jeton créé : copiez-le maintenant');
    expect(shown.html).toMatch(/id="created-token" readonly value="[\w-]{43}"/);
    const reload = await open(b, '/profile/tokens');
    expect(reload.html).not.toContain('Jeton créé');
    expect(reload.html).toContain('Export atelier');
    const user = (await t.app.services.auth.findUserByEmail('sebastien.fontaine@demo.local'))!;
    expect(await t.app.services.auth.listPersonalAccessTokens(user.id)).toHaveLength(1);
  });
});

describe("the authenticator app's set-up", () => {
  it('answers «Configurer une application» with a 303: a reload shows the same secret; «Annuler» forgets it', async () => {
    const b = await signedIn('camille.girard@demo.local', false);
    const started = await post(b, '/profile/security', { action: 'generate' });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe('/profile/security');
    const secretOf = (html: string) => html.match(/<code[^>]*>([A-Z2-7 ]{20,})<\/code>/)?.[1];
    const first = secretOf((await open(b, '/profile/security')).html);
    expect(first).toBeTruthy();
    expect(secretOf((await open(b, '/profile/security')).html)).toBe(first);

    const cancelled = await post(b, '/profile/security', { action: 'cancel' });
    expect(cancelled.headers.get('location')).toBe('/profile/security');
    const page = (await open(b, '/profile/security')).html;
    expect(secretOf(page)).toBeUndefined();
    expect(page).toContain('Configurer une application');
    const user = (await t.app.services.auth.findUserByEmail('camille.girard@demo.local'))!;
    const [row] = await queryRows<{ pending: boolean }>(t.database.db, sql`select totp_secret is not null as pending from auth.users where id = ${user.id}`);
    expect(row!.pending).toBe(false);
  });
});

describe("the profile menu's password dialog", () => {
  it('checks its fields on the server, in French: no browser bubble', async () => {
    const b = await signedIn('antoine.lefebvre@demo.local', false);
    const page = (await open(b, '/gearboxes')).html;
    expect(page).toMatch(/<form method="post" action="\/set-password\?retour=[^"]*" novalidate/);
  });

  /** The message beside the dialog's field named `name`, as a screen reader reads it. */
  const saidOf = (html: string, name: string) => {
    const described = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0].match(/aria-describedby="([^"]+)"/)?.[1];
    return described ? new RegExp(`<p id="${described}"[^>]*>([^<]*)</p>`).exec(html)?.[1] : undefined;
  };

  it('says «Champ obligatoire» under a confirmation left empty (walk9)', async () => {
    const b = await signedIn('antoine.lefebvre@demo.local', false);
    const empty = await post(b, '/set-password?retour=%2Fgearboxes', { currentPassword: '', password: '', confirmation: '' });
    expect(empty.headers.get('location')).toBe('/gearboxes');
    const shown = (await open(b, '/gearboxes')).html;
    expect(saidOf(shown, 'currentPassword')).toBe('Champ obligatoire');
    expect(saidOf(shown, 'confirmation')).toBe('Champ obligatoire');
    // A new password typed and its confirmation left empty: the confirmation is asked, not said to differ.
    await post(b, '/set-password?retour=%2Fgearboxes', { currentPassword: 'Pas-Le-Bon-1!', password: 'Boite-Auto-2027!', confirmation: '' });
    expect(saidOf((await open(b, '/gearboxes')).html, 'confirmation')).toBe('Champ obligatoire');
  });
});
