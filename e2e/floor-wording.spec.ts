// Issue 28, a day on the floor: an order's activity names it once («OR-…», never «OR OR-…»); the
// date filters read what a tablet's number pad types (no «/» on it) and say when the period ends
// before it starts; «Rapport engagé» opens a keyboard that has the R and the N its list offers.
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { shot, storageState } from './support/fixtures.ts';
import { expect, test } from './support/test.ts';

const NUMBER = `OR-E2E-W-${Date.now().toString(36).toUpperCase()}`;
let orderPath = '';
const toast = (page: Page, text: string) => expect(page.getByRole('status').filter({ hasText: text })).toBeVisible();

test.describe.configure({ mode: 'serial' });
test.use({ storageState: storageState('diagnostician'), viewport: { width: 768, height: 1024 }, hasTouch: true, isMobile: true });

test('an order numbered «OR-…» reads once on its activity and in its CSV', async ({ page }) => {
  await page.goto('/repair-order');
  await page.getByLabel("N° d'OR").fill(NUMBER);
  await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Boîte seule' });
  await page.getByLabel('Modèle de boîte').selectOption({ label: 'ZF 8HP45' });
  await page.getByRole('button', { name: "Créer l'OR" }).click();
  await toast(page, 'OR ajouté');
  orderPath = new URL(page.url()).pathname;
  await page.getByLabel('Marque').fill('Peugeot');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await toast(page, 'OR mis à jour');

  await page.getByRole('link', { name: 'Activité' }).click();
  const table = page.getByRole('table', { name: 'Activité' });
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(table.getByRole('row').nth(2)).toContainText(`Création · ${NUMBER}`);
  await expect(table).not.toContainText('OR OR-');
  await shot(page, 'activity-order-768');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Exporter en CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^activite-${NUMBER.toLowerCase()}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
  const lines = readFileSync((await download.path())!, 'utf8')
    .split('\r\n')
    .filter(Boolean);
  expect(lines[1]).toContain(`;Modification;${NUMBER};${NUMBER};Marque du véhicule : — → Peugeot`);
});

test('the date filters take the digits a number pad types, and a reversed period says why the list is empty', async ({ page }) => {
  await page.goto('/repair-orders');
  const from = page.getByLabel('Ouvert du');
  const to = page.getByLabel('au', { exact: true });
  await expect(from).toHaveAttribute('inputmode', 'numeric');
  // Keys as a number pad sends them: digits, and the point or the dash some pads have.
  await from.pressSequentially('01012026');
  await to.pressSequentially('31.12.26');
  await page.getByRole('button', { name: 'Filtrer' }).click();
  await expect(page).toHaveURL(/du=01012026&au=31\.12\.26/);
  await expect(from).toHaveValue('01/01/2026');
  await expect(to).toHaveValue('31/12/2026');
  await expect(page.getByRole('status').filter({ hasText: 'Filtre ignoré' })).toHaveCount(0);
  const rows = page.getByRole('table', { name: 'Ordres de réparation' }).getByRole('row');
  await expect(rows).not.toHaveCount(1);
  // Only 2026's orders.
  for (const date of await rows.locator('td:nth-child(2)').allInnerTexts()) expect(date).toMatch(/\/2026$/);

  await from.fill('30-11-2026');
  await to.fill('01112026');
  await page.getByRole('button', { name: 'Filtrer' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'date de début' })).toHaveText(
    'La date de début (30/11/2026) est après la date de fin (01/11/2026) : aucune date ne peut être dans cette période.',
  );
  await expect(page.getByText('Aucun ordre de réparation ne correspond à ces critères.')).toBeVisible();
  await shot(page, 'orders-reversed-period-768');
});

test('«Rapport engagé» opens a keyboard with letters: its list offers R and N', async ({ page }) => {
  await page.goto(orderPath);
  await page.getByRole('link', { name: 'Relevé des codes défaut' }).click();
  await page.getByLabel('Oui, les codes ont été lus').check();
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await toast(page, 'Relevé mis à jour');
  await page.getByRole('link', { name: 'Ajouter un code défaut' }).click();
  const gear = page.getByLabel('Rapport engagé');
  await expect(gear).not.toHaveAttribute('inputmode', 'numeric');
  await expect(page.locator('datalist#rapports option[value="R"]')).toHaveCount(1);
  await page.getByLabel('Code défaut').fill('P0700');
  await page.getByLabel('Temporalité').selectOption({ label: 'Pendant' });
  await gear.fill('r');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  // A code the dossier does not know asks for its description first.
  const saved = page.getByRole('status').filter({ hasText: 'Code défaut enregistré' });
  await expect(page.getByLabel('Description').or(saved)).toBeVisible();
  if (await page.getByLabel('Description').isVisible()) {
    await page.getByLabel('Description').fill('Défaut de la commande de boîte');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
  }
  await expect(saved).toBeVisible();
  await expect(page.locator('section[aria-labelledby="releve-codes"] li.card')).toContainText('Rapport engagé : R');

  // The code's line on the activity says which order it is in, once.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${orderPath}/activity`);
  const code = page.getByRole('table', { name: 'Activité' }).getByRole('row').filter({ hasText: 'P0700' }).first();
  await expect(code).toContainText(`Dans : ${NUMBER}`);
  await expect(page.getByRole('table', { name: 'Activité' })).not.toContainText('OR OR-');
  await shot(page, 'activity-within-order-1280');
});

test('the demo reads as a real workshop: readings a gauge can give, the symptom the customer named, fitted boxes named by their order', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const open = async (number: string) => {
    await page.goto(`/repair-orders?recherche=${number}`);
    await page.getByRole('link', { name: number, exact: true }).click();
    await expect(page.getByRole('heading', { name: number })).toBeVisible();
    return new URL(page.url()).pathname;
  };
  // A clutch wear of 0–80 %, out of range on this gearbox, but not past 100 %.
  await page.goto(`${await open('OR-2026-0601')}/diagnostic?onglet=mesures`);
  const wear = page.getByRole('row', { name: /Usure de l'embrayage/ });
  await expect(wear).toContainText('Non conforme');
  const value = Number(
    ((await wear.textContent()) ?? '')
      .match(/(\d+(?:,\d+)?) %/g)!
      .at(-1)!
      .replace(',', '.')
      .replace(' %', ''),
  );
  expect(value).toBeGreaterThan(80);
  expect(value).toBeLessThanOrEqual(100);
  await shot(page, 'demo-0601-measures-1280');
  // A leak after a knock on a kerb is a leak.
  await page.goto(`${await open('OR-2026-0435')}/diagnostic?onglet=symptomes`);
  await expect(page.getByText("Fuite d'huile importante après un choc sur un trottoir.")).toBeVisible();
  await expect(page.getByText("Fuite d'huile", { exact: true })).toBeVisible();
  await expect(page.getByText('À-coup au passage de rapport')).toHaveCount(0);
  await shot(page, 'demo-0435-symptom-1280');
  // The stock's history names the order a box was fitted on as the orders list does.
  await page.goto('/stock?onglet=historique');
  await expect(
    page
      .getByRole('row')
      .filter({ hasText: /Posée sur OR-\d{4}-\d{4}/ })
      .first(),
  ).toBeVisible();
  await expect(page.getByText(/^Posée sur OR \d{4}/)).toHaveCount(0);
  await shot(page, 'demo-stock-history-1280', true);
});
