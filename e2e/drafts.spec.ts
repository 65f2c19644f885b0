// Issue 28, item 1: nothing typed is lost. A page form changed and not posted asks before the page
// goes; without JavaScript a refused post comes back at the page's own address (303 → GET) with
// what was typed and why, so a reload never posts again (decision 039).
import { expect, test } from './support/test.ts';
import { storageState } from './support/fixtures.ts';

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('is asked before leaving a form changed and not posted; its own links and posting leave freely', async ({ page }) => {
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill('OR-E2E-GARDE');
    const dialogs: string[] = [];
    page.once('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss();
    });
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    await nav.getByRole('link').first().click();
    await expect.poll(() => dialogs).toEqual(['beforeunload']);
    await expect(page).toHaveURL(/\/repair-order$/);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-GARDE');
    // A refused post keeps what was typed and asks nothing.
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-GARDE');
    expect(dialogs).toEqual(['beforeunload']);
  });
});

test.describe('without JavaScript', () => {
  test.use({ storageState: storageState('diagnostician'), javaScriptEnabled: false });

  test('a refused post lands on the page address with what was typed and why; a reload does not post again', async ({ page }) => {
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill('OR-E2E-PRG');
    const posts: string[] = [];
    page.on('request', (request) => request.isNavigationRequest() && request.method() === 'POST' && posts.push(request.url()));
    const [refusal] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: "Créer l'OR" }).click(),
    ]);
    expect(refusal.status()).toBe(303);
    await expect(page).toHaveURL(/\/repair-order$/);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-PRG');
    await expect(page.getByLabel('Modèle de boîte')).toHaveAttribute('aria-invalid', 'true');
    await page.reload();
    expect(posts).toHaveLength(1);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('');
  });
});
