import { allowBrowserErrors, expect, test } from './support/test.ts';
import type { Browser } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { signIn } from './support/fixtures.ts';

// Maxime Blanc, a colleague the other specs leave alone, made an admin for this story.
const EMAIL = 'maxime.blanc@demo.local';
const codeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
/** A code `steps` windows from now, taken away from a window's edge: one that turns between typing and checking is refused. */
async function steadyCode(secret: string, steps = 0) {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
  return codeOf(secret, steps);
}

async function signedIn(browser: Browser, email: string, options: { javaScriptEnabled?: boolean } = {}) {
  const context = await browser.newContext({ ...options, storageState: undefined });
  const page = await context.newPage();
  await signIn(page, email);
  return page;
}

test('an admin with a second factor confirms it before changing a role, in the dialog and without JavaScript', async ({ browser }) => {
  const admin = await signedIn(browser, 'admin@demo.local');
  await admin.goto('/users?recherche=maxime');
  // Once the island runs (its "Changer" button gone), a role changes at once.
  await expect(admin.getByRole('button', { name: 'Changer : Maxime Blanc' })).toHaveCount(0);
  await admin.getByLabel('Rôle de Maxime Blanc').selectOption({ label: 'Admin' });
  await expect(admin.getByRole('status').filter({ hasText: 'Utilisateur mis à jour' })).toBeVisible();

  // Signed in before the second factor exists: these sign-ins have not proved it.
  const withJs = await signedIn(browser, EMAIL);
  const withoutJs = await signedIn(browser, EMAIL, { javaScriptEnabled: false });
  const enrolling = await signedIn(browser, EMAIL);
  await enrolling.goto('/profile/security');
  await enrolling.getByRole('button', { name: 'Configurer une application' }).click();
  const secret = ((await enrolling.locator('code').textContent()) ?? '').replace(/\s/g, '');
  await enrolling.getByLabel('Code de vérification').fill(await steadyCode(secret, -1));
  await enrolling.getByRole('button', { name: 'Activer' }).click();
  await expect(enrolling.getByText('Vérification en deux étapes activée')).toBeVisible();

  await withJs.goto('/users?recherche=hugo');
  await expect(withJs.getByRole('button', { name: 'Changer : Hugo Boyer' })).toHaveCount(0);
  await withJs.getByLabel('Rôle de Hugo Boyer').selectOption({ label: 'Diagnostiqueur' });
  const dialog = withJs.getByRole('dialog', { name: 'Confirmez votre identité' });
  await expect(dialog.getByRole('heading', { name: 'Confirmez votre identité' })).toBeVisible();
  // A wrong code: the server refuses it (400).
  allowBrowserErrors(/status of 400 .*\/api\/session\/elevate\)$/);
  await dialog.getByLabel('Code de vérification').fill('000000');
  await dialog.getByRole('button', { name: 'Vérifier' }).click();
  await expect(dialog.getByText('Code incorrect.')).toBeVisible();
  await dialog.getByLabel('Code de vérification').fill(await steadyCode(secret));
  await dialog.getByRole('button', { name: 'Vérifier' }).click();
  await expect(withJs.getByRole('status').filter({ hasText: 'Utilisateur mis à jour' })).toBeVisible();
  await expect(withJs.getByLabel('Rôle de Hugo Boyer')).toHaveValue('diagnostician');

  await withoutJs.goto('/users?recherche=lucas');
  await withoutJs.getByLabel('Rôle de Lucas Legrand').selectOption({ label: 'Diagnostiqueur' });
  await withoutJs.getByRole('button', { name: 'Changer : Lucas Legrand' }).click();
  await expect(withoutJs).toHaveURL(/\/profile\/confirm\?retour=/);
  await withoutJs.getByLabel('Code de vérification').fill(await steadyCode(secret, 1));
  await withoutJs.getByRole('button', { name: 'Confirmer' }).click();
  await expect(withoutJs).toHaveURL(/\/users\?recherche=lucas$/);
  await expect(withoutJs.getByRole('status').filter({ hasText: 'Identité confirmée' })).toBeVisible();
  await withoutJs.getByLabel('Rôle de Lucas Legrand').selectOption({ label: 'Diagnostiqueur' });
  await withoutJs.getByRole('button', { name: 'Changer : Lucas Legrand' }).click();
  await expect(withoutJs.getByRole('status').filter({ hasText: 'Utilisateur mis à jour' })).toBeVisible();
  await expect(withoutJs.getByLabel('Rôle de Lucas Legrand')).toHaveValue('diagnostician');
});
