// The sign-in and account pages answer a refused post as every other form does (walk31 F4, W5,
// decisions 039, 087): a 303 to the page's own address, whose GET shows the French message and
// what was typed but a password or a code; a reload shows it again and posts nothing, so a wrong
// password is counted once. The JSON endpoints under /api/auth keep their statuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { browser, htmlText, signedInBrowser } from './support/browser.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';

let t: TestApp;
beforeAll(async () => {
  // Two free failures per account: the third wrong password is throttled.
  t = await startTestApp('pglite', { pages: true, signInThrottle: { accountFree: 2, addressFree: 1000, maxDelayMs: 60_000, forgetMs: 60_000 } });
});
afterAll(() => t?.close());

type Browser = ReturnType<typeof browser>;
/** A page opened as a browser opens it (a document). */
const open = async (b: Browser, path: string) => {
  const answer = await b.request(path, { headers: { accept: 'text/html', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' } });
  const html = htmlText(await answer.text());
  return { status: answer.status, html, main: html.slice(html.indexOf('<main')) };
};
const post = (b: Browser, path: string, fields: Record<string, string>) =>
  b.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
/** The posts the server logged at `path`. */
const postsTo = (path: string) => t.logLines.filter((line) => line.msg === 'request' && line.method === 'POST' && line.path === path).length;
/** Wrong passwords of `account` still remembered by the sign-in throttle, whatever address the pages saw. */
const failuresOf = async (account: string) =>
  Math.max(...(await Promise.all(['127.0.0.1', '::ffff:127.0.0.1', '::1'].map((ip) => t.app.services.auth.throttle.failures(account, ip)))));
/** Wrong current passwords of `email`'s account (counted under the account, decision 048). */
const currentFailuresOf = async (email: string) => failuresOf(`user:${(await t.app.services.auth.findUserByEmail(email))!.id}`);

/** Signed in by password; `aged`: over five minutes ago, so a token or an app asks a proof. */
const signedIn = (email: string, aged = true) => signedInBrowser(t, email, aged);

describe('a refused sign-in', () => {
  it('answers a wrong password with a 303 to the page, redirectTo kept: a reload shows it again and checks nothing', async () => {
    const b = browser(t.url);
    const posts = postsTo('/sign-in');
    const refused = await post(b, '/sign-in?redirectTo=%2Fstock', { email: 'diagnostic@demo.local', password: 'Pas-le-bon-1!' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/sign-in?redirectTo=%2Fstock');
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/sign-in?redirectTo=%2Fstock');
      expect(shown.status).toBe(200);
      expect(shown.main).toContain('Identifiant ou mot de passe incorrect');
      expect(shown.main).toContain('value="diagnostic@demo.local"');
      // The password is never shown back (nor kept in the refusal, whose bytes are sealed).
      expect(shown.main).not.toContain('Pas-le-bon');
      expect(shown.main).not.toContain('Pas-le-bon');
      // The form still posts to the target kept.
      expect(shown.main).toContain('action="/sign-in?redirectTo=%2Fstock"');
    }
    // One post, one wrong password counted: the reloads sent nothing.
    expect(postsTo('/sign-in') - posts).toBe(1);
    expect(await failuresOf('diagnostic@demo.local')).toBe(1);
    // The right password then honours the target, and the refusal is gone.
    const right = await post(b, '/sign-in?redirectTo=%2Fstock', { email: 'diagnostic@demo.local', password: DEMO_PASSWORD });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/stock');
    expect(await failuresOf('diagnostic@demo.local')).toBe(0);
  });

  it('answers a form to fix with a 303: the messages beside the fields and the address typed, again on a reload', async () => {
    const b = browser(t.url);
    const refused = await post(b, '/sign-in', { email: 'atelier', password: '' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/sign-in');
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/sign-in');
      expect(shown.main).toContain('Adresse e-mail invalide');
      expect(shown.main).toContain('Champ obligatoire');
      expect(shown.main).toContain('value="atelier"');
    }
  });

  it('answers a forgotten password asked for an address to fix with a 303 to its view, the address kept', async () => {
    const b = browser(t.url);
    const refused = await post(b, '/sign-in?view=forgot-password', { email: 'atelier@' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/sign-in?view=forgot-password');
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/sign-in?view=forgot-password');
      expect(shown.main).toContain('Adresse e-mail invalide');
      expect(shown.main).toContain('value="atelier@"');
    }
  });

  it('says the throttled wait after the 303, and a reload does not count one more failure', async () => {
    const b = browser(t.url);
    const email = 'commercial@demo.local';
    for (let i = 0; i < 2; i++) await post(b, '/sign-in', { email, password: 'Faux-passe-1!' });
    expect(await failuresOf(email)).toBe(2);
    const throttled = await post(b, '/sign-in', { email, password: 'Faux-passe-1!' });
    expect(throttled.status).toBe(303);
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/sign-in');
      expect(shown.main).toMatch(/Trop de tentatives\. Réessayez dans \d+ secondes?\./);
      expect(shown.main).toContain(`value="${email}"`);
    }
    expect(await failuresOf(email)).toBe(2);
    // The API is no page: it keeps its statuses.
    expect((await postJson(`${t.url}/api/auth/signin/email-password`, { email: 'mecanicien@demo.local', password: 'Faux-passe-1!' })).status).toBe(401);
  });
});

describe('a refused personal access token', () => {
  it('answers a wrong current password with a 303: the name and lifetime kept, never the password, and a reload posts nothing', async () => {
    const email = 'sebastien.fontaine@demo.local';
    const b = await signedIn(email);
    const posts = postsTo('/profile/tokens');
    const refused = await post(b, '/profile/tokens', { name: 'Export compta', days: '30', currentPassword: 'Mauvais-passe-1!' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/profile/tokens');
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/profile/tokens');
      expect(shown.status).toBe(200);
      expect(shown.main).toContain('Mot de passe actuel incorrect');
      expect(shown.main).toContain('value="Export compta"');
      expect(shown.main).toMatch(/<option value="30" selected/);
      expect(shown.html).not.toContain('Mauvais-passe');
    }
    expect(postsTo('/profile/tokens') - posts).toBe(1);
    expect(await currentFailuresOf(email)).toBe(1);
    const user = (await t.app.services.auth.findUserByEmail(email))!;
    expect(await t.app.services.auth.listPersonalAccessTokens(user.id)).toHaveLength(0);
    // The right password then makes the token, and the refusal is gone.
    const created = await post(b, '/profile/tokens', { name: 'Export compta', days: '30', currentPassword: DEMO_PASSWORD });
    expect(created.headers.get('location')).toBe('/profile/tokens');
    const shown = await open(b, '/profile/tokens');
    expect(shown.main).toContain('Jeton créé : copiez-le maintenant');
    expect(shown.main).not.toContain('Mot de passe actuel incorrect');
  });

  it('answers a name left empty with a 303 and «Champ obligatoire»', async () => {
    const b = await signedIn('sebastien.fontaine@demo.local', false);
    const refused = await post(b, '/profile/tokens', { name: ' ', days: '365' });
    expect(refused.status).toBe(303);
    const shown = await open(b, '/profile/tokens');
    expect(shown.main).toContain('Champ obligatoire');
    expect(shown.main).toMatch(/<option value="365" selected/);
  });
});

describe("a refused code at the authenticator app's set-up", () => {
  it('answers with a 303: the message beside the code, the same secret, and a reload posts nothing', async () => {
    const b = await signedIn('camille.girard@demo.local', false);
    await post(b, '/profile/security', { action: 'generate' });
    const secretOf = (html: string) => html.match(/<code[^>]*>([A-Z2-7 ]{20,})<\/code>/)?.[1];
    const secret = secretOf((await open(b, '/profile/security')).html);
    expect(secret).toBeTruthy();
    const posts = postsTo('/profile/security');
    for (const [code, message] of [
      ['12345a', 'Le code comporte 6 chiffres'],
      ['000000', 'Code incorrect'],
    ] as const) {
      const refused = await post(b, '/profile/security', { action: 'activate', code });
      expect(refused.status).toBe(303);
      expect(refused.headers.get('location')).toBe('/profile/security');
      for (let i = 0; i < 2; i++) {
        const shown = await open(b, '/profile/security');
        expect(shown.status).toBe(200);
        expect(shown.main).toContain(message);
        expect(secretOf(shown.html)).toBe(secret);
        expect(shown.main).not.toContain(`value="${code}"`);
      }
    }
    expect(postsTo('/profile/security') - posts).toBe(2);
  });

  it('answers a wrong current password before the set-up with a 303 and its message', async () => {
    const email = 'antoine.lefebvre@demo.local';
    const b = await signedIn(email);
    const refused = await post(b, '/profile/security', { action: 'generate', currentPassword: 'Mauvais-passe-1!' });
    expect(refused.status).toBe(303);
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/profile/security');
      expect(shown.main).toContain('Mot de passe actuel incorrect');
      expect(shown.html).not.toContain('Mauvais-passe');
    }
    expect(await currentFailuresOf(email)).toBe(1);
  });
});

describe('the other sign-in and account forms', () => {
  it('/sign-in/email-link answers an address to fix with a 303, the target and the address kept', async () => {
    const b = browser(t.url);
    const refused = await post(b, '/sign-in/email-link?redirectTo=%2Fstock', { email: 'atelier' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/sign-in/email-link?redirectTo=%2Fstock');
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/sign-in/email-link?redirectTo=%2Fstock');
      expect(shown.status).toBe(200);
      expect(shown.main).toContain('Adresse e-mail invalide');
      expect(shown.main).toContain('value="atelier"');
      expect(shown.main).toContain('action="/sign-in/email-link?redirectTo=%2Fstock"');
    }
  });

  it('/profile/confirm answers a wrong current password with a 303, retour kept: a reload checks nothing', async () => {
    const email = 'maxime.blanc@demo.local';
    const b = await signedIn(email);
    const posts = postsTo('/profile/confirm');
    const refused = await post(b, '/profile/confirm?retour=%2Fprofile%2Ftokens', { currentPassword: 'Mauvais-passe-1!' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/profile/confirm?retour=%2Fprofile%2Ftokens');
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/profile/confirm?retour=%2Fprofile%2Ftokens');
      expect(shown.main).toContain('Mot de passe actuel incorrect');
      expect(shown.html).not.toContain('Mauvais-passe');
    }
    expect(postsTo('/profile/confirm') - posts).toBe(1);
    expect(await currentFailuresOf(email)).toBe(1);
    const right = await post(b, '/profile/confirm?retour=%2Fprofile%2Ftokens', { currentPassword: DEMO_PASSWORD });
    expect(right.headers.get('location')).toBe('/profile/tokens');
  });

  it('/set-password answers a wrong current password with a 303: the message again, no password, and a reload checks nothing', async () => {
    const email = 'alexandre.chevalier@demo.local';
    const b = await signedIn(email, false);
    const posts = postsTo('/set-password');
    const refused = await post(b, '/set-password', { currentPassword: 'Mauvais-passe-1!', password: 'Boite-Auto-2027!', confirmation: 'Boite-Auto-2027!' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/set-password');
    for (let i = 0; i < 2; i++) {
      const shown = await open(b, '/set-password');
      expect(shown.status).toBe(200);
      expect(shown.main).toContain('Mot de passe actuel incorrect');
      expect(shown.html).not.toContain('Mauvais-passe');
      expect(shown.html).not.toContain('Boite-Auto-2027');
    }
    expect(postsTo('/set-password') - posts).toBe(1);
    expect(await currentFailuresOf(email)).toBe(1);
  });
});
