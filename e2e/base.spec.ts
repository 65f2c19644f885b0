// SPEC §2.9: the symptoms and conditions base, kept by admins and diagnosticians.
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';

const addForm = (page: Page) => page.getByRole('region', { name: /Nouvel élément/ });
const list = (page: Page, name: string) => page.getByRole('list', { name });

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('moves between the four lists, each with its own URL', async ({ page }) => {
    await page.goto('/symptoms-conditions-base');
    const tabs = page.getByRole('navigation', { name: 'Listes de la base' });
    await expect(tabs.getByRole('link')).toHaveText(['Conditions', 'Symptômes', 'Composants', 'Types de panne']);
    await expect(tabs.getByRole('link', { name: 'Conditions' })).toHaveAttribute('aria-current', 'page');
    await expect(list(page, 'Conditions').getByText('Moteur froid')).toBeVisible();
    await tabs.getByRole('link', { name: 'Types de panne' }).click();
    await expect(page).toHaveURL(/onglet=types-de-panne$/);
    await expect(list(page, 'Types de panne').getByText('Grippage')).toBeVisible();
    await page.getByRole('searchbox', { name: 'Rechercher dans la liste' }).fill('élec');
    await page.getByRole('button', { name: 'Rechercher' }).click();
    await expect(page).toHaveURL(/onglet=types-de-panne&recherche=%C3%A9lec$/);
    await expect(list(page, 'Types de panne').getByRole('listitem')).toHaveText([/Défaut électrique/]);
  });

  test('adds, renames and deletes an item, refusing duplicates and empty names', async ({ page }) => {
    await page.goto('/symptoms-conditions-base?onglet=composants');
    await addForm(page).getByRole('button', { name: 'Ajouter' }).click();
    await expect(addForm(page).getByText('Champ obligatoire')).toBeVisible();
    await addForm(page).getByLabel('Nom').fill('mécatronique');
    await addForm(page).getByRole('button', { name: 'Ajouter' }).click();
    await expect(addForm(page).getByText('Cet item existe déjà')).toBeVisible();
    await expect(addForm(page).getByLabel('Nom')).toHaveValue('mécatronique');

    await addForm(page).getByLabel('Nom').fill('Solénoïde de verrouillage');
    await addForm(page).getByRole('button', { name: 'Ajouter' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Élément ajouté' })).toBeVisible();
    const composants = list(page, 'Composants');
    await expect(composants.getByText('Solénoïde de verrouillage')).toBeVisible();

    await page.getByRole('link', { name: 'Renommer « Solénoïde de verrouillage »' }).click();
    const rename = composants.getByLabel('Renommer « Solénoïde de verrouillage »');
    await rename.fill('Pompe à huile');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText('Cet item existe déjà')).toBeVisible();
    await expect(composants.getByLabel('Renommer « Solénoïde de verrouillage »')).toHaveValue('Pompe à huile');
    await composants.getByLabel('Renommer « Solénoïde de verrouillage »').fill('Solénoïde de verrouillage du convertisseur');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Élément renommé' })).toBeVisible();

    await page.getByRole('link', { name: 'Supprimer « Solénoïde de verrouillage du convertisseur »' }).click();
    await expect(page.getByText('Supprimer « Solénoïde de verrouillage du convertisseur » ?')).toBeVisible();
    await expect(page.getByText('Cette action est irréversible.')).toBeVisible();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Élément supprimé' })).toBeVisible();
    await expect(composants.getByText('Solénoïde de verrouillage du convertisseur')).toHaveCount(0);
  });
});

test.describe('without JavaScript', () => {
  test.use({ storageState: storageState('app_admin'), javaScriptEnabled: false });
  test('an admin adds and deletes a condition', async ({ page }) => {
    await page.goto('/symptoms-conditions-base?onglet=conditions');
    await addForm(page).getByLabel('Nom').fill('Boîte en mode manuel');
    await addForm(page).getByRole('button', { name: 'Ajouter' }).click();
    await expect(list(page, 'Conditions').getByText('Boîte en mode manuel')).toBeVisible();
    await page.getByRole('link', { name: 'Supprimer « Boîte en mode manuel »' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(list(page, 'Conditions').getByText('Boîte en mode manuel')).toHaveCount(0);
  });
});
