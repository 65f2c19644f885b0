// SPEC §2.8: the gearbox models of the technical dossiers (list, creation, general data).
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';

const rows = (page: Page) => page.getByRole('table').getByRole('rowheader');

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('searches and filters the models, all in the URL', async ({ page }) => {
    await page.goto('/gearboxes');
    await expect(page.getByText('9 modèles')).toBeVisible();
    await page.getByLabel('Type').selectOption('double_clutch');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect(page).toHaveURL(/\/gearboxes\?recherche=&type=double_clutch&modele=&annee=$/);
    await expect(rows(page)).toHaveText(['Getrag 6DCT450', 'VW DQ200 0AM', 'VW DQ250 02E']);
    // By model: that one (and the models derived from it).
    await page.getByLabel('Modèle', { exact: true }).selectOption({ label: 'VW DQ200 0AM' });
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect(page).toHaveURL(/modele=[0-9a-f-]{36}/);
    await expect(rows(page)).toHaveText(['VW DQ200 0AM']);
    await page.goto('/gearboxes?annee=2012&recherche=zf');
    // The 6HP26 ended in 2011: only the 8HP45 covers 2012.
    await expect(rows(page)).toHaveText(['ZF 8HP45']);
    await expect(page.getByRole('row', { name: /ZF 8HP45/ }).getByText('depuis 2009')).toBeVisible();
  });

  test('creates a model, with the messages of SPEC §5 and §8, then edits and deletes it', async ({ page }) => {
    await page.goto('/gearboxes');
    await page.getByRole('link', { name: 'Nouveau modèle' }).click();
    await expect(page).toHaveURL(/\/gearbox$/);
    await page.getByLabel('Modèle (obligatoire)').fill('zf 8hp45');
    await page.getByLabel('Type').selectOption('automatic');
    await page.getByLabel('Constructeur').fill('ZF');
    await page.getByLabel('Année de début').fill('2016');
    await page.getByLabel('Année de fin').fill('2014');
    await page.getByLabel('Nombre de rapports').fill('huit');
    await page.getByRole('button', { name: 'Créer le modèle' }).click();
    await expect(page.getByText('Année invalide')).toBeVisible();
    await expect(page.getByText('Nombre invalide')).toBeVisible();
    await expect(page.getByLabel('Constructeur')).toHaveValue('ZF');

    await page.getByLabel('Année de fin').fill('');
    await page.getByLabel('Nombre de rapports').fill('8');
    await page.getByRole('button', { name: 'Créer le modèle' }).click();
    await expect(page.getByText('Modèle non disponible')).toBeVisible();

    await page.getByLabel('Modèle (obligatoire)').fill('ZF 8HP70');
    await page.getByLabel('Nom commercial').fill('8HP');
    await page.getByRole('button', { name: 'Créer le modèle' }).click();
    await expect(page).toHaveURL(/\/gearbox\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: 'ZF 8HP70' })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Modèle créé' })).toBeVisible();

    await page.getByLabel('Année de fin').fill('2022');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Modèle mis à jour' })).toBeVisible();
    await expect(page.getByLabel('Année de fin')).toHaveValue('2022');

    await page.getByRole('link', { name: 'Supprimer le modèle' }).click();
    await expect(page.getByText('Supprimer le modèle ZF 8HP70 ?')).toBeVisible();
    await expect(page.getByText('Cette action est irréversible.')).toBeVisible();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page).toHaveURL(/\/gearboxes$/);
    await expect(page.getByRole('status').filter({ hasText: 'Modèle supprimé' })).toBeVisible();
    await expect(page.getByText('9 modèles')).toBeVisible();
  });
});

test.describe('a commercial', () => {
  test.use({ storageState: storageState('commercial') });
  test('reads a dossier and finds no edit control', async ({ page }) => {
    await page.goto('/gearboxes');
    await expect(page.getByRole('link', { name: 'Nouveau modèle' })).toHaveCount(0);
    await page.getByRole('link', { name: 'Jatco JF011E' }).click();
    await expect(page.getByRole('heading', { name: 'Jatco JF011E' })).toBeVisible();
    await expect(page.getByLabel('Nom commercial')).toHaveValue('CVT Xtronic');
    await expect(page.getByLabel('Nom commercial')).toHaveAttribute('readonly', '');
    await expect(page.getByRole('button', { name: 'Enregistrer' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Supprimer le modèle' })).toHaveCount(0);
  });
});

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic') });
  test('cannot reach the creation screen', async ({ page }) => {
    await page.goto('/gearbox');
    await expect(page).toHaveURL(/\/repair-orders$/);
  });
});

test.describe('codes of a dossier', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('a diagnostician adds doctor and gearbox codes, refused when taken or in use', async ({ page }) => {
    await page.goto('/gearboxes?recherche=6HP26');
    await page.getByRole('link', { name: 'ZF 6HP26' }).click();
    await page.getByRole('navigation', { name: 'Onglets du dossier' }).getByRole('link', { name: 'Codes Doctor et codes boîte' }).click();
    await expect(page).toHaveURL(/onglet=codes$/);
    // The demo's own codes of the 6HP26.
    await expect(page.getByRole('article', { name: /^Code Doctor / })).toHaveCount(2);

    const form = page.getByRole('region', { name: 'Nouveau code Doctor' });
    await form.getByRole('button', { name: 'Ajouter le code Doctor' }).click();
    await expect(form.getByText('Champ obligatoire')).toBeVisible();
    await form.getByLabel('Code Doctor').fill('GA6HP26Z-1');
    await form.getByLabel('Moteur').fill('3.0 V6 TDI');
    await form.getByRole('button', { name: 'Ajouter le code Doctor' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Code ajouté' })).toBeVisible();

    const card = page.getByRole('article', { name: 'Code Doctor GA6HP26Z-1' });
    await card.getByLabel('Code boîte (GA6HP26Z-1)').fill('1068 040 015');
    await card.getByRole('button', { name: 'Ajouter' }).click();
    await expect(card.getByRole('list', { name: 'Codes boîte GA6HP26Z-1' }).getByText('1068 040 015')).toBeVisible();

    await form.getByLabel('Code Doctor').fill('ga6hp26z-1');
    await form.getByRole('button', { name: 'Ajouter le code Doctor' }).click();
    await expect(form.getByText('Code déjà existant')).toBeVisible();
    await expect(form.getByLabel('Moteur')).toHaveValue('');

    await page.getByRole('link', { name: 'Supprimer GA6HP26Z-1' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Code utilisé' })).toBeVisible();
    // Refused at the tab's address, not the form's action (decision 039).
    await expect(page).toHaveURL(/\/gearbox\/[0-9a-f-]{36}\?onglet=codes$/);
    await page.getByRole('link', { name: 'Supprimer 1068 040 015' }).click();
    await expect(page.getByText('Supprimer le code 1068 040 015 ?')).toBeVisible();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Code supprimé' })).toBeVisible();
    await page.getByRole('link', { name: 'Supprimer GA6HP26Z-1' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Code supprimé' })).toBeVisible();
    await expect(page.getByRole('article', { name: /^Code Doctor / })).toHaveCount(2);
    await expect(page.getByRole('article', { name: 'Code Doctor GA6HP26Z-1' })).toHaveCount(0);
  });
});

test.describe('error codes of a dossier', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('lists the codes, adds one in capitals, refuses a duplicate and deletes after confirmation', async ({ page }) => {
    await page.goto('/gearboxes?recherche=DQ200');
    await page.getByRole('link', { name: 'VW DQ200 0AM' }).click();
    await page.getByRole('navigation', { name: 'Onglets du dossier' }).getByRole('link', { name: 'Codes défaut' }).click();
    await expect(page).toHaveURL(/onglet=codes-defaut$/);
    await expect(page.getByRole('rowheader')).toHaveText(['P0841', 'P0868', 'P17BF', 'P189C']);

    const form = page.getByRole('region', { name: 'Nouveau code défaut' });
    await form.getByLabel('Code défaut').fill('p0730');
    await form.getByRole('button', { name: 'Ajouter le code défaut' }).click();
    await expect(form.getByText('Champ obligatoire')).toBeVisible();
    await form.getByLabel('Description').fill('Rapport engagé incorrect');
    await form.getByRole('button', { name: 'Ajouter le code défaut' }).click();
    await expect(page.getByRole('row', { name: /P0730/ })).toBeVisible();

    await form.getByLabel('Code défaut').fill('P17bf');
    await form.getByLabel('Description').fill('Doublon');
    await form.getByRole('button', { name: 'Ajouter le code défaut' }).click();
    await expect(form.getByText('Code déjà existant')).toBeVisible();
    await expect(form.getByLabel('Description')).toHaveValue('Doublon');
    // Refused at the tab's address, at the form, not the form's action (decision 039).
    await expect(page).toHaveURL(/\/gearbox\/[0-9a-f-]{36}\?onglet=codes-defaut#nouveau-code-defaut$/);
    await page.getByRole('link', { name: 'Supprimer P0730' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Code supprimé' })).toBeVisible();
    await expect(page.getByRole('row', { name: /P0730/ })).toHaveCount(0);
  });
});

test.describe('outages of a dossier', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('the dossier, its outage page and the order agree on one history: the closed orders of the model', async ({ page }) => {
    // The demo's ZF 6HP26 has 8 orders, 5 of them closed: P0700 was read on 2 of those.
    await page.goto('/gearboxes?recherche=6HP26');
    await page.getByRole('link', { name: 'ZF 6HP26' }).click();
    const dossier = page.url();
    await page.getByRole('navigation', { name: 'Onglets du dossier' }).getByRole('link', { name: 'Codes défaut' }).click();
    await expect(page.getByRole('row', { name: /P0700/ })).toContainText('40 % (2 / 5 OR)');
    await expect(page.getByRole('row', { name: /P0750/ })).toContainText('20 % (1 / 5 OR)');
    await expect(page.getByRole('row', { name: /P0741/ })).toContainText('0 % (0 / 5 OR)');
    await page.goto(`${dossier}?onglet=pannes`);
    const row = page.getByRole('row', { name: /Carter-filtre/ });
    await expect(row).toContainText('40 % (2 / 5 OR)');
    await expect(row).toContainText('175\u202f000 km');
    // The outage's own page says the same, and the dossier's estimate is only its form's value.
    await row.getByRole('link').first().click();
    const stats = page.getByRole('region', { name: 'Statistiques' });
    await expect(stats).toContainText('Sur les 5 OR clôturés de ce modèle.');
    await expect(stats).toContainText('40 % (2 / 5 OR)');
    await expect(stats).toContainText('175\u202f000 km');
    await expect(page.getByLabel("Taux d'occurrence estimé (%)")).toHaveValue('12');
    // And so does an order of that model, in its technical information.
    await page.goto('/repair-orders?recherche=OR-2026-0649');
    await page.getByRole('link', { name: 'OR-2026-0649', exact: true }).click();
    await page.getByRole('navigation', { name: "Onglets de l'ordre de réparation" }).getByRole('link', { name: 'Informations techniques' }).click();
    await page.getByRole('navigation', { name: 'Informations techniques' }).getByRole('link', { name: 'Pannes connues' }).click();
    await expect(page.getByRole('table', { name: 'Pannes connues' }).getByRole('row', { name: /Carter-filtre/ })).toContainText('40 % (2 / 5 OR)');
  });

  test('picks component and type from the base, adds a missing one in place, and protects what is in use', async ({ page }) => {
    await page.goto('/gearboxes?recherche=6DCT450');
    await page.getByRole('link', { name: 'Getrag 6DCT450' }).click();
    await page.getByRole('navigation', { name: 'Onglets du dossier' }).getByRole('link', { name: 'Pannes identifiées' }).click();
    await expect(page.getByRole('table').getByRole('rowheader')).toHaveCount(4);
    await page.getByRole('link', { name: 'Nouvelle panne' }).click();

    await page.getByLabel('Composant').fill('Fourchette de sélection');
    await page.getByLabel('Type de panne').fill('Usure');
    await page.getByLabel("Taux d'occurrence estimé (%)").fill('12');
    await page.getByLabel('Kilométrage moyen estimé (km)').fill('135000');
    await page.getByRole('button', { name: 'Enregistrer la panne' }).click();
    await expect(page.getByText('Cet item ne fait pas partie de la base de donnée')).toBeVisible();
    await expect(page.getByLabel('Composant')).toHaveValue('Fourchette de sélection');
    await page.getByLabel("Ajouter à la base les éléments qui n'y sont pas encore").check();
    await page.getByRole('button', { name: 'Enregistrer la panne' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Panne ajoutée' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Fourchette de sélection — Usure' })).toBeVisible();

    // The model now has an outage: it cannot be deleted, and says why (the demo stock has 8 of its boxes on the racks and 3 gone).
    await page.getByRole('link', { name: /Getrag 6DCT450/ }).click();
    await page.getByRole('link', { name: 'Supprimer le modèle' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Suppression impossible' }).getByRole('listitem')).toHaveText([
      'ordres de réparation (5)',
      'procédures de réparation (3)',
      'documents techniques (4)',
      'hypothèses de panne (5)',
      'boîtes en stock (8)',
      'historique du stock (3)',
    ]);

    // The new component is in the base, and in use.
    await page.goto('/symptoms-conditions-base?onglet=composants');
    await page.getByRole('link', { name: 'Supprimer « Fourchette de sélection »' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Cet item est utilisé' })).toBeVisible();
  });
});

test.describe('a commercial reading an outage', () => {
  test.use({ storageState: storageState('commercial') });
  test('sees it read-only', async ({ page }) => {
    await page.goto('/gearboxes?recherche=DQ200');
    await page.getByRole('link', { name: 'VW DQ200 0AM' }).click();
    await page.getByRole('link', { name: 'Pannes identifiées' }).click();
    await page.getByRole('link', { name: 'Double embrayage (K1/K2)' }).click();
    await expect(page.getByLabel('Composant')).toHaveAttribute('readonly', '');
    await expect(page.getByLabel('Description')).toHaveValue(/Embrayage sec usé/);
    await expect(page.getByRole('button')).not.toContainText(['Enregistrer']);
    await expect(page.getByRole('link', { name: 'Nouvelle panne' })).toHaveCount(0);
  });
});
