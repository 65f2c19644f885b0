// Every main screen of every role passes axe with no serious or critical violation (issue 15),
// at the desk's 1280 px and the tablet's 768 px.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import { mainScreens, openScreen, storageState, type RoleName } from './support/fixtures.ts';

for (const width of [1280, 768]) {
  for (const role of Object.keys(mainScreens) as RoleName[]) {
    test.describe(`${role} at ${width} px`, () => {
      test.use({ storageState: storageState(role), viewport: { width, height: 900 } });
      test('its main screens pass axe', async ({ page }) => {
        test.slow();
        for (const screen of mainScreens[role]) {
          await openScreen(page, screen);
          const { violations } = await new AxeBuilder({ page }).analyze();
          expect
            .soft(
              violations
                .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
              screen,
            )
            .toEqual([]);
        }
      });
    });
  }
}

test.describe('the keyboard alone', () => {
  test.use({ storageState: storageState('mechanic'), viewport: { width: 768, height: 1024 } });

  test('skips to the content, opens the menu, an order and its procedure, focus always shown', async ({ page }) => {
    await page.goto('/repair-orders');
    // The first stop is the skip link; it leads into the page.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Aller au contenu' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/#contenu$/);
    // The bar's menu: opened with Enter, closed with Escape, focus back on it.
    const menu = page.locator('header [popovertarget="nav-menu"]');
    await menu.focus();
    await page.keyboard.press('Enter');
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    await expect(nav.getByRole('link', { name: 'Informations techniques' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(nav.getByRole('link', { name: 'Informations techniques' })).toBeHidden();
    await expect(menu).toBeFocused();
    // An order from the list, then its procedure tab, each with Enter; the focus ring shows.
    const link = page.getByRole('link', { name: 'OR-2026-0601', exact: true });
    await page.goto('/repair-orders?recherche=OR-2026-0601');
    await link.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    await expect(link).toBeFocused();
    expect(await link.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'OR-2026-0601' })).toBeVisible();
    const tab = page.getByRole('navigation', { name: "Onglets de l'ordre de réparation" }).getByRole('link', { name: 'Procédure de réparation' });
    await tab.focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/onglet=procedure$/);
    await expect(page.getByRole('heading', { name: 'Points de contrôle' })).toBeVisible();
  });
});
