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
      const res = await fetch('/api/session/profile', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ displayName: 'Pirate', email: 'pirate@demo.local' }),
      });
      return { status: res.status, body: await res.json() };
    });
    expect(answer).toEqual({ status: 403, body: { status: 403, error: 'forbidden', message: 'Not allowed to edit the profile' } });
  });
});
