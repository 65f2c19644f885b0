// SPEC §2.7, issue 7 (first part): opening a repair order, finding it in the list, its tabs; a
// commercial reads it and edits nothing.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';

const NUMBER = 'OR-E2E-0001';
const toast = (page: Page, text: string) => expect(page.getByRole('status').filter({ hasText: text })).toBeVisible();

test.describe.configure({ mode: 'serial' });

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('opens an order: French messages, nothing lost, the number unique', async ({ page }) => {
    await page.goto('/repair-orders');
    await page.getByRole('link', { name: 'Nouvel OR' }).click();
    await expect(page).toHaveURL(/\/repair-order$/);
    // The order's tabs from the start (SPEC §2.7); those that need the order open once it exists.
    const tabs = page.getByRole('navigation', { name: "Onglets de l'ordre de réparation" });
    await expect(tabs.getByRole('link')).toHaveText(['Données générales']);
    await expect(tabs.locator('[aria-disabled="true"]')).toHaveCount(7);
    await expect(page.getByText("Les autres onglets s'ouvrent une fois l'OR créé.")).toBeVisible();
    await page.getByLabel("N° d'OR").fill(NUMBER.toLowerCase());
    await page.getByLabel('Marque').fill('BMW');
    await page.getByLabel('Année de construction').fill('199');
    await page.getByLabel('Kilométrage (km) 1').fill('-5');
    await page.getByLabel('Intervention 1').fill('Vidange boîte');
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await expect(page.getByLabel('Année de construction')).toHaveAccessibleDescription('Année invalide');
    await expect(page.getByLabel('Kilométrage (km) 1')).toHaveAccessibleDescription('Nombre invalide');
    await expect(page.locator('#or-gearboxModelId-error')).toHaveText('Champ obligatoire');
    await expect(page.getByLabel('Marque')).toHaveValue('BMW');
    await expect(page.getByLabel('Intervention 1')).toHaveValue('Vidange boîte');

    await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Boîte seule' });
    await page.getByLabel('Modèle de boîte').selectOption({ label: 'ZF 8HP45' });
    await page.getByLabel('Code boîte').fill('1087 010 068');
    await page.getByLabel('Modèle du véhicule').fill('520d xDrive');
    await page.getByLabel('Année de construction').fill('2014');
    await page.getByLabel('Énergie').selectOption({ label: 'Diesel' });
    await page.getByLabel('Kilométrage', { exact: true }).selectOption({ label: '150 000 à 200 000 km' });
    await page.getByLabel('Kilométrage (km) 1').fill('120000');
    await page.getByLabel('Pièces en cause').fill('Mécatronique\nCarter-filtre');
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await toast(page, 'OR ajouté');
    await expect(page.getByRole('heading', { name: NUMBER })).toBeVisible();
    await expect(page.getByLabel('Pièces en cause')).toHaveValue('Mécatronique\nCarter-filtre');
    await page.getByRole('link', { name: "Historique d'intervention" }).click();
    await expect(page.getByLabel('Kilométrage (km) 1')).toHaveValue('120\u202f000');
    await expect(page.getByLabel('Intervention 1')).toHaveValue('Vidange boîte');

    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill(NUMBER);
    await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Boîte seule' });
    await page.getByLabel('Modèle de boîte').selectOption({ label: 'ZF 8HP45' });
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await expect(page.getByLabel("N° d'OR")).toHaveAccessibleDescription("Numéro de l'ordre de réparation non disponible");
  });

  test('finds it by number, gearbox code or model, with filters and sort in the URL', async ({ page }) => {
    await page.goto('/repair-orders');
    await page.getByRole('searchbox', { name: 'Rechercher' }).fill('e2e-00');
    await page.getByRole('combobox', { name: "Catégorie d'intervention" }).selectOption({ label: 'Boîte seule' });
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect(page).toHaveURL(/recherche=e2e-00&du=&au=&categorie=gearbox_only/);
    const rows = page.getByRole('table', { name: 'Ordres de réparation' }).getByRole('rowheader');
    await expect(rows.getByRole('link')).toHaveText([NUMBER]);
    await page.goto('/repair-orders?recherche=1087 010 068');
    await expect(rows.filter({ hasText: NUMBER })).toHaveCount(1);
    await page.getByRole('link', { name: "Trier par N° d'OR" }).click();
    await expect(page).toHaveURL(/tri=numero/);
    await expect(page.getByRole('columnheader', { name: /N° d'OR/ })).toHaveAttribute('aria-sort', 'ascending');
    const numbers = await rows.allTextContents();
    expect(numbers).toEqual([...numbers].sort());
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  });

  test('reads the technical information of its model, one tab each (SPEC §2.7)', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await page.getByRole('navigation', { name: "Onglets de l'ordre de réparation" }).getByRole('link', { name: 'Informations techniques' }).click();
    await expect(page).toHaveURL(/onglet=informations-techniques$/);
    const tabs = page.getByRole('navigation', { name: 'Informations techniques' });
    await expect(tabs.getByRole('link')).toHaveText(['Courbes de référence', 'Informations constructeur', 'Pannes connues', 'Boîtes compatibles']);
    await expect(page.getByRole('img', { name: /^Courbe « / })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Pannes connues' })).toHaveCount(0);
    await tabs.getByRole('link', { name: 'Pannes connues' }).click();
    await expect(page).toHaveURL(/onglet=informations-techniques&vue=pannes$/);
    await expect(page.getByRole('table', { name: 'Pannes connues' }).getByRole('rowheader').first()).toBeVisible();
    await tabs.getByRole('link', { name: 'Boîtes compatibles' }).click();
    await page.getByLabel('Code BVA').fill('');
    await page.getByRole('button', { name: 'Rechercher' }).click();
    await expect(page.getByText('Le code BVA est nécessaire pour la recherche.')).toBeVisible();
    await page.getByLabel('Code BVA').fill('8HP');
    await page.getByRole('button', { name: 'Rechercher' }).click();
    await expect(page.getByRole('table', { name: 'Boîtes compatibles' }).getByRole('rowheader')).toContainText(['ZF 8HP45']);
  });

  test('a refusal beside a field below the fold takes the eye there: the field is focused (walk13 F5)', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    const comment = page.getByLabel('Commentaire', { exact: true });
    // The browser stops typing at 2,000 characters; a pasted-in longer text is refused all the same.
    await expect(comment).toHaveAttribute('maxlength', '2000');
    await comment.evaluate((field: HTMLTextAreaElement) => {
      field.removeAttribute('maxlength');
      field.value = 'x'.repeat(2100);
    });
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText('2000 caractères au plus')).toBeVisible();
    await expect(comment).toBeFocused();
    await expect(comment).toBeInViewport();
  });
});

test.describe('a commercial', () => {
  test.use({ storageState: storageState('commercial') });
  test('reads the order and edits nothing', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await expect(page.getByRole('link', { name: 'Nouvel OR' })).toHaveCount(0);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await expect(page.getByLabel('Marque')).toHaveValue('BMW');
    await expect(page.getByLabel('Marque')).toHaveAttribute('readonly', '');
    await expect(page.getByLabel('Modèle de boîte')).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Enregistrer' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: "Supprimer l'OR" })).toHaveCount(0);
    await page.goto('/repair-order');
    await expect(page).toHaveURL(/\/repair-orders$/);
  });
});

test.describe('a diagnostician again', () => {
  test.use({ storageState: storageState('diagnostician') });
  test('is offered no deletion of a closed order, and a forged one is refused in French', async ({ page }) => {
    await page.goto('/repair-orders?tri=statut&ordre=asc');
    const closedRow = page.getByRole('row').filter({ hasText: 'Clôturé' }).first();
    await expect(closedRow).toBeVisible();
    const number = (await closedRow.getByRole('rowheader').getByRole('link').textContent())!.trim();
    const href = (await closedRow.getByRole('rowheader').getByRole('link').getAttribute('href'))!;
    await expect(closedRow.getByRole('link', { name: `Supprimer l'OR ${number}` })).toHaveCount(0);
    // Its confirmation is not offered either, by its address.
    const id = href.split('/').pop()!;
    await page.goto(`/repair-orders?confirmer=${id}`);
    await expect(page.getByRole('button', { name: 'Supprimer définitivement' })).toHaveCount(0);
    // A post made by hand is refused: back at the list's address, which says why, and the order stays
    // (decision 039; the API answers its own 409).
    const answer = await page.request.post('/repair-orders?action=supprimer', { form: { id }, maxRedirects: 0 });
    expect(answer.status()).toBe(303);
    expect(answer.headers().location).toBe('/repair-orders');
    const shown = await page.request.get('/repair-orders');
    expect(shown.status()).toBe(200);
    expect(await shown.text()).toContain('Cet ordre de réparation est clôturé : il ne peut pas être supprimé.');
    await page.goto(href);
    await expect(page.getByRole('heading', { name: number, level: 1 })).toBeVisible();
    // An order in progress still offers it.
    await page.goto('/repair-orders?tri=statut&ordre=desc');
    await expect(
      page
        .getByRole('row')
        .filter({ hasText: 'En cours' })
        .first()
        .getByRole('link', { name: /^Supprimer l'OR / }),
    ).toBeVisible();
  });
  test('deletes the order after a confirmation', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: `Supprimer l'OR ${NUMBER}` }).click();
    await expect(page.getByText(`Supprimer l'ordre de réparation ${NUMBER} ?`)).toBeVisible();
    await expect(page.getByText('Cette action est irréversible.')).toBeVisible();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await toast(page, 'OR supprimé');
    await expect(page.getByText('Aucun ordre de réparation ne correspond à ces critères.')).toBeVisible();
  });
});
