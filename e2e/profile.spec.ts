import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { DEMO_PASSWORD, givePasswordIfAsked, lastMailTo, openProfileMenu, signIn, storageState, verifyLinkOf } from './support/fixtures.ts';

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  /** The pencil of the profile menu, then the profile's form (decision 023: no island). */
  async function openProfileForm(page: Page) {
    await openProfileMenu(page);
    await page.getByRole('link', { name: "Modifier le nom et l'e-mail" }).click();
    return page.getByRole('form', { name: "Modifier le nom et l'e-mail" });
  }

  test('edits the name at once, and the e-mail once the new address confirms it', async ({ page }) => {
    await page.goto('/gearboxes');
    let form = await openProfileForm(page);
    await form.getByLabel('Nom').fill('Julien Moreau-Petit');
    await form.getByLabel('E-mail').fill('admin@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    // A sign-in older than five minutes proves the password first (decision 048), and only then
    // hears the address is taken: a token holder learns nothing of other accounts.
    const taken = form.getByText('Email non disponible');
    const proof = form.getByLabel('Mot de passe actuel');
    await expect(taken.or(proof).first()).toBeVisible();
    if (await proof.isVisible()) {
      await proof.fill(DEMO_PASSWORD);
      await form.getByRole('button', { name: 'Enregistrer' }).click();
    }
    await expect(taken).toBeVisible();
    await form.getByLabel('E-mail').fill('julien.moreau@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await givePasswordIfAsked(form);
    // Still on the profile, with the toast; «Retour» leads back where the menu was opened.
    await expect(page).toHaveURL(/\/profile\?retour=%2Fgearboxes$/);
    await expect(page.getByRole('link', { name: 'Retour' })).toHaveAttribute('href', '/gearboxes');
    await expect(page.getByRole('status').filter({ hasText: 'Un lien de confirmation a été envoyé à julien.moreau@demo.local' })).toBeVisible();
    const menu = page.getByRole('group', { name: 'Menu du profil' });
    // The current address keeps the account until the new one confirms, and is told.
    await openProfileMenu(page);
    await expect(menu.getByText('Julien Moreau-Petit')).toBeVisible();
    await expect(menu.getByText('diagnostic@demo.local')).toBeVisible();
    await expect(menu.getByText('En attente de confirmation : julien.moreau@demo.local')).toBeVisible();
    expect(lastMailTo('diagnostic@demo.local')).toContain('julien.moreau@demo.local');

    await page.goto(verifyLinkOf(lastMailTo('julien.moreau@demo.local')));
    // The link lands on the profile, says what it did, and leaves no parameter behind.
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole('status').filter({ hasText: 'Adresse e-mail modifiée' })).toBeVisible();
    await expect(page.getByText('Filtre ignoré')).toHaveCount(0);
    await openProfileMenu(page);
    await expect(menu.getByText('julien.moreau@demo.local')).toBeVisible();

    form = await openProfileForm(page);
    await form.getByLabel('Nom').fill('Julien Moreau');
    await form.getByLabel('E-mail').fill('diagnostic@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    // Signed in by the confirmation link: the current password is asked first (decision 048).
    await expect(form.getByLabel('Mot de passe actuel')).toBeVisible();
    await givePasswordIfAsked(form);
    await expect(page.getByRole('status').filter({ hasText: 'Un lien de confirmation a été envoyé à diagnostic@demo.local' })).toBeVisible();
    await page.goto(verifyLinkOf(lastMailTo('diagnostic@demo.local')));
    await openProfileMenu(page);
    await expect(menu.getByText('diagnostic@demo.local')).toBeVisible();
    await expect(menu.getByText('Julien Moreau', { exact: true })).toBeVisible();
  });

  test('names no section in the tablet header on the account pages', async ({ page }) => {
    await page.setViewportSize({ width: 768, height: 1024 });
    const menu = page.locator('[popovertarget="nav-menu"]');
    for (const path of ['/profile', '/profile/security', '/profile/tokens']) {
      await page.goto(path);
      await expect(menu).toHaveText('Menu');
    }
    await page.goto('/gearboxes');
    await expect(menu).toContainText('Informations techniques');
  });

  test('keeps what was typed when the name is emptied', async ({ page }) => {
    await page.goto('/repair-orders');
    const form = await openProfileForm(page);
    await form.getByLabel('Nom').fill('');
    await form.getByLabel('E-mail').fill('nouvelle-adresse@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(form.getByText('Champ obligatoire')).toBeVisible();
    await expect(form.getByLabel('E-mail')).toHaveValue('nouvelle-adresse@demo.local');
  });
});

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic') });

  test('reads a masked password, named for a screen reader rather than read out as dots (SPEC 2.5)', async ({ page }) => {
    await page.goto('/repair-orders');
    await openProfileMenu(page);
    await expect(page.getByRole('group', { name: 'Menu du profil' }).getByRole('img', { name: 'Mot de passe masqué' })).toHaveText('••••••••');
  });

  test('has no pencil, and the API refuses the edit', async ({ page }) => {
    await page.goto('/repair-orders');
    await openProfileMenu(page);
    await expect(page.getByRole('group', { name: 'Menu du profil' }).getByText('Karim Benali')).toBeVisible();
    await expect(page.getByRole('link', { name: "Modifier le nom et l'e-mail" })).toHaveCount(0);
    const answer = await page.evaluate(async () => {
      const { accessToken } = await (await fetch('/api/session/token')).json();
      const me = JSON.parse(atob(accessToken.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).sub;
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({
          query: 'mutation($id: uuid!) { updateUser(pk_columns: { id: $id }, _set: { displayName: "Pirate" }) { displayName } }',
          variables: { id: me },
        }),
      });
      return (await res.json()).errors[0].extensions.code;
    });
    expect(answer).toBe('forbidden');
  });
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('edits the name from the profile menu through the profile page, and finds the password page', async ({ page }) => {
    await signIn(page, 'antoine.lefebvre@demo.local');
    await page.goto('/gearboxes?type=automatic');
    await page.locator('[popovertarget="profile-menu"]').click();
    await page.getByRole('link', { name: "Modifier le nom et l'e-mail" }).click();
    await expect(page).toHaveURL(/\/profile\?retour=%2Fgearboxes%3Ftype%3Dautomatic$/);
    // A failed save keeps what was typed.
    await page.getByRole('main').getByRole('textbox', { name: 'Nom (obligatoire)' }).fill('');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('main').getByRole('textbox', { name: 'Nom (obligatoire)' })).toHaveAccessibleDescription('Champ obligatoire');
    await page.getByRole('main').getByRole('textbox', { name: 'Nom (obligatoire)' }).fill('Antoine Lefebvre-Martin');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page).toHaveURL(/\/profile\?retour=%2Fgearboxes%3Ftype%3Dautomatic$/);
    await expect(page.getByRole('status').filter({ hasText: 'Profil mis à jour' })).toBeVisible();
    await expect(page.locator('[popovertarget="profile-menu"]')).toHaveAccessibleName('Antoine Lefebvre-Martin Menu du profil');
    // The password dialog opens without JavaScript too.
    await page.locator('[popovertarget="profile-menu"]').click();
    await page.getByRole('group', { name: 'Menu du profil' }).getByRole('button', { name: 'Modifier', exact: true }).click();
    await expect(page.getByRole('dialog', { name: 'Modifier le mot de passe' }).getByLabel('Mot de passe actuel')).toBeVisible();
  });
});
