import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { DEMO_PASSWORD, lastMailTo, openProfileMenu, signIn, signOut, verifyLinkOf } from './support/fixtures.ts';

// A password change ends the user's other sign-ins: these stories use colleagues' accounts,
// not the four that the other specs keep signed in.
async function changePasswordInDialog(page: Page, current: string, password: string) {
  await page.goto('/gearboxes');
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Modifier le mot de passe' });
  await dialog.getByLabel('Mot de passe actuel').fill(current);
  await dialog.getByLabel('Nouveau mot de passe').fill(password);
  await dialog.getByLabel('Confirmation').fill(password);
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  // Saved, back where the menu was opened.
  await expect(page).toHaveURL(/\/gearboxes$/);
  await expect(page.getByRole('status').filter({ hasText: 'Mot de passe modifié' })).toBeVisible();
}

test('resets a forgotten password from the e-mail link to a new sign-in', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByRole('link', { name: 'Mot de passe oublié ?' }).click();
  await expect(page).toHaveURL(/view=forgot-password/);
  await page.getByLabel('Adresse e-mail').fill('pierre.vincent@demo.local');
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Si un compte existe pour cette adresse' })).toBeVisible();

  const mail = lastMailTo('pierre.vincent@demo.local');
  await page.goto(verifyLinkOf(mail));
  await expect(page).toHaveURL(/\/set-password\?type=passwordReset$/);
  await expect(page.getByRole('heading', { name: 'Nouveau mot de passe' })).toBeVisible();
  await expect(page.getByText("J'accepte les conditions d'utilisation")).toHaveCount(0);

  await page.getByLabel('Mot de passe', { exact: false }).first().fill('nouveau-passe');
  await page.getByLabel('Confirmation du mot de passe').fill('autre');
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  await expect(page.getByText('Au moins une majuscule, au moins un chiffre', { exact: true })).toBeVisible();
  await expect(page.getByText('Les mots de passe ne sont pas identiques')).toBeVisible();

  await page.locator('input[name=password]').fill('Boite-Auto-2027!');
  await page.getByLabel('Confirmation du mot de passe').fill('Boite-Auto-2027!');
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  await expect(page).toHaveURL(/\/repair-orders$/);
  // The toast raised before the redirect survives it.
  await expect(page.getByRole('status').filter({ hasText: 'Mot de passe enregistré' })).toBeVisible();

  await signOut(page);
  await signIn(page, 'pierre.vincent@demo.local', 'Boite-Auto-2027!');
  await changePasswordInDialog(page, 'Boite-Auto-2027!', DEMO_PASSWORD);
  await signOut(page);

  // The link works once.
  await page.goto(verifyLinkOf(mail));
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole('alert').filter({ hasText: 'Ce lien a expiré ou a déjà été utilisé' })).toBeVisible();
});

test('the update-password dialog says every broken rule, closes on Annuler, and saves', async ({ page }) => {
  await signIn(page, 'elodie.roux@demo.local');
  await page.goto('/gearboxes');
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Modifier le mot de passe' });
  await expect(dialog.getByRole('list', { name: 'Règles du mot de passe' })).toContainText('Au moins une majuscule');
  // It opens on the current password; Annuler closes it and forgets what was typed.
  await expect(dialog.getByLabel('Mot de passe actuel')).toBeFocused();
  await dialog.getByLabel('Mot de passe actuel').fill('Oublie-Moi-1!');
  await dialog.getByRole('link', { name: 'Annuler' }).click();
  await expect(dialog).toBeHidden();
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  await expect(dialog.getByLabel('Mot de passe actuel')).toHaveValue('');

  // "abc" breaks four rules: all four are said, on the page the dialog posted to.
  await dialog.getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
  await dialog.getByLabel('Nouveau mot de passe').fill('abc');
  await dialog.getByLabel('Confirmation').fill('abc');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  const form = page.getByRole('main');
  await expect(page.getByRole('heading', { name: 'Modifier le mot de passe' })).toBeVisible();
  await expect(form.getByText('Minimum 8 caractères, au moins une majuscule, au moins un chiffre, au moins un caractère spécial')).toBeVisible();
  await form.getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
  await form.getByLabel('Nouveau mot de passe').fill('Abcdef1!');
  await form.getByLabel('Confirmation').fill('Abcdef1?');
  await form.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(form.getByText('Les mots de passe ne sont pas identiques')).toBeVisible();

  // A wrong current password changes nothing and says so beside the field.
  await form.getByLabel('Mot de passe actuel').fill('Pas-Le-Bon-1!');
  await form.getByLabel('Nouveau mot de passe').fill('Commercial-2027!');
  await form.getByLabel('Confirmation').fill('Commercial-2027!');
  await form.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(form.getByText('Mot de passe actuel incorrect')).toBeVisible();
  // Annuler goes back where the dialog was opened.
  await form.getByRole('link', { name: 'Annuler' }).click();
  await expect(page).toHaveURL(/\/gearboxes$/);

  await changePasswordInDialog(page, DEMO_PASSWORD, 'Commercial-2027!');
  await signOut(page);
  await signIn(page, 'elodie.roux@demo.local', 'Commercial-2027!');
  await changePasswordInDialog(page, 'Commercial-2027!', DEMO_PASSWORD);
});
