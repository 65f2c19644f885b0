// SPEC §2.9, issue 6: a commercial keeps the stock — adds two boxes, moves one, takes the other
// out with a reason, finds it in the history, prints a rack label and exports the CSV.
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';

const toast = (page: Page, text: string) => expect(page.getByRole('status').filter({ hasText: text })).toBeVisible();
const COMMENT = 'Lot e2e — retour client Garage Petit';

test.describe('a commercial', () => {
  test.use({ storageState: storageState('commercial') });

  test('adds two boxes, moves one, takes the other out, and finds it in the history', async ({ page, browser }) => {
    await page.goto('/stock');
    await page.getByRole('link', { name: 'Ajouter au stock' }).click();
    await expect(page).toHaveURL(/\/add-stock$/);

    // Bad input: a clear message per field, nothing written, what was typed kept.
    await page.getByLabel('Quantité').fill('0');
    await page.getByLabel('Commentaire').fill(COMMENT);
    await page.getByRole('button', { name: 'Ajouter au stock' }).click();
    await expect(page.locator('#ajout-gearboxModelId-error')).toHaveText('Champ obligatoire');
    await expect(page.getByText('Entre 1 et 100 boîtes').first()).toBeVisible();
    await expect(page.getByLabel('Rayon')).toHaveAccessibleDescription('Champ obligatoire');
    await expect(page.getByLabel('Commentaire')).toHaveValue(COMMENT);
    await page.getByLabel('Quantité').fill('10000');
    await page.getByLabel('Modèle').selectOption({ label: 'ZF 8HP45' });
    await page.getByRole('button', { name: 'Ajouter au stock' }).click();
    await expect(page.getByLabel('Quantité')).toHaveAccessibleDescription('Entre 1 et 100 boîtes');

    // The code list keeps to the model's codes.
    const codes = page.getByLabel('Code de la boîte');
    await expect(codes.locator('optgroup:not([hidden])')).toHaveCount(1);
    await page.getByLabel('Quantité').fill('2');
    await page.getByLabel('État').selectOption({ label: 'Reconditionnée' });
    await page.getByLabel('Rayon').fill('f');
    await page.getByLabel('Niveau').fill('4');
    // A code of another model picked all the same (a tablet's picker may show it) is refused beside the field, not dropped (walk31 W3).
    const otherCode = (await codes.locator('optgroup[hidden] option').first().textContent())!.trim();
    await codes.selectOption({ label: otherCode });
    await page.getByRole('button', { name: 'Ajouter au stock' }).click();
    await expect(codes).toHaveAccessibleDescription("Ce code n'appartient pas à ce modèle");
    await expect(codes.locator('option:checked')).toHaveText(otherCode);
    await codes.selectOption({ label: '1087 010 068 — GA8HP45Z-N47' });
    await page.getByRole('button', { name: 'Ajouter au stock' }).click();
    await toast(page, '2 boîtes ajoutées au stock');
    await expect(page).toHaveURL(/\/stock\?modele=[0-9a-f-]{36}&rayon=F$/);
    const mine = page.getByRole('row').filter({ hasText: 'F-4' }).filter({ hasText: '1087 010 068' });
    await expect(mine).toHaveCount(2);
    const references = await mine.getByRole('rowheader').allTextContents();

    // Move the first one.
    await page.getByRole('link', { name: references[0]! }).click();
    await expect(page.getByRole('heading', { name: `Boîte ${references[0]}` })).toBeVisible();
    await expect(page.getByText('Entrée en stock en F-4 (Reconditionnée)')).toBeVisible();
    await expect(page.getByText('par Sophie Laurent').first()).toBeVisible();
    await page.getByLabel('Rayon').fill('');
    await page.getByRole('button', { name: 'Déplacer' }).click();
    await expect(page.getByLabel('Rayon')).toHaveAccessibleDescription('Champ obligatoire');
    await page.getByLabel('Rayon').fill('E');
    await page.getByLabel('Niveau').fill('2');
    await page.getByRole('button', { name: 'Déplacer' }).click();
    await toast(page, 'Boîte déplacée');
    await expect(page.getByText('Déplacée de F-4 vers E-2')).toBeVisible();

    // Take the second one out: an exit before the entry is refused.
    await page.goto(`/stock?recherche=${references[1]}`);
    await page.getByRole('link', { name: references[1]! }).click();
    const second = page.url();
    // A colleague has the same box open in another tab.
    const other = await browser.newPage({ storageState: storageState('diagnostician') });
    await other.goto(second);
    await page.getByLabel('Date de sortie').fill('01/01/2000');
    await page.getByLabel('Motif de sortie').fill('Vendue — Garage Petit, Villeurbanne');
    await page.getByRole('button', { name: 'Retirer du stock' }).click();
    await expect(page.getByText("La date de sortie précède la date d'entrée")).toBeVisible();
    await expect(page.getByLabel('Motif de sortie')).toHaveValue('Vendue — Garage Petit, Villeurbanne');
    await page.getByLabel('Date de sortie').fill(new Date().toLocaleDateString('fr-FR', { timeZone: 'Europe/Paris' }));
    await page.getByRole('button', { name: 'Retirer du stock' }).click();
    await toast(page, 'Boîte retirée du stock');
    await expect(page).toHaveURL(/onglet=historique/);
    await expect(page.getByText('Sortie du stock : Vendue — Garage Petit, Villeurbanne')).toBeVisible();

    // The colleague's move comes too late: told so, and shown the box as it is now.
    await other.getByLabel('Rayon').fill('A');
    await other.getByRole('button', { name: 'Déplacer' }).click();
    await expect(other.getByRole('alert').filter({ hasText: 'Cette boîte a déjà été retirée du stock.' })).toBeVisible();
    await expect(other.getByRole('button', { name: 'Déplacer' })).toHaveCount(0);
    await expect(other.getByText('Sortie du stock : Vendue — Garage Petit, Villeurbanne')).toBeVisible();
    await other.close();

    // The history lists it with its date and reason.
    await page.getByRole('link', { name: 'Historique du stock' }).click();
    await page.getByRole('searchbox', { name: 'Rechercher' }).fill(references[1]!);
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect(page).toHaveURL(/onglet=historique&recherche=S-/);
    await expect(page.getByRole('row', { name: new RegExp(references[1]!) })).toContainText('Vendue — Garage Petit, Villeurbanne');
  });

  test('prints a rack label with a QR code of the box', async ({ page }) => {
    await page.goto('/stock?rayon=E');
    await page.getByRole('table', { name: 'Stock actuel' }).getByRole('rowheader').first().getByRole('link').click();
    const itemUrl = page.url();
    const refused: string[] = [];
    page.on('console', (message) => message.type() === 'error' && /Content Security Policy/.test(message.text()) && refused.push(message.text()));
    await page.getByRole('link', { name: "Imprimer l'étiquette" }).click();
    const label = page.getByRole('article', { name: /^Étiquette de rayon S-\d{6}$/ });
    await expect(label).toBeVisible();
    await expect(label.getByText(/^Emplacement E-\d$/)).toBeVisible();
    await expect(label.getByRole('img', { name: `${new URL(itemUrl).origin}/stock?article=${new URL(itemUrl).searchParams.get('article')}` })).toBeVisible();
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('button', { name: 'Imprimer' })).toBeHidden();
    await expect(page.getByRole('navigation')).toHaveCount(0);
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    // The label page obeys the CSP of every page: nothing refused.
    expect(refused).toEqual([]);
  });

  test('exports the current stock as CSV', async ({ page }) => {
    await page.goto('/stock?rayon=F');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Exporter en CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^stock-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = readFileSync((await file.path())!, 'utf8');
    const [header, ...lines] = text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(header).toBe("Référence;Modèle;Constructeur;Type;Code Doctor;Code boîte;État;Rayon;Niveau;Date d'entrée;Date de sortie;Motif de sortie;Commentaire");
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.split(';')[7] === 'F')).toBe(true);
    expect(lines.some((line) => line.includes(COMMENT))).toBe(false);
  });

  test('the stock screen passes an axe scan with no serious violation', async ({ page }) => {
    await page.goto('/stock');
    await expect(page.getByText(/^\d+ boîtes?$/)).toBeVisible();
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  });
});

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic') });
  test('cannot reach the stock', async ({ page }) => {
    await page.goto('/stock');
    await expect(page).toHaveURL(/\/repair-orders$/);
    await page.goto('/add-stock');
    await expect(page).toHaveURL(/\/repair-orders$/);
  });
});
