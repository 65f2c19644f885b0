// Where each e-mail link lands (decision 046): the page the user expects, signed in, with a toast
// when the link changed something, and no `type` left for the page to misread as its own filter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestApp, verifyLink, type TestApp } from './support/app.ts';
import { browser, htmlText } from './support/browser.ts';

describe('e-mail links', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
  });
  afterAll(() => t?.close());

  /**
   * Opens the last mail's link in a fresh browser, confirms the account it names (decision 052)
   * and follows the redirects to the page shown.
   */
  async function land(to: string): Promise<{ url: URL; html: string }> {
    const b = browser(t.url);
    const mail = (await t.outbox()).findLast((m) => m.includes(`To: ${to}`))!;
    let path = verifyLink(mail).slice(t.url.length);
    let confirmed = false;
    for (let hop = 0; hop < 8; hop++) {
      const res = await b.request(path);
      const location = res.headers.get('location');
      if (!location) {
        expect(res.status).toBe(200);
        const html = htmlText(await res.text());
        if (confirmed || !html.includes('action="/sign-in/continue"')) return { url: new URL(path, t.url), html };
        const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
        const posted = await b.request('/sign-in/continue', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        });
        confirmed = true;
        path = posted.headers.get('location')!;
        continue;
      }
      path = location.startsWith('http') ? location.slice(t.url.length) : location;
    }
    throw new Error('too many redirects');
  }
  const ip = { ip: '127.0.0.1' };

  it('confirms a new address on the profile page, with «Adresse e-mail modifiée»', async () => {
    const user = (await t.app.services.auth.findUserByEmail('commercial@demo.local'))!;
    await t.app.services.auth.changeEmail(user.id, 'ventes@garage.fr', undefined, ip);
    const { url, html } = await land('ventes@garage.fr');
    expect(url.pathname + url.search).toBe('/profile');
    expect(html).toContain('Adresse e-mail modifiée');
    expect(html).not.toContain('Filtre ignoré');
    expect(html).toContain('ventes@garage.fr');
  });

  it('verifies an address on the orders list, with «Adresse e-mail vérifiée»', async () => {
    // The users screen's «renvoyer» for an account with a password: the verification link.
    const user = (await t.app.services.auth.findUserByEmail('admin@demo.local'))!;
    await t.app.services.auth.resendAccountEmail(user.id);
    const { url, html } = await land('admin@demo.local');
    expect(url.search).toBe('');
    expect(html).toContain('Adresse e-mail vérifiée');
    expect(html).not.toContain('Filtre ignoré');
  });

  it('signs in from an e-mail link without a stray parameter', async () => {
    await postJson(`${t.url}/api/auth/signin/passwordless/email`, { email: 'diagnostic@demo.local' });
    const { url, html } = await land('diagnostic@demo.local');
    expect(url.pathname + url.search).toBe('/repair-orders');
    expect(html).not.toContain('Filtre ignoré');
  });

  it('opens the invitation on /set-password, and the reset link on the reset form', async () => {
    const user = (await t.app.services.auth.findUserByEmail('mecanicien@demo.local'))!;
    await t.app.services.auth.sendSetPasswordEmail(user.id);
    const invited = await land('mecanicien@demo.local');
    expect(invited.url.pathname + invited.url.search).toBe('/set-password');

    await t.app.services.auth.requestPasswordReset('mecanicien@demo.local', undefined, ip);
    const reset = await land('mecanicien@demo.local');
    // The one page that reads the link's type: a reset asks no terms of use.
    expect(reset.url.pathname + reset.url.search).toBe('/set-password?type=passwordReset');
    expect(reset.html).not.toContain("conditions d'utilisation");
  });
});
