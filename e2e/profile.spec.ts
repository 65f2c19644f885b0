import { expect, test } from '@playwright/test';
import { openProfileMenu, storageState } from './support/fixtures.ts';

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('edits name and e-mail from the profile menu', async ({ page }) => {
    await page.goto('/gearboxes');
    await openProfileMenu(page);
    await page.getByRole('button', { name: 'Modifier le nom et l’e-mail' }).click();
    const form = page.getByRole('form', { name: 'Modifier le nom et l’e-mail' });
    await form.getByLabel('Nom').fill('Julien Moreau-Petit');
    await form.getByLabel('E-mail').fill('admin@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(form.getByText('Email non disponible')).toBeVisible();
    await form.getByLabel('E-mail').fill('julien.moreau@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Profil mis à jour' })).toBeVisible();
    await page.reload();
    await openProfileMenu(page);
    const menu = page.getByRole('group', { name: 'Menu du profil' });
    await expect(menu.getByText('Julien Moreau-Petit')).toBeVisible();
    await expect(menu.getByText('julien.moreau@demo.local')).toBeVisible();

    await page.getByRole('button', { name: 'Modifier le nom et l’e-mail' }).click();
    await form.getByLabel('Nom').fill('Julien Moreau');
    await form.getByLabel('E-mail').fill('diagnostic@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(menu.getByText('diagnostic@demo.local')).toBeVisible();
  });

  test('keeps what was typed when the name is emptied', async ({ page }) => {
    await page.goto('/repair-orders');
    await openProfileMenu(page);
    await page.getByRole('button', { name: 'Modifier le nom et l’e-mail' }).click();
    const form = page.getByRole('form', { name: 'Modifier le nom et l’e-mail' });
    await form.getByLabel('Nom').fill('');
    await form.getByLabel('E-mail').fill('nouvelle-adresse@demo.local');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(form.getByText('Champ obligatoire')).toBeVisible();
    await expect(form.getByLabel('E-mail')).toHaveValue('nouvelle-adresse@demo.local');
  });
});

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic') });

  test('has no pencil, and the API refuses the edit', async ({ page }) => {
    await page.goto('/repair-orders');
    await openProfileMenu(page);
    await expect(page.getByRole('group', { name: 'Menu du profil' }).getByText('Karim Benali')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Modifier le nom et l’e-mail' })).toHaveCount(0);
    const answer = await page.evaluate(async () => {
      const { accessToken } = await (await fetch('/api/session/token')).json();
      const me = JSON.parse(atob(accessToken.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).sub;
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ query: 'mutation($id: uuid!) { updateUser(pk_columns: { id: $id }, _set: { displayName: "Pirate" }) { displayName } }', variables: { id: me } }),
      });
      return (await res.json()).errors[0].extensions.code;
    });
    expect(answer).toBe('forbidden');
  });
});
