// No session from a URL alone (issue 29, item 5; decision 052): a link carrying someone's
// refreshToken, opened in a browser that did not ask for it, names the account and waits for
// the user to confirm; without that, the browser stays signed out.
import { expect, test } from './support/test.ts';
import { DEMO_PASSWORD } from './support/fixtures.ts';

const SHOTS = '/work/shots/landing';

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
  await page.screenshot({ path: `${SHOTS}/continue-as-1280.png` });

  // «Annuler» leaves the browser signed out.
  await page.getByRole('link', { name: 'Annuler' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  expect(await hasSession(context)).toBe(false);

  // Confirmed, it signs in and lands on the clean address.
  await page.goto(`/repair-orders?refreshToken=${token}`);
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
  await page.screenshot({ path: `${SHOTS}/continue-as-768-touch.png` });
  expect(await hasSession(context)).toBe(false);
  await context.close();
});
