// No session from a URL alone (issue 29, item 5; decision 052): a link carrying someone's
// refreshToken, opened in a browser that did not ask for it, names the account and waits for
// the user to confirm; without that, the browser stays signed out.
import { expect, test } from './support/test.ts';
import { DEMO_PASSWORD, givePasswordIfAsked, lastMailTo, outboxMark, storageState, touchTablet, verifyLinkOf, shot } from './support/fixtures.ts';

/** A refresh token of `email`'s, as whoever signed in to that account holds one. */
async function tokenOf(request: import('@playwright/test').APIRequestContext, email: string): Promise<string> {
  const res = await request.post('/api/auth/signin/email-password', { data: { email, password: DEMO_PASSWORD } });
  expect(res.status()).toBe(200);
  return (await res.json()).session.refreshToken;
}

const hasSession = async (context: import('@playwright/test').BrowserContext) => (await context.cookies()).some((c) => c.name.includes('atelier_session'));

test("a link with another account's token signs no one in until the user confirms", async ({ browser, request }) => {
  const token = await tokenOf(request, 'commercial@demo.local');
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`/repair-orders?refreshToken=${token}`);
  await expect(page.getByRole('heading', { name: 'Continuer en tant que Sophie Laurent ?' })).toBeVisible();
  await expect(page.getByText("Ce lien n'a pas été demandé depuis ce navigateur.")).toBeVisible();
  expect(await hasSession(context)).toBe(false);
  await shot(page, 'continue-as-1280');

  // «Annuler» leaves the browser signed out, and ends the link: its address, still in the
  // browser's history (a shared terminal), opens nothing when someone reopens it.
  await page.getByRole('button', { name: 'Annuler' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.getByRole('status').filter({ hasText: "Aucune session n'a été ouverte : ce lien ne peut plus servir." })).toBeVisible();
  expect(await hasSession(context)).toBe(false);
  await shot(page, 'declined-1280');
  await page.goto(`/repair-orders?refreshToken=${token}`);
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.getByRole('button', { name: /^Continuer en tant que / })).toHaveCount(0);
  expect(await hasSession(context)).toBe(false);

  // Another link, confirmed: it signs in and lands on the clean address.
  const next = await tokenOf(request, 'commercial@demo.local');
  await page.goto(`/repair-orders?refreshToken=${next}`);
  await page.getByRole('button', { name: 'Continuer en tant que Sophie Laurent' }).click();
  await expect(page).toHaveURL(/\/repair-orders$/);
  await expect(page.getByRole('navigation', { name: 'Navigation principale' })).toBeVisible();
  expect(await hasSession(context)).toBe(true);
  await context.close();
});

test('the confirmation reads on a tablet', async ({ browser, request }) => {
  const token = await tokenOf(request, 'admin@demo.local');
  const context = await browser.newContext({ viewport: { width: 768, height: 1024 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await page.goto(`/stock?refreshToken=${token}`);
  const button = page.getByRole('button', { name: /^Continuer en tant que / });
  await expect(button).toBeVisible();
  expect((await button.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  const decline = page.getByRole('button', { name: 'Annuler' });
  expect((await decline.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await shot(page, 'continue-as-768-touch');
  expect(await hasSession(context)).toBe(false);
  await context.close();
});

// The address is confirmed on the way in (the ticket is spent): the page says so first, and
// its way out declines only the session, it does not pretend to cancel the change.
for (const javaScriptEnabled of [true, false]) {
  test(`a new address confirmed in another browser says it is confirmed, then asks about the session (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    const owner = await browser.newContext({ storageState: storageState('diagnostician') });
    const profile = await owner.newPage();
    /** The profile's e-mail changed to `to`, asked by the signed-in owner. */
    const askChange = async (to: string) => {
      await profile.goto('/profile');
      const form = profile.getByRole('form', { name: "Modifier le nom et l'e-mail" });
      await form.getByLabel('E-mail').fill(to);
      await form.getByRole('button', { name: 'Enregistrer' }).click();
      await givePasswordIfAsked(form);
      await expect(profile.getByRole('status').filter({ hasText: `Un lien de confirmation a été envoyé à ${to}` })).toBeVisible();
    };
    let address = '';
    let changed = false;
    try {
      for (const [size, options] of [
        ['1280', { viewport: { width: 1280, height: 800 } }],
        ['768-touch', touchTablet()],
      ] as const) {
        if (size === '768-touch' && !javaScriptEnabled) continue;
        const elsewhere = await browser.newContext({ javaScriptEnabled, ...options });
        const page = await elsewhere.newPage();
        address = `julien.${javaScriptEnabled ? 'js' : 'nojs'}-${size}@demo.local`;
        const mark = outboxMark();
        await askChange(address);
        await page.goto(verifyLinkOf(lastMailTo(address, mark)));
        changed = true;
        await expect(page.getByRole('heading', { level: 1, name: 'Adresse e-mail modifiée' })).toBeVisible();
        await expect(page.getByText(`Adresse confirmée : ${address}.`)).toBeVisible();
        await expect(page.getByRole('heading', { level: 2, name: 'Continuer en tant que Julien Moreau ?' })).toBeVisible();
        await expect(page.getByRole('button', { name: 'Annuler' })).toHaveCount(0);
        expect(await hasSession(elsewhere)).toBe(false);
        await shot(page, `address-confirmed-js-${javaScriptEnabled ? 'on' : 'off'}-${size}`);
        if (javaScriptEnabled && size === '1280') {
          await page.getByRole('button', { name: 'Continuer en tant que Julien Moreau' }).click();
          await expect(page).toHaveURL(/\/profile$/);
          await expect(page.getByRole('status').filter({ hasText: 'Adresse e-mail modifiée' })).toBeVisible();
          expect(await hasSession(elsewhere)).toBe(true);
        } else {
          await page.getByRole('button', { name: 'Ne pas ouvrir de session' }).click();
          await expect(page).toHaveURL(/\/sign-in$/);
          await expect(page.getByText("Aucune session n'a été ouverte : ce lien ne peut plus servir.")).toBeVisible();
          expect(await hasSession(elsewhere)).toBe(false);
        }
        await elsewhere.close();
      }
      // The change held either way: the owner's profile shows the new address.
      await profile.goto('/profile');
      await expect(profile.getByRole('form', { name: "Modifier le nom et l'e-mail" }).getByLabel('E-mail')).toHaveValue(address);
    } finally {
      // The shared demo diagnostician gets their address back, even after a failure midway.
      if (changed) {
        const mark = outboxMark();
        await askChange('diagnostic@demo.local');
        // The link asked for now, not an older notice to that address (a mark before the change).
        await profile.goto(verifyLinkOf(lastMailTo('diagnostic@demo.local', mark)));
        await expect(profile).toHaveURL(/\/profile$/);
      }
    }
    await owner.close();
  });
}
