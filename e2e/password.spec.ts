import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { DEMO_PASSWORD, lastMailTo, openMailLink, openProfileMenu, shot, signIn, signOut, storageState, verifyLinkOf } from './support/fixtures.ts';

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
  await openMailLink(page, verifyLinkOf(mail), 'Pierre Vincent');
  await expect(page).toHaveURL(/\/set-password\?type=passwordReset$/);
  await expect(page.getByRole('heading', { name: 'Nouveau mot de passe' })).toBeVisible();
  await expect(page.getByText("J'accepte les conditions d'utilisation")).toHaveCount(0);

  await page.getByLabel('Mot de passe', { exact: false }).first().fill('nouveau-passe');
  await page.getByLabel('Confirmation du mot de passe').fill('nouveau-passe');
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  await expect(page.getByText('Au moins une majuscule, au moins un chiffre', { exact: true })).toBeVisible();

  // Two passwords that differ are stopped before the post: what was typed stays (decision 046).
  await page.locator('input[name=password]').fill('Boite-Auto-2027!');
  await page.getByLabel('Confirmation du mot de passe').fill('Boite-Auto-2028!');
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  const confirmation = page.getByLabel('Confirmation du mot de passe');
  expect(await confirmation.evaluate((input: HTMLInputElement) => input.validationMessage)).toBe('Les mots de passe ne sont pas identiques');
  await expect(page.locator('input[name=password]')).toHaveValue('Boite-Auto-2027!');
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

  // Saved empty: «Champ obligatoire» in the dialog, in French, not the browser's own bubble.
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page).toHaveURL(/\/gearboxes$/);
  await expect(dialog.getByLabel('Mot de passe actuel')).toHaveAccessibleDescription('Champ obligatoire');
  // The first field to fix, from the top, takes the focus.
  await expect(dialog.getByLabel('Mot de passe actuel')).toBeFocused();
  // The confirmation left empty says it too (walk9).
  await expect(dialog.getByLabel('Confirmation')).toHaveAccessibleDescription('Champ obligatoire');
  await shot(page, 'password-dialog-empty-save');
  // A field filled since no longer says «Champ obligatoire»; the others still do (walk9).
  await dialog.getByLabel('Mot de passe actuel').fill('Oublie-Moi-1!');
  await expect(dialog.getByLabel('Mot de passe actuel')).toHaveAccessibleDescription('');
  await expect(dialog.getByText('Champ obligatoire')).toHaveCount(2);
  await dialog.getByLabel('Confirmation').fill('Oublie-Moi-1!');
  await expect(dialog.getByLabel('Confirmation')).toHaveAccessibleDescription('');
  await expect(dialog.getByText('Champ obligatoire')).toHaveCount(1);
  await shot(page, 'password-dialog-filled-since');
  await dialog.getByRole('link', { name: 'Annuler' }).click();
  await expect(dialog).toBeHidden();
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  await expect(dialog.getByLabel('Mot de passe actuel')).toHaveValue('');

  // "abc" breaks four rules: all four are said in the dialog, open again on the page it was
  // opened from; nothing typed comes back in the page (decision 046).
  await dialog.getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
  await dialog.getByLabel('Nouveau mot de passe').fill('abc');
  await dialog.getByLabel('Confirmation').fill('abc');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page).toHaveURL(/\/gearboxes$/);
  await expect(dialog.getByText('Minimum 8 caractères, au moins une majuscule, au moins un chiffre, au moins un caractère spécial')).toBeVisible();
  await expect(dialog.getByLabel('Nouveau mot de passe')).toHaveValue('');
  await expect(dialog.getByLabel('Nouveau mot de passe')).toBeFocused();

  // Two passwords that differ are stopped in the browser: nothing is sent, nothing emptied; the
  // dialog says it under the confirmation, in French, as it says the others (walk9), no bubble.
  await dialog.getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
  await dialog.getByLabel('Nouveau mot de passe').fill('Abcdef1!');
  await dialog.getByLabel('Confirmation').fill('Abcdef1?');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(dialog.getByLabel('Confirmation')).toHaveAccessibleDescription('Les mots de passe ne sont pas identiques');
  await expect(dialog.getByText('Les mots de passe ne sont pas identiques')).toBeVisible();
  await expect(dialog.getByLabel('Confirmation')).toBeFocused();
  await expect(page).toHaveURL(/\/gearboxes$/);
  await expect(dialog.getByLabel('Nouveau mot de passe')).toHaveValue('Abcdef1!');
  await shot(page, 'password-dialog-differ');

  // A wrong current password changes nothing and says so beside the field, in the dialog.
  await dialog.getByLabel('Mot de passe actuel').fill('Pas-Le-Bon-1!');
  await dialog.getByLabel('Nouveau mot de passe').fill('Commercial-2027!');
  await dialog.getByLabel('Confirmation').fill('Commercial-2027!');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page).toHaveURL(/\/gearboxes$/);
  await expect(dialog.getByLabel('Mot de passe actuel')).toHaveAccessibleDescription('Mot de passe actuel incorrect');
  await expect(dialog.getByLabel('Mot de passe actuel')).toBeFocused();
  // Annuler closes it, on the same page.
  await dialog.getByRole('link', { name: 'Annuler' }).click();
  await expect(page).toHaveURL(/\/gearboxes$/);
  await expect(dialog).toBeHidden();

  await changePasswordInDialog(page, DEMO_PASSWORD, 'Commercial-2027!');
  await signOut(page);
  await signIn(page, 'elodie.roux@demo.local', 'Commercial-2027!');
  await changePasswordInDialog(page, 'Commercial-2027!', DEMO_PASSWORD);
});

test('the invitation asks for the terms and two equal passwords before it posts', async ({ browser }) => {
  // An admin adds a colleague (the users page's form), who gets the «set your password» link.
  const admin = await browser.newContext({ storageState: storageState('app_admin'), javaScriptEnabled: false });
  const adminPage = await admin.newPage();
  await adminPage.goto('/users?ajouter=');
  const add = adminPage.getByRole('region', { name: 'Nouvel utilisateur' });
  await add.getByLabel('Nom').fill('Inès Invitée');
  await add.getByLabel('E-mail').fill('ines.invitee@demo.local');
  await add.getByRole('button', { name: 'Ajouter' }).click();
  await expect(adminPage.getByRole('status').filter({ hasText: 'Utilisateur ajouté' })).toBeVisible();

  const context = await browser.newContext();
  const page = await context.newPage();
  await openMailLink(page, verifyLinkOf(lastMailTo('ines.invitee@demo.local')), 'Inès Invitée');
  await expect(page).toHaveURL(/\/set-password$/);
  const password = page.locator('input[name=password]');
  const confirmation = page.getByLabel('Confirmation du mot de passe');
  const terms = page.getByRole('checkbox', { name: "J'accepte les conditions d'utilisation" });
  await password.fill('Invitee-2027!');
  await confirmation.fill('Invitee-2027!');
  // Terms unticked: the browser stops the post, the passwords stay.
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  expect(await terms.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true);
  await expect(password).toHaveValue('Invitee-2027!');
  await terms.check();
  await confirmation.fill('Invitee-2028!');
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  expect(await confirmation.evaluate((input: HTMLInputElement) => input.validationMessage)).toBe('Les mots de passe ne sont pas identiques');
  await expect(password).toHaveValue('Invitee-2027!');
  await confirmation.fill('Invitee-2027!');
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Mot de passe enregistré' })).toBeVisible();
  await context.close();
  // The colleague leaves: the users screen keeps its demo count for the other specs.
  await adminPage.goto('/users?recherche=ines.invitee');
  await adminPage.getByRole('button', { name: 'Actions : Inès Invitée' }).click();
  await adminPage.getByRole('link', { name: 'Supprimer : Inès Invitée' }).click();
  await adminPage.getByRole('button', { name: 'Supprimer définitivement' }).click();
  await expect(adminPage.getByRole('status').filter({ hasText: 'Utilisateur supprimé' })).toBeVisible();
  await admin.close();
});
