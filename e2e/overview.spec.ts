// Issue 32, decision 089: the workshop at a glance. A diagnostician opens it from the bar, picks a
// period in the URL, follows a figure to the list that makes it and finds the same number there;
// a bad day is ignored and said so; mechanics and commercials are sent back to the orders.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { addDays, workshopToday } from '#lib/format.ts';
import { overviewPresets } from '#lib/repair-orders/overview.ts';
import { expect, test } from './support/test.ts';
import { storageState, touchTablet } from './support/fixtures.ts';

/** An ISO day as a date field shows it. */
const french = (iso: string) => iso.split('-').reverse().join('/');

/** The number a figure's link shows, then the count the list it opens says. */
async function figureAndList(page: Page, name: RegExp, list: RegExp) {
  const link = page.getByRole('link', { name }).first();
  const figure = Number(/(\d+)$/.exec((await link.textContent())!.trim())![1]);
  await link.click();
  await expect(page).toHaveURL(list);
  const count = Number(/(\d+) OR$/.exec((await page.getByText(/\d+ OR$/).textContent())!.trim())![1]);
  return { figure, count };
}

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('opens the overview from the bar and finds each figure in the list it links to', async ({ page }) => {
    await page.goto('/repair-orders');
    await page.getByRole('link', { name: 'Synthèse' }).click();
    await expect(page).toHaveURL(/\/overview$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText("L'atelier en un coup d'œil");
    // No script of its own: the charts are drawn on the server (the shell's strength bar aside).
    expect(await page.locator('script[src]').count()).toBeLessThanOrEqual(1);
    await expect(page.getByRole('img', { name: /^OR ouverts et clôturés par semaine : S\d+/ })).toBeVisible();

    const period = '/overview?du=2025-12-01&au=2026-11-29';
    for (const [name, list] of [
      // 90 days before the workshop's day, on the clock the server reads too.
      [/^90 j et plus : \d+$/, new RegExp(`\\?au=${addDays(workshopToday(), -90)}&statut=IN_PROGRESS$`)],
      [/^Clôturé : \d+$/, /statut=CLOSED/],
      [/^Julien Moreau, En cours : \d+$/, /\?statut=IN_PROGRESS&referent=[0-9a-f-]+$/],
      [/^Julien Moreau, Ouverts sur la période : \d+$/, /\?du=2025-12-01&au=2026-11-29&referent=[0-9a-f-]+$/],
      [/^Ouverts : \d+$/, /\?du=2025-12-01&au=2026-11-29$/],
      [/^Clôturés : \d+$/, /cloture_du=2025-12-01&cloture_au=2026-11-29/],
    ] as const) {
      await page.goto(period);
      const { figure, count } = await figureAndList(page, name, list);
      expect(count, String(name)).toBe(figure);
    }
    // An outage's figure: the model's closed orders that retained it, the list says which outage.
    await page.goto(period);
    const outage = page.getByRole('region', { name: 'Pannes les plus fréquentes par modèle' }).getByRole('link').first();
    const retained = Number(/ : (\d+)$/.exec((await outage.getAttribute('aria-label'))!)![1]);
    await outage.click();
    await expect(page).toHaveURL(/\?modele=[0-9a-f-]+&statut=CLOSED&panne=[0-9a-f-]+$/);
    await expect(page.getByText(new RegExp(`^Ayant retenu la panne .+ — .+ · ${retained} OR$`))).toBeVisible();
  });

  test('draws each bar right after the number it draws', async ({ page }) => {
    await page.goto('/overview?du=2025-12-01&au=2026-11-29');
    // Referents: the bar draws the open orders, so it follows «En cours», before «Ouverts sur la période».
    const referent = page.getByRole('region', { name: 'OR par référent diagnostic' }).getByRole('row', { name: /^Julien Moreau/ });
    await expect(referent.getByRole('cell').nth(1).locator('svg')).toHaveCount(1);
    // Durations: the bar draws the median, so it follows «Médiane», before «90e centile».
    const category = page.getByRole('region', { name: "Délai de l'ouverture à la clôture" }).getByRole('row').nth(1);
    await expect(category.getByRole('cell').nth(2).locator('svg')).toHaveCount(1);
    await expect(page.getByRole('heading', { name: 'OR par statut' })).toBeVisible();
  });

  test('reads its period from the URL, with presets, and says when a day is ignored', async ({ page }) => {
    await page.goto('/overview?du=2026-09-01&au=2026-11-29');
    await expect(page.getByText('Du 01/09/2026 au 29/11/2026')).toBeVisible();
    // The period's first week is named by its first day inside the period, not by its Monday.
    await expect(page.getByRole('row', { name: /^S36 · 01\/09\/2026/ })).toBeVisible();
    await page.getByRole('link', { name: '4 semaines' }).click();
    await expect(page).toHaveURL(/\/overview\?du=\d{4}-\d{2}-\d{2}&au=\d{4}-\d{2}-\d{2}$/);
    await expect(page.getByRole('link', { name: '4 semaines' })).toHaveAttribute('aria-current', 'page');

    await page.goto('/overview?du=31/02/2026&au=2026-11-29');
    await expect(page.getByRole('status').filter({ hasText: "Filtre ignoré : la date « 31/02/2026 » n'est pas valide." })).toBeVisible();
    // The field shows the period in use, not the day refused (the notice quotes that one).
    await expect(page.getByRole('textbox', { name: 'Du', exact: true })).toHaveValue('07/09/2026');
    // The 12 weeks before the end asked.
    await expect(page.getByText('Du 07/09/2026 au 29/11/2026')).toBeVisible();
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    // A century asked would draw 5,000 weeks: longer than 3 years, the 12 weeks to today, said so.
    await page.goto('/overview?du=1900-01-01&au=2999-12-31');
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: 'Filtre ignoré : la période du 01/01/1900 au 31/12/2999 dépasse 3 ans ; les 12 dernières semaines sont affichées.' }),
    ).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Du', exact: true })).toHaveValue(french(overviewPresets[1].from(workshopToday())));
    await expect(page.getByRole('row', { name: /^S\d+ · / })).toHaveCount(12);
  });
  test('shows the period in use in its fields and marks the preset in use, a refused day never put back as a date', async ({ page }) => {
    const today = workshopToday();
    const twelveWeeks = overviewPresets[1].from(today);
    const from = page.getByRole('textbox', { name: 'Du', exact: true });
    const to = page.getByRole('textbox', { name: 'Au', exact: true });
    const presets = page.getByRole('navigation', { name: 'Périodes toutes faites' });
    await page.goto('/overview');
    await expect(from).toHaveValue(french(twelveWeeks));
    await expect(to).toHaveValue(french(today));
    // The preset in use is announced (aria-current) and stands out: the others share one look, it has another.
    const current = presets.getByRole('link', { name: '12 semaines' });
    await expect(current).toHaveAttribute('aria-current', 'page');
    await expect(presets.locator('[aria-current]')).toHaveCount(1);
    const background = (name: string) => presets.getByRole('link', { name }).evaluate((a) => getComputedStyle(a).backgroundColor);
    expect(await background('12 semaines')).not.toBe(await background('4 semaines'));
    expect(await background('3 mois')).toBe(await background('4 semaines'));

    // A day that does not exist: said so, quoted as typed, and the fields show the 12 weeks used.
    await page.goto('/overview?du=2026-13-45');
    await expect(page.getByRole('status').filter({ hasText: "Filtre ignoré : la date « 2026-13-45 » n'est pas valide." })).toBeVisible();
    await expect(from).toHaveValue(french(twelveWeeks));
    await expect(to).toHaveValue(french(today));

    // An end after today: stopped at today, said so, today in the field.
    await page.goto('/overview?au=2100-01-01');
    await expect(
      page.getByRole('status').filter({ hasText: "Période arrêtée à aujourd'hui : la fin demandée, le 01/01/2100, n'est pas encore passée." }),
    ).toBeVisible();
    await expect(to).toHaveValue(french(today));
    await expect(presets.getByRole('link', { name: '12 semaines' })).toHaveAttribute('aria-current', 'page');

    // A start after today, no end: the start named alone, not a one-day period nobody asked for.
    await page.goto('/overview?du=2100-01-01');
    await expect(
      page.getByRole('status').filter({
        hasText: "Filtre ignoré : la période demandée commence le 01/01/2100, après aujourd'hui ; les 12 dernières semaines sont affichées.",
      }),
    ).toBeVisible();
    await expect(from).toHaveValue(french(twelveWeeks));
  });

  test('prints 12 months on three A4 pages, each card whole', async ({ page }) => {
    await page.goto('/overview?du=2025-12-01&au=2026-11-29');
    await page.emulateMedia({ media: 'print' });
    // The cards two by two, the weeks in two columns, rows at the text's height: 5 pages before.
    const pdf = (await page.pdf({ format: 'A4' })).toString('latin1');
    expect(pdf.match(/\/Type \/Page(?!s)/g)?.length).toBeLessThanOrEqual(3);
    const card = page.getByRole('region', { name: 'OR par statut' });
    expect(await card.evaluate((c) => getComputedStyle(c).breakInside)).toBe('avoid');
  });
});

test.describe('on a tablet', () => {
  test.use({ storageState: storageState('diagnostician'), ...touchTablet() });

  test('shows every figure in one column, its links big enough for a finger', async ({ page }) => {
    await page.goto('/overview');
    const link = page.getByRole('link', { name: /^90 j et plus : \d+$/ });
    const box = (await link.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(36);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
  });
});

for (const role of ['mechanic', 'commercial'] as const) {
  test.describe(`a ${role}`, () => {
    test.use({ storageState: storageState(role) });

    test('is sent back to the orders, and the bar does not offer the overview', async ({ page }) => {
      await page.goto('/overview');
      await expect(page).toHaveURL(/\/repair-orders$/);
      await expect(page.getByRole('link', { name: 'Synthèse' })).toHaveCount(0);
    });
  });
}
