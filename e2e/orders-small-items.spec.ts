// Issue 28, item 6, the order side: a list says which filter of its URL it ignored; the fields of a
// measure filled from the dossier say «(automatique)»; an order with nothing recorded has nothing
// to compare with; a made-up condition is refused on the form.
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';
import { expect, test } from './support/test.ts';

const toast = (page: Page, text: string | RegExp) => expect(page.getByRole('status').filter({ hasText: text })).toBeVisible();

test.describe.configure({ mode: 'serial' });
test.use({ storageState: storageState('diagnostician') });

test('a list says which filter of its address it ignored, and still shows its rows', async ({ page }) => {
  await page.goto('/repair-orders?du=32/13/2026&categorie=gearbox_only');
  await expect(page.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveText("Filtre ignoré : la date « 32/13/2026 » n'est pas valide.");
  await expect(page.getByRole('table', { name: 'Ordres de réparation' }).getByRole('row')).not.toHaveCount(1);
  // The ignored value stays in its field, to be corrected rather than typed again (walk31 F9).
  await expect(page.getByLabel('Ouvert du')).toHaveValue('32/13/2026');
  await page.goto('/gearboxes?annee=abcd');
  await expect(page.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveText("Filtre ignoré : l'année « abcd » n'est pas valide.");
  await expect(page.getByLabel('Année couverte')).toHaveValue('abcd');
  await expect(page.getByRole('row', { name: /ZF 8HP45/ })).toBeVisible();
  // A valid filter says nothing.
  await page.goto('/gearboxes?annee=2015');
  await expect(page.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveCount(0);
});

test('a bookmarked page past the end of the list shows the last page, and says so', async ({ page }) => {
  await page.goto('/repair-orders');
  const last = Number((await page.getByText(/^Page 1 sur \d+$/).textContent())!.match(/sur (\d+)/)![1]);
  await page.goto('/repair-orders?page=99');
  await expect(page.getByRole('status').filter({ hasText: 'La page 99' })).toHaveText(
    `La page 99 n'existe plus : la liste compte ${last} pages, voici la dernière.`,
  );
  // A page is not a filter: nothing says «Filtre ignoré».
  await expect(page.getByText('Filtre ignoré')).toHaveCount(0);
  await expect(page.getByText(`Page ${last} sur ${last}`)).toBeVisible();
  await expect(page.getByRole('table', { name: 'Ordres de réparation' }).getByRole('row')).not.toHaveCount(1);
  // The models' list the same way.
  await page.goto('/gearboxes?page=99');
  await expect(page.getByRole('status').filter({ hasText: 'La page 99' })).toHaveText(
    /^La page 99 n'existe plus : la liste (compte \d+ pages, voici la dernière|tient sur une seule page)\.$/,
  );
  await expect(page.getByRole('row', { name: /8HP45/ }).first()).toBeVisible();
  // And the stock's.
  await page.goto('/stock?page=99');
  await expect(page.getByRole('status').filter({ hasText: 'La page 99' })).toHaveText(
    /^La page 99 n'existe plus : la liste (compte \d+ pages, voici la dernière|tient sur une seule page)\.$/,
  );
  await expect(page.getByText('Page 99 sur')).toHaveCount(0);
});

test('an activity page says which filter of its address it ignored, and still shows its events', async ({ page, browser }) => {
  await page.goto('/repair-orders?recherche=OR-2026-0601');
  const order = (await page.getByRole('link', { name: 'OR-2026-0601', exact: true }).getAttribute('href'))!;
  await page.goto(`${order}/activity?action=bidon&page=abc`);
  await expect(page.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveText(
    ["Filtre ignoré : la page « abc » n'est pas valide.", "Filtre ignoré : l'action « bidon » n'est pas valide."].join(''),
  );
  await expect(page.getByRole('table', { name: 'Activité' }).getByRole('row')).not.toHaveCount(1);
  await page.goto(`${order}/activity?action=changed`);
  await expect(page.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveCount(0);
  // A dossier's, and (for an admin) a user's.
  await page.goto('/gearboxes?recherche=8HP45');
  await page.getByRole('link', { name: 'ZF 8HP45' }).first().click();
  await page.goto(`${new URL(page.url()).pathname}/activity?action=%3Cscript%3E`);
  await expect(page.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveText("Filtre ignoré : l'action « <script> » n'est pas valide.");
  const admin = await browser.newContext({ storageState: storageState('app_admin') });
  const adminPage = await admin.newPage();
  await adminPage.goto('/users?recherche=diagnostic%40demo');
  const activity = (await adminPage.locator('main a[href$="/activity"]').first().getAttribute('href'))!;
  await adminPage.goto(`${activity}?page=0`);
  await expect(adminPage.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveText("Filtre ignoré : la page « 0 » n'est pas valide.");
  await admin.close();
});

test('an order with nothing recorded has nothing to compare; its measures from the dossier say «(automatique)»; a made-up condition is refused', async ({
  page,
}) => {
  await page.goto('/repair-order');
  await page.getByLabel("N° d'OR").fill('OR-E2E-PETITS');
  await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Véhicule complet' });
  await page.getByLabel('Modèle de boîte').selectOption({ label: 'ZF 8HP45' });
  await page.getByRole('button', { name: "Créer l'OR" }).click();
  await toast(page, 'OR ajouté');
  const orderUrl = new URL(page.url()).pathname;

  await page.goto(`${orderUrl}/diagnostic?onglet=mesures`);
  const outages = page.getByRole('complementary', { name: 'Pannes possibles' });
  await expect(outages).toContainText("Rien à comparer pour l'instant");
  await expect(outages).not.toContainText('similaire');

  await page.getByLabel('Oui, des mesures ont été prises').check();
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await toast(page, 'Mesures mises à jour');
  await page.getByRole('button', { name: 'Ajouter les mesures du dossier' }).click();
  await toast(page, /mesures? du dossier ajoutées?/);
  await page.getByRole('link', { name: 'Pression de ligne au ralenti (P)', exact: true }).click();
  for (const label of ['Nom de la mesure', 'Valeur minimale', 'Valeur maximale', 'Unité', 'Description'])
    await expect(page.getByLabel(`${label} (automatique)`, { exact: true })).toBeVisible();
  // What the mechanic types is not automatic.
  await expect(page.getByLabel('Valeur mesurée', { exact: true })).toBeVisible();

  // A condition the base does not hold is refused on the form, what was typed kept.
  await page.goto(`${orderUrl}/diagnostic?onglet=symptomes`);
  await page.getByRole('link', { name: 'Ajouter un symptôme' }).click();
  await page.getByLabel('Symptôme').fill('Patinage');
  await page.getByLabel('Charge accélérateur').fill('Charge lunaire');
  await page.getByLabel('Phase de fonctionnement').fill('En apesanteur');
  await page.getByLabel('Autre condition').fill('Sous la pluie');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  // Every made-up value at once, each said on its own field (decision 045), all that was typed kept.
  await expect(page.getByText('Cet item ne fait pas partie de la base de donnée')).toHaveCount(3);
  for (const [label, value] of [
    ['Charge accélérateur', 'Charge lunaire'],
    ['Phase de fonctionnement', 'En apesanteur'],
    ['Autre condition', 'Sous la pluie'],
  ]) {
    await expect(page.getByLabel(label)).toHaveValue(value);
    await expect(page.getByLabel(label)).toHaveAccessibleDescription(/Cet item ne fait pas partie de la base de donnée/);
  }
  await expect(page.getByLabel('Symptôme')).toHaveValue('Patinage');
  await page.getByLabel('Charge accélérateur').fill('Pleine charge');
  await page.getByLabel('Autre condition').fill('');
  await page.getByLabel('Phase de fonctionnement').fill('en accélération franche');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await toast(page, 'Symptôme enregistré');
  await expect(page.getByText('Phase de fonctionnement : En accélération franche')).toBeVisible();

  // Leaving the demo as it was.
  await page.goto(`${orderUrl}?supprimer`);
  await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
  await toast(page, 'OR supprimé');
});
