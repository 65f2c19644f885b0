import { expect, test } from './support/test.ts';
import { lastMailTo, outboxMark, signOut, givePassword, totpCodeOf } from './support/fixtures.ts';

// A colleague's account the other specs leave alone: its second factor changes how it signs in.
const EMAIL = 'sebastien.fontaine@demo.local';

test('enrols an authenticator app, then signs in with the password and a code, then with a recovery code', async ({ page }) => {
  await givePassword(page, EMAIL);
  await expect(page).toHaveURL(/\/repair-orders$/);
  await page.getByLabel('Menu du profil').first().click();
  await page.getByRole('link', { name: 'Sécurité du compte' }).click();
  await expect(page.getByRole('heading', { name: 'Sécurité du compte' })).toBeVisible();

  await page.getByRole('button', { name: 'Configurer une application' }).click();
  await expect(page.getByRole('img', { name: "QR code à scanner avec l'application d'authentification" })).toBeVisible();
  const secret = ((await page.locator('code').textContent()) ?? '').replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);

  // A wrong code keeps the enrolment on screen with the reason.
  await page.getByLabel('Code de vérification').fill('12');
  await page.getByRole('button', { name: 'Activer' }).click();
  await expect(page.getByText('Le code comporte 6 chiffres')).toBeVisible();
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();

  await page.getByLabel('Code de vérification').fill(totpCodeOf(secret));
  await page.getByRole('button', { name: 'Activer' }).click();
  await expect(page.getByText('Vérification en deux étapes activée')).toBeVisible();
  const codes = await page.getByRole('list', { name: 'Vos codes de secours' }).getByRole('listitem').allInnerTexts();
  expect(codes).toHaveLength(10);
  await page.getByRole('link', { name: "J'ai noté mes codes" }).click();
  await expect(page.getByText('Activée', { exact: true })).toBeVisible();
  await expect(page.getByText('Codes de secours restants : 10 sur 10')).toBeVisible();
  // One code field, for both what needs it (new recovery codes, removal): not two identical ones.
  await expect(page.getByLabel('Code de vérification')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Générer de nouveaux codes de secours' })).toBeVisible();
  // Shown once: not on the page any more.
  await expect(page.getByText(codes[0]!)).toHaveCount(0);

  await signOut(page);
  await givePassword(page, EMAIL);
  await expect(page.getByRole('heading', { name: 'Vérification en deux étapes' })).toBeVisible();
  await page.getByLabel('Code de vérification').fill('000000');
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await expect(page.getByText('Code incorrect.')).toBeVisible();
  await page.getByLabel('Code de vérification').fill(totpCodeOf(secret, 1));
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await expect(page).toHaveURL(/\/repair-orders$/);

  await signOut(page);
  await givePassword(page, EMAIL);
  await page.getByLabel('Code de vérification').fill(codes[3]!);
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await expect(page).toHaveURL(/\/repair-orders$/);

  // A code by e-mail is a first factor too: the second one is still asked (with a recovery code here).
  await signOut(page);
  await page.goto('/sign-in/email-code');
  await page.getByLabel('Adresse e-mail').fill(EMAIL);
  // After the notices of the second factor switched on and its codes (decision 056).
  const mark = outboxMark();
  await page.getByRole('button', { name: 'Recevoir le code' }).click();
  const mailed = lastMailTo(EMAIL, mark).match(/Votre code de connexion :\r?\n(\d{6})\r?\n/)![1]!;
  await page.getByLabel('Code à six chiffres').fill(mailed);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await page.getByLabel('Code de vérification').fill(codes[4]!);
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await expect(page).toHaveURL(/\/repair-orders$/);

  await page.goto('/profile/security');
  await expect(page.getByText('Codes de secours restants : 8 sur 10')).toBeVisible();

  // Removed with a recovery code, the password alone signs in again.
  await page.getByLabel('Code de vérification').fill(codes[5]!);
  await page.getByRole('button', { name: 'Désactiver la vérification en deux étapes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Vérification en deux étapes désactivée' })).toBeVisible();
  await signOut(page);
  await givePassword(page, EMAIL);
  await expect(page).toHaveURL(/\/repair-orders$/);
});
