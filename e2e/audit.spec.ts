// Decision 034: a diagnostician opens an order and corrects it; the order's "Activité" tab shows
// who did what, a mechanic reads the same and exports it as CSV, and an admin finds it on the
// diagnostician's own activity; other roles are kept off users' activity.
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import { accounts, storageState } from './support/fixtures.ts';

const NUMBER = `AUD-E2E-${Date.now().toString(36).toUpperCase()}`;
let orderPath = '';

test.describe.configure({ mode: 'serial' });

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('opens and corrects an order, then reads who did what on its activity', async ({ page }) => {
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill(NUMBER);
    await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Boîte seule' });
    await page.getByLabel('Modèle de boîte').selectOption({ label: 'ZF 8HP45' });
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await expect(page.getByRole('heading', { name: NUMBER })).toBeVisible();
    orderPath = new URL(page.url()).pathname;
    await page.getByLabel('Marque').fill('Renault');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'OR mis à jour' })).toBeVisible();

    await page.getByRole('link', { name: 'Activité' }).click();
    await expect(page).toHaveURL(`${orderPath}/activity`);
    await expect(page.getByRole('heading', { name: `Activité ${NUMBER}` })).toBeVisible();
    const rows = page.getByRole('table', { name: 'Activité' }).getByRole('row');
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(1)).toContainText(accounts.diagnostician.name);
    await expect(rows.nth(1)).not.toContainText(accounts.diagnostician.email);
    await expect(rows.nth(1)).toContainText('Modification');
    await expect(rows.nth(1)).toContainText('Marque du véhicule : — → Renault');
    await expect(rows.nth(2)).toContainText('Création');
    await expect(rows.nth(2)).toContainText(`OR ${NUMBER}`);
  });
});

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic') });

  test("reads the order's activity, filters it and exports it as CSV, but no user's", async ({ page }) => {
    await page.goto(`${orderPath}/activity`);
    await page.getByLabel('Action').selectOption({ label: 'Création' });
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect(page).toHaveURL(`${orderPath}/activity?action=created`);
    await expect(page.getByRole('table', { name: 'Activité' }).getByRole('row')).toHaveCount(2);
    await expect(page.getByText('1 événement')).toBeVisible();

    await page.goto(`${orderPath}/activity`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Exporter en CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^activite-or-${NUMBER.toLowerCase()}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.split('\r\n').filter(Boolean);
    // Staff e-mails are for admins: a mechanic's CSV has no such column.
    expect(lines[0]).toBe('\uFEFFDate;Qui;Action;Quoi;Dans;Modifications');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`;${accounts.diagnostician.name};Modification;OR ${NUMBER};`);
    expect(csv).not.toContain(accounts.diagnostician.email);

    await page.goto('/users/3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f/activity');
    await expect(page).toHaveURL(/\/repair-orders$/);
  });
});

test.describe('an admin', () => {
  test.use({ storageState: storageState('app_admin') });

  test("finds the order on the diagnostician's activity, from the users screen", async ({ page }) => {
    await page.goto('/users');
    await page.getByRole('button', { name: `Actions : ${accounts.diagnostician.name}` }).click();
    await page.getByRole('link', { name: `Activité de ${accounts.diagnostician.name}` }).click();
    await expect(page.getByRole('heading', { name: `Activité de ${accounts.diagnostician.name}` })).toBeVisible();
    await expect(
      page
        .getByRole('table', { name: 'Activité' })
        .getByRole('row')
        .filter({ hasText: `OR ${NUMBER}` }),
    ).toHaveCount(2);
    // An admin reads who did it with their e-mail.
    await expect(
      page
        .getByRole('table', { name: 'Activité' })
        .getByRole('row')
        .filter({ hasText: `OR ${NUMBER}` })
        .first(),
    ).toContainText(accounts.diagnostician.email);
    await expect(page.getByRole('link', { name: 'Exporter en CSV' })).toHaveAttribute('href', /\/users\/[0-9a-f-]{36}\/activity\.csv$/);
    const userPage = page.url();

    for (const [width, height] of [
      [1280, 800],
      [768, 1024],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const [name, path] of [
        ['order', `${orderPath}/activity`],
        ['user', new URL(userPage).pathname],
      ] as const) {
        await page.goto(path);
        await page.screenshot({ path: `test-results/audit-${name}-${width}x${height}.png`, fullPage: true });
        const { violations } = await new AxeBuilder({ page }).analyze();
        expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
      }
    }
  });
});
