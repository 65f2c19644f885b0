// SPEC §9 and issue 28: a toast closes by itself after 3,000 ms, and while it shows it never
// covers the navigation bar's controls (the menu, the profile menu), on a desktop as on a tablet.
import { expect, test } from './support/test.ts';
import type { Locator, Page } from '@playwright/test';
import { storageState, tabletPage } from './support/fixtures.ts';

const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** When the save was asked: the toast cannot show before. */
let saved = 0;

/** Saves the profile as it is: still on the profile (decision 046), with the «Profil mis à jour» toast. */
async function saveProfile(page: Page): Promise<Locator> {
  await page.goto('/profile?retour=%2Fstock');
  saved = Date.now();
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page).toHaveURL(/\/profile\?retour=%2Fstock$/);
  const toast = page.getByRole('status').filter({ hasText: 'Profil mis à jour' });
  await expect(toast).toBeVisible();
  return toast;
}

async function expectBarUncovered(page: Page, toast: Locator, shot: string) {
  await page.screenshot({ path: test.info().outputPath(shot) });
  const box = (await toast.boundingBox())!;
  const controls = page.locator('header').locator('a, button');
  const count = await controls.count();
  expect(count).toBeGreaterThan(1);
  for (let i = 0; i < count; i++) {
    const control = await controls.nth(i).boundingBox();
    if (control) expect(overlaps(box, control), `the toast covers ${await controls.nth(i).textContent()}`).toBe(false);
  }
  // The profile menu opens while the toast shows.
  await page.getByLabel('Menu du profil').first().click();
  await expect(page.getByRole('group', { name: 'Menu du profil' })).toBeVisible();
}

test.describe('toasts', () => {
  test.use({ storageState: storageState('commercial') });

  test('close by themselves after 3 s, under the bar at 1280 px', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const toast = await saveProfile(page);
    const shown = Date.now();
    await expectBarUncovered(page, toast, 'toast-under-bar-1280.png');
    await expect(toast).toBeHidden({ timeout: 3_500 });
    // Not before 3 s after it could first show, and within 3.5 s of being seen.
    expect(Date.now() - saved).toBeGreaterThanOrEqual(3_000);
    expect(Date.now() - shown).toBeLessThan(3_500);
  });

  test('stay clear of the bar on a touch tablet at 768 px', async ({ browser }) => {
    const page = await tabletPage(browser, 'commercial');
    const toast = await saveProfile(page);
    await expectBarUncovered(page, toast, 'toast-under-bar-768-touch.png');
    await page.context().close();
  });
});
