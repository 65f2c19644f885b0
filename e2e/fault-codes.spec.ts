// SPEC §2.7, §4, issue 7: the fault code reports of an order — the gearbox allows reading, codes
// from the dossier or new with their conditions, answering "no" discards them after saying so.
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';

const NUMBER = 'OR-E2E-CODES';
const toast = (page: Page, text: string) => expect(page.getByRole('status').filter({ hasText: text })).toBeVisible();

test.describe.configure({ mode: 'serial' });

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('records two fault codes with their conditions, then answers "no" and loses them knowingly', async ({ page }) => {
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill(NUMBER);
    await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Véhicule complet' });
    await page.getByLabel('Modèle de boîte').selectOption({ label: 'VW DQ200 0AM' });
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await toast(page, 'OR ajouté');

    await page.getByRole('link', { name: 'Relevé des codes défaut' }).click();
    await expect(page).toHaveURL(/onglet=codes-defaut$/);
    await page.getByLabel('Oui, les codes ont été lus').check();
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await toast(page, 'Relevé mis à jour');

    await page.getByRole('link', { name: 'Ajouter un code défaut' }).click();
    await page.getByLabel('Code défaut').fill('p17bf');
    // Without a single condition the code is refused, and what was typed stays.
    await page.getByLabel('Commentaire').fill('Vu au démarrage à froid');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('alert').filter({ hasText: "Indiquez au moins une condition d'apparition" })).toBeVisible();
    await expect(page.getByLabel('Code défaut')).toHaveValue('p17bf');
    await expect(page.getByLabel('Commentaire')).toHaveValue('Vu au démarrage à froid');
    await page.getByLabel('Temporalité').selectOption({ label: 'Pendant' });
    await page.getByLabel('Charge accélérateur').fill('Mi-charge');
    await page.getByLabel('Rapport engagé').fill('1');
    await page.getByLabel('Phase de fonctionnement').fill('Au démarrage');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await toast(page, 'Code défaut enregistré');

    // A code the dossier does not know yet asks for its description, and keeps what was typed.
    await page.getByRole('link', { name: 'Ajouter un code défaut' }).click();
    await page.getByLabel('Code défaut').fill('P0562');
    await page.getByLabel('Autre condition').fill('Moteur froid');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByLabel('Description')).toHaveAccessibleDescription(/Décrivez ce code : le dossier du modèle ne le connaît pas encore/);
    await expect(page.getByLabel('Autre condition')).toHaveValue('Moteur froid');
    await page.getByLabel('Description').fill("Tension d'alimentation trop basse");
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await toast(page, 'Code défaut enregistré');
    const codes = page.locator('section[aria-labelledby="releve-codes"] li.card');
    await expect(codes).toHaveCount(2);
    await expect(codes.first()).toContainText('P0562');
    await expect(codes.last()).toContainText('P17BF');
    await expect(codes.last()).toContainText('Charge accélérateur : Mi-charge');

    // The model cannot change any more.
    await page.getByRole('link', { name: 'Données générales' }).click();
    await expect(page.getByText('Le modèle de boîte ne peut plus changer : le diagnostic a commencé.')).toBeVisible();

    await page.getByRole('link', { name: 'Relevé des codes défaut' }).click();
    await page.getByLabel("Non, aucun code n'est disponible").check();
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText("2 codes défaut et leurs conditions d'apparition seront supprimés : P0562, P17BF.")).toBeVisible();
    await page.getByRole('link', { name: 'Annuler' }).click();
    await expect(codes).toHaveCount(2);
    await page.getByLabel("Non, aucun code n'est disponible").check();
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByRole('button', { name: 'Supprimer et changer' }).click();
    await toast(page, 'Relevé mis à jour');
    await expect(page.getByText('Aucun code défaut disponible : la boîte ne permet pas leur lecture.')).toBeVisible();
    await expect(codes).toHaveCount(0);

    // The new code joined the model's dossier; read on no order any more, it may go again.
    await page.goto('/gearboxes?recherche=DQ200');
    await page.getByRole('link', { name: 'VW DQ200 0AM' }).click();
    await page.getByRole('link', { name: 'Codes défaut' }).click();
    await expect(page.getByRole('row', { name: /P0562/ })).toContainText("Tension d'alimentation trop basse");
    await page.getByRole('link', { name: 'Supprimer P0562' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await toast(page, 'Code supprimé');
    await expect(page.getByRole('row', { name: /P0562/ })).toHaveCount(0);
  });
});

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic') });
  test('reads the answer and cannot reach the conditions screen', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await page.getByRole('link', { name: 'Relevé des codes défaut' }).click();
    await expect(page.getByText("Non, aucun code n'est disponible")).toBeVisible();
    await expect(page.getByRole('radio')).toHaveCount(0);
    await page.goto(page.url().replace(/\?.*$/, '/code-conditions'));
    await expect(page).toHaveURL(/\/repair-orders$/);
  });
});
