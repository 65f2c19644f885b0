import { expect, test } from './support/test.ts';
import { signIn, storageState } from './support/fixtures.ts';

// A colleague's account the other specs leave alone.
const EMAIL = 'romain.andre@demo.local';

test('creates a personal access token shown once, a script signs in with it, and revoking it after a confirmation stops it', async ({
  page,
  request,
  browser,
}) => {
  await signIn(page, EMAIL);
  await page.getByLabel('Menu du profil').first().click();
  await page.getByRole('link', { name: "Jetons d'accès" }).click();
  await expect(page.getByRole('heading', { name: "Jetons d'accès personnels" })).toBeVisible();
  await expect(page.getByText("Vous n'avez créé aucun jeton.")).toBeVisible();

  await page.getByRole('button', { name: 'Créer le jeton' }).click();
  await expect(page.getByText('Champ obligatoire')).toBeVisible();
  await page.getByLabel('Nom du jeton').fill('Export comptable');
  await page.getByLabel('Durée de validité').selectOption({ label: '30 jours' });
  await page.getByRole('button', { name: 'Créer le jeton' }).click();
  await expect(page.getByRole('heading', { name: 'Jeton créé : copiez-le maintenant' })).toBeVisible();
  const token = await page.getByLabel('Jeton', { exact: true }).inputValue();
  expect(token).toMatch(/^[\w-]{43}$/);
  // Shown once: a button copies it, and says so.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copier le jeton' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Jeton copié dans le presse-papiers' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  const row = page.getByRole('row', { name: /Export comptable/ });
  await expect(row).toContainText('Actif');
  await expect(row).toContainText('Jamais');

  const signedIn = await request.post('/api/auth/signin/pat', { data: { personalAccessToken: token } });
  expect(signedIn.status()).toBe(200);
  expect((await signedIn.json()).session.user.email).toBe(EMAIL);

  // Shown once: a reload shows the list, not the token, and the use.
  await page.goto('/profile/tokens');
  await expect(page.getByLabel('Jeton', { exact: true })).toHaveCount(0);
  await expect(page.getByRole('row', { name: /Export comptable/ })).not.toContainText('Jamais');

  await page.getByRole('link', { name: 'Révoquer Export comptable' }).click();
  await expect(page).toHaveURL(/revoquer=/);
  await expect(page.getByRole('alertdialog', { name: 'Révoquer le jeton « Export comptable » ?' })).toBeVisible();
  await page.getByRole('button', { name: 'Révoquer le jeton' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Jeton révoqué' })).toBeVisible();
  await expect(page.getByRole('row', { name: /Export comptable/ })).toContainText('Révoqué');
  const refused = await request.post('/api/auth/signin/pat', { data: { personalAccessToken: token } });
  expect(refused.status()).toBe(401);

  // Both are on the account's activity, for an admin (decision 056).
  const admin = await browser.newContext({ storageState: storageState('app_admin') });
  const adminPage = await admin.newPage();
  await adminPage.goto('/users?recherche=Romain');
  await adminPage.getByRole('button', { name: 'Actions : Romain André' }).click();
  await adminPage.getByRole('link', { name: 'Activité de Romain André' }).click();
  const rows = adminPage.getByRole('table', { name: 'Activité' }).getByRole('row');
  await expect(rows.filter({ hasText: "Jeton d'accès" }).filter({ hasText: 'créé : Export comptable' })).toHaveCount(1);
  await expect(rows.filter({ hasText: "Jeton d'accès" }).filter({ hasText: 'révoqué' })).toHaveCount(1);
  await admin.close();
});
