// A mechanic with greasy gloves signs in without a password (issue 18, decision 030): a code
// by e-mail, or a link, read from the outbox the server writes without SMTP.
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { lastMailTo, openMailLink, signOut, storageState, verifyLinkOf } from './support/fixtures.ts';

/** The six digits of the last code mailed to `address`. */
function lastCodeTo(address: string): string {
  const code = lastMailTo(address).match(/Votre code de connexion :\r?\n(\d{6})\r?\n/)?.[1];
  if (!code) throw new Error(`no code mailed to ${address}`);
  return code;
}

async function askCode(page: Page, email: string) {
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByRole('button', { name: 'Recevoir le code' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'un code à six chiffres vient de lui être envoyé' })).toBeVisible();
}

test('signs in with a code received by e-mail, after one wrong code', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByRole('link', { name: 'Recevoir un code par e-mail' }).click();
  await expect(page).toHaveURL(/\/sign-in\/email-code$/);
  await expect(page.getByRole('heading', { name: 'Connexion par code e-mail' })).toBeVisible();
  await askCode(page, 'commercial@demo.local');
  const code = lastCodeTo('commercial@demo.local');

  const field = page.getByLabel('Code à six chiffres');
  await expect(field).toBeFocused();
  await expect(field).toHaveAttribute('inputmode', 'numeric');
  await expect(field).toHaveAttribute('autocomplete', 'one-time-code');
  await field.fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Code incorrect ou expiré.' })).toBeVisible();

  await page.getByLabel('Code à six chiffres').fill(code);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/repair-orders$/);
  await expect(page.getByRole('navigation', { name: 'Navigation principale' })).toBeVisible();
  await signOut(page);
});

test('signs in with the link received by e-mail, back on the page that was asked for', async ({ page }) => {
  await page.goto('/gearboxes');
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fgearboxes$/);
  await page.getByRole('link', { name: 'Recevoir un lien de connexion' }).click();
  await expect(page.getByRole('heading', { name: 'Connexion par lien' })).toBeVisible();
  await page.getByLabel('Adresse e-mail').fill('diagnostic@demo.local');
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'un lien de connexion vient de lui être envoyé' })).toBeVisible();

  const link = verifyLinkOf(lastMailTo('diagnostic@demo.local'));
  await openMailLink(page, link, 'Julien Moreau');
  await expect(page).toHaveURL(/\/gearboxes$/);
  await expect(page.getByRole('navigation', { name: 'Navigation principale' })).toBeVisible();
  await signOut(page);

  // The same link a second time signs no one in.
  await page.goto(link);
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByText('Ce lien a expiré ou a déjà été utilisé. Demandez-en un nouveau.')).toBeVisible();
});

test('an unknown address gets the same answer and no mail', async ({ page }) => {
  await page.goto('/sign-in/email-link');
  await page.getByLabel('Adresse e-mail').fill('inconnu@garage.fr');
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Si un compte actif existe pour cette adresse' })).toBeVisible();
  expect(() => lastMailTo('inconnu@garage.fr')).toThrow();
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the e-mail code works with plain forms', async ({ page }) => {
    await page.goto('/sign-in/email-code');
    await askCode(page, 'mecanicien@demo.local');
    await page.getByLabel('Code à six chiffres').fill(lastCodeTo('mecanicien@demo.local'));
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await expect(page).toHaveURL(/\/repair-orders$/);
  });

  test('SMS sign-in, off by default, is neither offered nor reachable', async ({ page }) => {
    await page.goto('/sign-in');
    await expect(page.getByRole('link', { name: 'Recevoir un code par SMS' })).toHaveCount(0);
    const response = await page.goto('/sign-in/sms');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Connexion par SMS non proposée' })).toBeVisible();
    await expect(page.getByText("La connexion par SMS n'est pas proposée dans cet atelier.")).toBeVisible();
    await page.getByRole('link', { name: 'Retour à la connexion' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
  });

  test("the account's phone page says SMS sign-in is not offered, not that something was deleted", async ({ browser }) => {
    const context = await browser.newContext({ storageState: storageState('diagnostician') });
    const page = await context.newPage();
    const response = await page.goto('/profile/phone');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Connexion par SMS non proposée' })).toBeVisible();
    await expect(page.getByText("La connexion par SMS n'est pas proposée dans cet atelier.")).toBeVisible();
    await expect(page.getByText(/supprimé/)).toHaveCount(0);
    await page.getByRole('link', { name: 'Retour à la sécurité du compte' }).click();
    await expect(page.getByRole('heading', { name: 'Sécurité du compte' })).toBeVisible();
    await context.close();
  });
});
