// Shop-floor tablets and gloves (issue 15): at 768×1024 and 1024×768 on a touch screen, every main
// screen of every role fits the width, keeps its bar to two rows at most, shows its dates as
// DD/MM/YYYY whatever the browser's language, and offers only targets of at least 44 × 44 px.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { mainScreens as screens, openScreen, storageState, type RoleName } from './support/fixtures.ts';

/** Visible controls smaller than 44 × 44 px; a box or radio counts by the label that holds it. */
async function smallTargets(page: Page) {
  return page.evaluate(() => {
    const small: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('a[href], button, summary, input:not([type=hidden]), select, textarea')) {
      const target =
        el instanceof HTMLInputElement && ['checkbox', 'radio'].includes(el.type) && el.parentElement instanceof HTMLLabelElement ? el.parentElement : el;
      const box = target.getBoundingClientRect();
      const style = getComputedStyle(target);
      // Not drawn: closed menus, the skip link until focused, collapsed parts.
      if (box.width <= 1 || box.height <= 1 || style.visibility === 'hidden' || target.closest('details:not([open]) > :not(summary)')) continue;
      if (box.width < 43.5 || box.height < 43.5)
        small.push(
          `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || (el as HTMLInputElement).name || '').trim().slice(0, 30)}" ${Math.round(box.width)}×${Math.round(box.height)}`,
        );
    }
    return small;
  });
}

/** Selects too narrow for the option they show ("Diagnostiqu…"). */
async function clippedSelects(page: Page) {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d')!;
    const clipped: string[] = [];
    for (const select of document.querySelectorAll('select')) {
      const box = select.getBoundingClientRect();
      if (box.width <= 1) continue;
      const style = getComputedStyle(select);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = select.selectedOptions[0]?.textContent ?? '';
      // The text, the padding on both sides and the arrow (about 20 px).
      const needed = canvas.measureText(text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20;
      if (needed > box.width) clipped.push(`"${text}" needs ${Math.round(needed)} px, has ${Math.round(box.width)}`);
    }
    return clipped;
  });
}

for (const [width, height] of [
  [768, 1024],
  [1024, 768],
] as const) {
  test.describe(`a ${width}×${height} touch screen`, () => {
    test.use({ viewport: { width, height }, hasTouch: true, isMobile: false, locale: 'en-US' });
    for (const role of Object.keys(screens) as RoleName[]) {
      test.describe(role, () => {
        test.use({ storageState: storageState(role) });
        test('fits, keeps the bar to two rows, and offers only 44-pixel targets', async ({ page }) => {
          test.slow();
          for (const screen of screens[role]) {
            await openScreen(page, screen);
            const report = await page.evaluate(() => ({
              width: document.documentElement.scrollWidth,
              bar: document.querySelector('header')?.getBoundingClientRect().height ?? 0,
            }));
            expect.soft(report.width, `${screen}: page width`).toBeLessThanOrEqual(width);
            // One row of 44-pixel targets with its padding is about 60 px; two rows, 120.
            expect.soft(report.bar, `${screen}: bar height`).toBeLessThanOrEqual(120);
            expect.soft(await smallTargets(page), `${screen}: targets under 44 px`).toEqual([]);
            expect.soft(await clippedSelects(page), `${screen}: selects that cut their text`).toEqual([]);
          }
        });
      });
    }
  });
}

test.describe('an English browser on a tablet', () => {
  test.use({ viewport: { width: 768, height: 1024 }, hasTouch: true, locale: 'en-US', storageState: storageState('diagnostician') });

  test('types and reads dates as DD/MM/YYYY, and the menus open and close without a mouse', async ({ page }) => {
    await openScreen(page, 'ORDER');
    await expect(page.getByLabel("Date d'ouverture")).toHaveValue('29/09/2026');
    await page.goto('/repair-orders');
    await page.getByLabel('Ouvert du').fill('1/10/2026');
    await page.getByLabel('au', { exact: true }).fill('31/10/2026');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect(page).toHaveURL(/du=1%2F10%2F2026/);
    await expect(page.getByLabel('Ouvert du')).toHaveValue('01/10/2026');
    const opened = await page.getByRole('table').locator('tbody tr td:nth-child(2)').allTextContents();
    expect(opened.length).toBeGreaterThan(0);
    for (const day of opened) expect(day).toMatch(/^\d{2}\/10\/2026$/);

    // The tabs of the bar are in a menu below 1024 px; Escape closes it.
    await page.getByText('Menu', { exact: true }).tap();
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    await expect(nav.getByRole('link', { name: 'Informations techniques' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(nav.getByRole('link', { name: 'Informations techniques' })).toBeHidden();
    await page.getByText('Menu', { exact: true }).tap();
    await nav.getByRole('link', { name: 'Informations techniques' }).tap();
    await expect(page).toHaveURL(/\/gearboxes$/);
  });

  test('the signed-in shell passes axe at this size, the profile menu named by what it shows', async ({ page }) => {
    await page.goto('/repair-orders');
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    // Its accessible name starts with the name it shows (WCAG 2.5.3).
    await expect(page.locator('[popovertarget="profile-menu"]')).toHaveAccessibleName('Julien Moreau Menu du profil');
  });
});
