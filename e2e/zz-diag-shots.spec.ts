// Temporary: screenshots of the diagnostic page for the coordinator (not committed).
import { expect, test } from './support/test.ts';
import { storageState, touchTablet } from './support/fixtures.ts';

const shots = [
  ['codes', 'onglet=codes'],
  ['symptomes', 'onglet=symptomes'],
  ['mesures', 'onglet=mesures'],
  ['courbes', 'onglet=courbes'],
  ['etape-procedures', 'etape=procedures'],
  ['etape-valider', 'etape=valider'],
] as const;

test.use({ storageState: storageState('diagnostician') });

test('diagnostic screenshots', async ({ page, browser }) => {
  test.slow();
  await page.goto('/repair-orders?recherche=OR-2024');
  const first = page.getByRole('table').getByRole('link').first();
  const href = (await first.getAttribute('href'))!;
  for (const [name, q] of shots) {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${href}/diagnostic?${q}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await page.screenshot({ path: `/work/shots/diag/${name}-1280.png`, fullPage: true });
  }
  const tablet = await browser.newContext({ ...touchTablet(), storageState: storageState('diagnostician') });
  const t = await tablet.newPage();
  for (const [name, q] of shots.slice(0, 4)) {
    await t.goto(`${href}/diagnostic?${q}`);
    await expect(t.getByRole('heading', { level: 1 })).toBeVisible();
    await t.screenshot({ path: `/work/shots/diag/${name}-768-touch.png`, fullPage: true });
  }
  await tablet.close();
});
