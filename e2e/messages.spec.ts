// What the screens say, and where (issue 15): a closed order's notices are information, not
// errors; a toast never hides the page's own buttons.
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { storageState } from './support/fixtures.ts';

test.use({ storageState: storageState('diagnostician') });

async function openOrder(page: Page, number: string) {
  await page.goto(`/repair-orders?recherche=${number}`);
  await page.getByRole('link', { name: number, exact: true }).click();
}

/** Whether the element's background is the danger colour of errors. */
const red = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => getComputedStyle(el).backgroundColor === 'rgb(254, 226, 226)');

test('a closed order says it reads only, in the information style, on its diagnostic and measure pages', async ({ page }) => {
  await openOrder(page, 'OR-2026-0435');
  const order = page.url();
  await page.goto(`${order}/diagnostic`);
  const notice = page.getByRole('status').filter({ hasText: 'clôturé' });
  await expect(notice).toBeVisible();
  expect(await notice.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe('rgb(254, 226, 226)');
  await page.goto(`${order}/diagnostic?onglet=mesures`);
  const measure = page.getByRole('table').getByRole('link').first();
  await measure.click();
  await expect(page.getByRole('status').filter({ hasText: 'clôturé' })).toBeVisible();
  expect(await red(page, 'main [role=status]')).toBe(false);
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 768, height: 1024 },
]) {
  test(`a toast leaves the page's buttons free at ${viewport.width} px`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await openOrder(page, 'OR-2026-0601');
    await page.getByRole('button', { name: 'Enregistrer' }).first().click();
    const toast = page.locator('[data-toast]').first();
    await expect(toast).toBeVisible();
    const covered = await page.evaluate(() => {
      const box = document.querySelector('[data-toast]')!.getBoundingClientRect();
      return [...document.querySelectorAll<HTMLElement>('main a, main button, main input, main select')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 1 && r.left < box.right && r.right > box.left && r.top < box.bottom && r.bottom > box.top;
        })
        .map((el) => el.textContent?.trim() || el.getAttribute('name') || el.tagName);
    });
    expect(covered).toEqual([]);
  });
}
