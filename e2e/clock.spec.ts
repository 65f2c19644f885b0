// Issue 28, item 2: the workshop's clock. The server runs in UTC (playwright.config.ts), the browser
// in Paris: a closed order's procedure tab shows its closing and its checkpoints at the same Paris
// time, the island hydrates without React's error #418 (server and browser write the same text),
// and a save of another day reads «Enregistré le 29/09 à 12:50».
import { expect, test } from './support/test.ts';
import { storageState } from './support/fixtures.ts';

test.use({ storageState: storageState('mechanic'), viewport: { width: 1024, height: 768 } });

/** Opens a demo order closed on another day, its checkpoints answered at the closing's minute, and checks they agree. */
async function checkClosedOrder(page: import('@playwright/test').Page) {
  // The list's closed rows, the first one with a closing recorded (server/demo/diagnostics.ts).
  await page.goto('/repair-orders?tri=date&ordre=desc');
  const closedRows = page.getByRole('row').filter({ hasText: 'Clôturé' });
  const hrefs = await closedRows.getByRole('link').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).getAttribute('href')));
  const history = page.getByRole('region', { name: 'Clôtures et réouvertures' });
  let found = false;
  for (const href of [...new Set(hrefs)].filter((h): h is string => !!h && /^\/repair-order\/[^/?]+$/.test(h)).slice(0, 12)) {
    await page.goto(`${href}?onglet=procedure`);
    if (await history.isVisible()) {
      found = true;
      break;
    }
  }
  expect(found, 'a closed demo order with its closing recorded').toBe(true);

  const closing = (await history.getByRole('listitem').first().textContent()) ?? '';
  const [, closedDay, closedTime] = /^(\d{2}\/\d{2})\/\d{4} (\d{2}:\d{2}) · Clôture/.exec(closing.trim()) ?? [];
  expect(closedTime, `the closing line: ${closing}`).toBeTruthy();

  // Every checkpoint was saved at the closing's minute: the same day and hour, written «le … à …»,
  // as the island shows it once hydrated.
  await page.waitForLoadState('networkidle');
  const saved = page.locator('li[id^="point-"]').getByRole('status');
  expect(await saved.count()).toBeGreaterThan(0);
  for (const text of await saved.allTextContents()) {
    expect(text).toMatch(new RegExp(`^Enregistré le ${closedDay}(/\\d{4})? à ${closedTime} par `));
  }
}

test("a closed order's procedure tab gives its closing and its checkpoints the same Paris time, with no hydration error", async ({ page }) => {
  await checkClosedOrder(page);
});

test.describe('a browser in another zone', () => {
  // A terminal whose clock was left in New York still reads the workshop's time.
  test.use({ timezoneId: 'America/New_York' });

  test("shows the workshop's times, not its own, and hydrates without error", async ({ page }) => {
    await checkClosedOrder(page);
    expect(await page.evaluate(() => new Date('2026-01-15T13:50:00Z').getHours())).toBe(8);
  });
});
