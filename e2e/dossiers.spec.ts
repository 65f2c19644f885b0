// SPEC §2.8, issue 5: a diagnostician builds a technical dossier — a model, a repair procedure,
// an outage with its photo and prioritised procedures, a measure and a document; a commercial
// reads it without any edit control. Files go through the storage rules of SPEC §5.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { storageState } from './support/fixtures.ts';

const MODEL = 'Aisin AW80-40LE';
const pdf = Buffer.from(
  '%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n',
);
/** No serious or critical accessibility violation on the page as it is. */
async function scan(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}
const toast = (page: Page, text: string) => expect(page.getByRole('status').filter({ hasText: text })).toBeVisible();

async function openDossier(page: Page) {
  await page.goto(`/gearboxes?recherche=${encodeURIComponent(MODEL)}`);
  await page.getByRole('link', { name: MODEL }).click();
  await expect(page.getByRole('heading', { name: MODEL })).toBeVisible();
}

async function addProcedure(page: Page, name: string, steps: string[], checkpoints: [string, string][]) {
  await page.getByRole('link', { name: 'Nouvelle procédure' }).click();
  await page.getByLabel('Nom de la procédure').fill(name);
  await page.getByLabel('Étapes').fill(steps.join('\n'));
  for (const [i, [checkpoint, description]] of checkpoints.entries()) {
    await page.getByLabel(`Point de contrôle ${i + 1}`, { exact: true }).fill(checkpoint);
    await page.getByLabel(`Description du point ${i + 1}`).fill(description);
  }
  await page.getByRole('button', { name: 'Enregistrer la procédure' }).click();
  await toast(page, 'Procédure ajoutée');
}

test.describe.configure({ mode: 'serial' });

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('builds a dossier: procedures, an outage with a photo and priorities, a measure and a document', async ({ page }) => {
    // A whole dossier with its axe scans: 23 s on a quiet machine, over 30 s on a busy one.
    test.slow();
    await page.goto('/gearbox');
    await page.getByLabel('Modèle (obligatoire)').fill(MODEL);
    await page.getByLabel('Type').selectOption('automatic');
    await page.getByLabel('Constructeur').fill('Aisin Warner');
    await page.getByLabel('Année de début').fill('2004');
    await page.getByRole('button', { name: 'Créer le modèle' }).click();
    await expect(page.getByRole('heading', { name: MODEL })).toBeVisible();

    // A procedure: nothing typed is lost when the form is refused.
    await page.getByRole('link', { name: 'Procédures de réparation' }).click();
    await expect(page).toHaveURL(/\?onglet=procedures$/);
    await page.getByRole('link', { name: 'Nouvelle procédure' }).click();
    await page.getByLabel('Nom de la procédure').fill('Remplacement du bloc hydraulique');
    await page.getByRole('button', { name: 'Enregistrer la procédure' }).click();
    await expect(page.getByText('Au moins un point de contrôle')).toBeVisible();
    await expect(page.locator('#procedure-etapes-error')).toHaveText('Champ obligatoire');
    await expect(page.getByLabel('Nom de la procédure')).toHaveValue('Remplacement du bloc hydraulique');
    await scan(page);
    await page
      .getByLabel('Étapes')
      .fill('Vidanger la boîte\n\nDéposer le carter et le bloc hydraulique\nReposer le bloc neuf, couple 10 N·m\nApprentissage des adaptations au diagnostic');
    await page.getByLabel('Point de contrôle 1', { exact: true }).fill('Pression de ligne au ralenti');
    await page.getByLabel('Description du point 1').fill('Manomètre sur la prise de pression, boîte chaude');
    await page.getByLabel('Point de contrôle 2', { exact: true }).fill('Essai routier');
    await page.getByRole('button', { name: 'Enregistrer la procédure' }).click();
    await toast(page, 'Procédure ajoutée');
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Remplacement du bloc hydraulique' }) });
    await expect(card.getByText('4 étapes · 2 points de contrôle')).toBeVisible();
    await expect(card.locator('ol.list-decimal > li')).toHaveText([
      'Vidanger la boîte',
      'Déposer le carter et le bloc hydraulique',
      'Reposer le bloc neuf, couple 10 N·m',
      'Apprentissage des adaptations au diagnostic',
    ]);
    await addProcedure(
      page,
      'Vidange et apprentissage',
      ['Vidange complète', 'Mise à niveau à 40 °C', 'Apprentissage'],
      [["Niveau d'huile à chaud", 'Bouchon de niveau, 35 à 45 °C']],
    );

    // An outage, its photo, and a file the outage bucket refuses.
    await page.getByRole('link', { name: 'Pannes identifiées' }).click();
    await page.getByRole('link', { name: 'Nouvelle panne' }).click();
    await page.getByLabel('Composant').fill('Bloc hydraulique');
    await page.getByLabel('Type de panne').fill('Usure');
    await page.getByRole('button', { name: 'Enregistrer la panne' }).click();
    await toast(page, 'Panne ajoutée');
    const photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#a04010' } })
      .jpeg()
      .toBuffer();
    await page.getByLabel('Fichier (obligatoire)').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('usure') });
    await page.getByLabel('Commentaire').fill('Tiroir de régulation rayé');
    await page.getByRole('button', { name: 'Joindre' }).click();
    await expect(page.getByText('Format non supporté')).toBeVisible();
    await expect(page.getByLabel('Commentaire')).toHaveValue('Tiroir de régulation rayé');
    await page.getByLabel('Fichier (obligatoire)').setInputFiles({ name: 'tiroir.jpg', mimeType: 'image/jpeg', buffer: photo });
    await page.getByRole('button', { name: 'Joindre' }).click();
    await toast(page, 'Fichier joint');
    const thumbnail = page.getByRole('img', { name: 'tiroir.jpg' });
    await expect(thumbnail).toBeVisible();
    // The thumbnail is a small WebP, not the 1200 px photo.
    const src = await thumbnail.getAttribute('src');
    const thumb = await page.request.get(src!);
    expect(thumb.headers()['content-type']).toBe('image/webp');
    expect((await sharp(await thumb.body()).metadata()).width).toBe(320);
    await expect(page.getByText('Tiroir de régulation rayé')).toBeVisible();
    await scan(page);

    // Procedures by priority, reordered from the keyboard.
    await page.getByRole('link', { name: 'Procédures', exact: true }).click();
    await expect(page.getByText("Aucune procédure n'est encore associée à cette panne.")).toBeVisible();
    await page.getByLabel('Nom de la procédure').selectOption({ label: 'Vidange et apprentissage' });
    await page.getByRole('button', { name: 'Associer' }).click();
    await toast(page, 'Priorités enregistrées');
    await page.getByRole('button', { name: 'Associer' }).click();
    const priorities = page.locator('ol > li[id^="priorite-"] a');
    await expect(priorities).toHaveText(['Vidange et apprentissage', 'Remplacement du bloc hydraulique']);
    await page.getByRole('button', { name: 'Monter « Remplacement du bloc hydraulique »' }).focus();
    await page.keyboard.press('Enter');
    await toast(page, 'Priorités enregistrées');
    await expect(priorities).toHaveText(['Remplacement du bloc hydraulique', 'Vidange et apprentissage']);
    await scan(page);

    // A measure: bounds checked in French, what was typed kept.
    await openDossier(page);
    await page.getByRole('link', { name: 'Documents' }).click();
    await page.getByRole('link', { name: 'Mesures', exact: true }).click();
    await expect(page).toHaveURL(/onglet=documents&vue=mesures$/);
    await page.getByRole('link', { name: 'Nouvelle mesure' }).click();
    await page.getByLabel('Nom de la mesure').fill('Pression de ligne au ralenti (P)');
    await page.getByLabel('Valeur minimale').fill('-1');
    await page.getByLabel('Valeur maximale').fill('beaucoup');
    await page.getByRole('button', { name: 'Enregistrer la mesure' }).click();
    await expect(page.getByText('Nombre invalide')).toHaveCount(2);
    await page.getByLabel('Valeur minimale').fill('5');
    await page.getByLabel('Valeur maximale').fill('4,5');
    await page.getByRole('button', { name: 'Enregistrer la mesure' }).click();
    await expect(page.getByText('Le maximum doit être supérieur ou égal au minimum')).toBeVisible();
    await expect(page.getByLabel('Nom de la mesure')).toHaveValue('Pression de ligne au ralenti (P)');
    await scan(page);
    await page.getByLabel('Valeur minimale').fill('3,5');
    await page.getByLabel('Unité').fill('bar');
    await page.getByRole('button', { name: 'Enregistrer la mesure' }).click();
    await toast(page, 'Mesure ajoutée');
    await page.getByRole('link', { name: `${MODEL} · Mesures` }).click();
    await expect(page.getByRole('row', { name: /Pression de ligne au ralenti/ })).toContainText('3,5 – 4,5 bar');

    // A technical drawing, opened in the browser.
    await page.getByRole('link', { name: 'Autres documents' }).click();
    await page.getByLabel('Catégorie').selectOption({ label: 'Plan technique' });
    await page.getByLabel('Fichier (obligatoire)').setInputFiles({ name: 'coupe-aw80.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByLabel('Titre').fill('Vue en coupe');
    await page.getByRole('button', { name: 'Joindre' }).click();
    await toast(page, 'Fichier joint');
    await expect(page.getByRole('listitem').getByText('Plan technique')).toBeVisible();
    const open = page.getByRole('link', { name: 'Ouvrir' });
    const file = await page.request.get((await open.getAttribute('href'))!);
    expect(file.headers()['content-type']).toBe('application/pdf');
    expect(file.headers()['content-disposition']).toMatch(/^inline/);

    // The model is now kept, with the reasons.
    await page.getByRole('link', { name: 'Supprimer le modèle' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Suppression impossible' });
    await expect(refusal).toBeVisible();
    await expect(refusal.getByRole('listitem')).toHaveText(['procédures de réparation (2)', 'documents techniques (2)', 'hypothèses de panne (1)']);
  });
});

test.describe('a commercial', () => {
  test.use({ storageState: storageState('commercial') });

  test('reads the same dossier and finds no edit control', async ({ page }) => {
    await openDossier(page);
    await page.getByRole('link', { name: 'Procédures de réparation' }).click();
    await expect(page.getByRole('heading', { name: 'Remplacement du bloc hydraulique' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Nouvelle procédure' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: /^Modifier/ })).toHaveCount(0);
    await page.getByRole('link', { name: 'Pannes identifiées' }).click();
    await page.getByRole('link', { name: 'Bloc hydraulique' }).click();
    await expect(page.getByRole('img', { name: 'tiroir.jpg' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Joindre' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: /^Supprimer/ })).toHaveCount(0);
    await page.getByRole('link', { name: 'Procédures', exact: true }).click();
    await expect(page.locator('ol > li[id^="priorite-"] a')).toHaveText(['Remplacement du bloc hydraulique', 'Vidange et apprentissage']);
    await expect(page.getByRole('button', { name: /^(Monter|Descendre|Retirer)/ })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Associer' })).toHaveCount(0);
    await openDossier(page);
    await page.getByRole('link', { name: 'Documents' }).click();
    await page.getByRole('link', { name: 'Mesures', exact: true }).click();
    await page.getByRole('link', { name: 'Pression de ligne au ralenti (P)' }).click();
    await expect(page.getByLabel('Valeur minimale')).toHaveAttribute('readonly', '');
    await expect(page.getByRole('button', { name: 'Enregistrer la mesure' })).toHaveCount(0);
    // Writing anyway is refused by the server.
    const post = await page.request.post(page.url(), { form: { name: 'X', minimum: '1', maximum: '2' }, headers: { origin: new URL(page.url()).origin } });
    expect(post.status()).not.toBe(303);
    await page.reload();
    await expect(page.getByLabel('Nom de la mesure')).toHaveValue('Pression de ligne au ralenti (P)');
  });
});

test.describe('a diagnostician cleaning up', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('deletes what was attached, each after a confirmation, then the model', async ({ page }) => {
    await openDossier(page);
    await page.getByRole('link', { name: 'Pannes identifiées' }).click();
    await page.getByRole('link', { name: 'Bloc hydraulique' }).click();
    await page.getByRole('link', { name: 'Supprimer la panne' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await toast(page, 'Panne supprimée');
    await page.getByRole('link', { name: 'Procédures de réparation' }).click();
    for (const name of ['Remplacement du bloc hydraulique', 'Vidange et apprentissage']) {
      await page.getByRole('link', { name: `Supprimer la procédure ${name}` }).click();
      await expect(page.getByText('Cette action est irréversible.')).toBeVisible();
      await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
      await toast(page, 'Procédure supprimée');
    }
    await page.getByRole('link', { name: 'Documents' }).click();
    await page.getByRole('link', { name: 'Autres documents' }).click();
    await page.getByRole('link', { name: 'Supprimer Vue en coupe' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await toast(page, 'Fichier supprimé');
    await page.getByRole('link', { name: 'Mesures', exact: true }).click();
    await page.getByRole('link', { name: 'Pression de ligne au ralenti (P)' }).click();
    await page.getByRole('link', { name: 'Supprimer la mesure' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await toast(page, 'Mesure supprimée');
    await page.getByRole('link', { name: 'Supprimer le modèle' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await toast(page, 'Modèle supprimé');
  });
});
