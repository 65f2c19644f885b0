// SPEC §2.7, §4, issue 7: the diagnostic of an order, as a diagnostician leads it — two fault codes
// with their conditions, a symptom, three measures (one out of its range gets "Non conforme"
// proposed), a CSV curve drawn over the model's reference band, the diagnostic steps (a skipped step refused,
// the top outage and its procedure, validation) — then the mechanic finds the procedure on the
// order, and a commercial reads it all without a control to change it.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';

const NUMBER = 'OR-E2E-DIAG';
const MODEL = 'ZF 8HP45';
const toast = (page: Page, text: string | RegExp) => expect(page.getByRole('status').filter({ hasText: text })).toBeVisible();
const fr = (n: number) => n.toFixed(2).replace('.', ',');
/** A line pressure record that falls out of the 8HP45 reference band after the 1→2 shift. */
const curveCsv = [
  'temps_s;pression_bar',
  ...Array.from({ length: 121 }, (_, i) => `${fr(i / 10)};${fr(i < 45 ? 4 + 5 * Math.min(1, Math.max(0, (i / 10 - 0.5) / 1)) : 5.2)}`),
].join('\r\n');

let orderUrl = '';
let measureUrl = '';

test.describe.configure({ mode: 'serial' });

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('records codes, a symptom, measures and a curve, then runs the diagnostic steps and validates', async ({ page }) => {
    // A whole diagnostic in one story: about 25 s on a quiet machine, over 30 s on a busy one.
    test.slow();
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill(NUMBER);
    await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Véhicule complet' });
    await page.getByLabel('Modèle de boîte').selectOption({ label: MODEL });
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await toast(page, 'OR ajouté');
    orderUrl = new URL(page.url()).pathname;

    await page.getByRole('link', { name: 'Diagnostic', exact: true }).click();
    await expect(page).toHaveURL(/\/diagnostic$/);
    await expect(page.getByRole('heading', { name: 'Comment mener le diagnostic' })).toBeVisible();
    // No step can be skipped by its URL.
    await page.goto(`${orderUrl}/diagnostic?etape=valider`);
    await expect(page.getByRole('alert').filter({ hasText: "Choisissez d'abord les pannes." })).toBeVisible();
    await expect(page).toHaveURL(/etape=pannes$/);
    await page.getByRole('link', { name: /Éléments du diagnostic/ }).click();

    // Two fault codes with their conditions.
    await page.getByLabel('Oui, les codes ont été lus').check();
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await toast(page, 'Relevé mis à jour');
    for (const [code, phase] of [
      ['P0730', 'En accélération franche'],
      ['P0715', 'Moteur chaud (plus de 80 °C)'],
    ] as const) {
      await page.getByRole('link', { name: 'Ajouter un code défaut' }).click();
      await page.getByLabel('Code défaut').fill(code);
      await page.getByLabel('Temporalité').selectOption({ label: 'Pendant' });
      await page.getByLabel('Phase de fonctionnement').fill(phase);
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await toast(page, 'Code défaut enregistré');
      await expect(page).toHaveURL(/\/diagnostic\?onglet=codes$/);
    }
    await expect(page.locator('section[aria-labelledby="releve-codes"] li.card')).toHaveCount(2);

    // A symptom needs at least one condition; what was typed stays.
    await page.getByRole('link', { name: 'Symptômes et conditions', exact: true }).click();
    await page.getByRole('link', { name: 'Ajouter un symptôme' }).click();
    await page.getByLabel('Symptôme').fill('Mode dégradé (secours)');
    await page.getByLabel('Code défaut associé').fill('P0730');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText("Indiquez au moins une condition d'apparition")).toBeVisible();
    await expect(page.getByLabel('Symptôme')).toHaveValue('Mode dégradé (secours)');
    await page.getByLabel('Charge accélérateur').fill('Pleine charge');
    await page.getByLabel('Rapport engagé').fill('3');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await toast(page, 'Symptôme enregistré');
    await expect(page.getByText('Mode dégradé (secours)')).toBeVisible();

    // Measures from the dossier; the third is out of its range: "Non conforme" is proposed.
    await page.getByRole('link', { name: 'Mesures et contrôles', exact: true }).click();
    await page.getByLabel('Oui, des mesures ont été prises').check();
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await toast(page, 'Mesures mises à jour');
    await page.getByRole('button', { name: 'Ajouter les mesures du dossier' }).click();
    await toast(page, /mesures? du dossier ajoutées?/);
    for (const [name, value] of [
      ['Pression de ligne au ralenti (P)', '4,1'],
      ['Résistance électrovanne EDS', '5,2'],
      ["Température d'huile en fin d'essai", '104'],
    ] as const) {
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByLabel('Valeur mesurée').fill(value);
      await page.getByRole('button', { name: 'Enregistrer la mesure' }).click();
      await toast(page, 'Mesure enregistrée');
    }
    await expect(page.getByRole('row', { name: /Pression de ligne au ralenti/ })).toContainText('Conforme');
    await expect(page.getByRole('row', { name: /Température d'huile/ })).toContainText('Non conforme');
    await expect(page.getByRole('row', { name: /Température d'huile/ })).toContainText('70 – 90 °C');
    measureUrl = (await page.getByRole('link', { name: "Température d'huile en fin d'essai", exact: true }).getAttribute('href'))!;

    // A curve: a CSV with text in a number column is refused with its line, then the good one is drawn.
    await page.getByRole('link', { name: 'Courbes', exact: true }).click();
    await page.getByRole('textbox', { name: /^Description/ }).fill('Pression de ligne, essai à mi-charge');
    await page
      .getByLabel('Fichier', { exact: true })
      .setInputFiles({ name: 'essai.csv', mimeType: 'text/csv', buffer: Buffer.from('temps_s;pression_bar\r\n0;4\r\n0,1;abc\r\n') });
    await page.getByRole('button', { name: 'Ajouter la courbe' }).click();
    await expect(page.getByText("Ligne 3 : « abc » n'est pas un nombre")).toBeVisible();
    await expect(page.getByRole('textbox', { name: /^Description/ })).toHaveValue('Pression de ligne, essai à mi-charge');
    await page.getByLabel('Fichier', { exact: true }).setInputFiles({ name: 'essai.csv', mimeType: 'text/csv', buffer: Buffer.from(curveCsv) });
    await page.getByRole('button', { name: 'Ajouter la courbe' }).click();
    await toast(page, 'Courbe ajoutée');
    const chart = page.getByRole('img', { name: /essai\.csv/ });
    await expect(chart).toBeVisible();
    await expect(chart.locator('path')).not.toHaveCount(0);
    await chart.screenshot({ path: 'test-results/diagnostic-curve.png' });

    // The guide goes for good.
    await page.getByLabel('Ne plus afficher ce guide').check();
    await page.getByRole('button', { name: 'Appliquer' }).click();
    await expect(page.getByRole('heading', { name: 'Comment mener le diagnostic' })).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Comment mener le diagnostic' })).toHaveCount(0);
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    // The diagnostic steps: the outages ranked by similar closed orders, the top one and its first procedure.
    await page.getByRole('link', { name: 'Démarche de diagnostic' }).click();
    const candidates = page.locator('form label:has(input[name="outageId"])');
    await expect(candidates.first()).toContainText(/\d+ OR sur \d+ similaires?/);
    const top = (await candidates.first().locator('span.font-semibold').textContent())!.replace(/^1\. /, '');
    await candidates.first().locator('input').check();
    await page.getByRole('button', { name: 'Continuer' }).click();
    await toast(page, 'Choix enregistré');
    await expect(page).toHaveURL(/etape=procedures$/);
    const firstProcedure = page.locator('input[name="procedure"]').first();
    await expect(firstProcedure).toBeChecked();
    const procedure = (await page.locator('label:has(input[name="procedure"]) span.font-semibold').first().textContent())!;
    await page.getByRole('button', { name: 'Continuer' }).click();
    await expect(page).toHaveURL(/etape=ajout$/);
    // A procedure written for the occasion, then «Continuer» straight away: it is added, not dropped.
    const written = page.getByRole('region', { name: 'Écrire une nouvelle procédure' });
    // A link before the fix, a button of the form since: the user taps the same «Continuer».
    const next = page.locator('a, button').filter({ hasText: /^Continuer$/ });
    await written.getByLabel('Nom de la procédure').fill('Contrôle du faisceau E2E');
    await written.getByLabel('Étapes').fill('Débrancher la batterie\nContrôler le connecteur');
    await written.getByLabel('Point de contrôle 1', { exact: true }).fill('Continuité du faisceau');
    await next.click();
    await toast(page, "Procédure ajoutée à l'OR");
    await expect(page).toHaveURL(/etape=visualiser$/);
    await expect(page.getByRole('heading', { name: `1. ${procedure}` })).toBeVisible();
    await expect(page.getByRole('heading', { name: '2. Contrôle du faisceau E2E' })).toBeVisible();
    // Back at the step, «Continuer» with nothing typed only moves on.
    await page.goto(`${orderUrl}/diagnostic?etape=ajout`);
    await next.click();
    await expect(page).toHaveURL(/etape=visualiser$/);
    await page.getByRole('button', { name: 'Continuer vers la validation' }).click();
    await expect(page.getByRole('region', { name: 'Valider le diagnostic' }).getByText(top)).toBeVisible();
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await page.getByRole('button', { name: 'Valider le diagnostic' }).click();
    await toast(page, 'Diagnostic validé');
    await expect(page.getByText(/Diagnostic validé le \d{2}\/\d{2}\/\d{4}/)).toBeVisible();

    // Going back keeps the choices.
    await page.getByRole('link', { name: /Choix des pannes/ }).click();
    await expect(page.locator('input[name="outageId"]:checked')).toHaveCount(1);
  });
});

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic') });
  test('finds the validated procedure on the order, and cannot reach the diagnostic', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await expect(page.getByRole('link', { name: 'Diagnostic', exact: true })).toHaveCount(0);
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    await expect(page.getByText(/Procédure validée le/)).toBeVisible();
    await expect(page.locator('li[id^="procedure-"] h3')).not.toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'Points de contrôle' }).first()).toBeVisible();
    await page.goto(`${orderUrl}/diagnostic`);
    await expect(page).toHaveURL(/\/repair-orders$/);
  });
});

test.describe('a commercial', () => {
  test.use({ storageState: storageState('commercial') });
  test('reads the order and its measures, and edits nothing', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await page.getByRole('link', { name: 'Relevé des codes défaut' }).click();
    await expect(page.getByText('P0730')).toBeVisible();
    await expect(page.getByRole('radio')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Enregistrer' })).toHaveCount(0);
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    await expect(page.getByText(/Procédure validée le/)).toBeVisible();
    // A measure reads with its result; nothing to change it.
    await page.goto(measureUrl);
    await expect(page.getByRole('heading', { name: "Température d'huile en fin d'essai" })).toBeVisible();
    await expect(page.getByText('Non conforme')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Enregistrer la mesure' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Supprimer la mesure' })).toHaveCount(0);
    await page.goto(`${orderUrl}/diagnostic?onglet=mesures`);
    await expect(page).toHaveURL(/\/repair-orders$/);
  });
});

test.describe('then the diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });
  test('deletes the order, leaving the demo as it was', async ({ page }) => {
    // The guide shows again for the next run.
    await page.goto(`${orderUrl}/diagnostic`);
    await page.getByRole('button', { name: 'Afficher le guide' }).click();
    await expect(page.getByRole('heading', { name: 'Comment mener le diagnostic' })).toBeVisible();
    await page.goto(`${orderUrl}?supprimer`);
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await toast(page, 'OR supprimé');
  });
});
