// What the screens say, and where (issue 15): a closed order's notices are information, not
// errors; a toast never hides the page's own buttons.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { shot, storageState, touchTablet } from './support/fixtures.ts';

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

/**
 * The admin's mail queue (decision 049) on a touch tablet: a message to a long address that failed
 * with a long error (the outbox made unwritable for the time of the invitation) fits the screen.
 */
test.describe('the messages waiting to leave', () => {
  test.use({ storageState: storageState('app_admin') });
  const name = 'Marie-Charlotte Delafontaine-Beauregard';
  const address = 'marie-charlotte.delafontaine-beauregard.responsable-atelier@transmissions-automatiques-grand-ouest.fr';
  const outbox = 'test-results/e2e-data/outbox';

  test('fit a 768 px touch screen, JavaScript on and off, with «Renvoyer» big enough for gloves', async ({ page, browser }) => {
    // The invitation cannot be written: the outbox is a file, not a folder (root ignores permissions).
    mkdirSync(outbox, { recursive: true });
    renameSync(outbox, `${outbox}.aside`);
    writeFileSync(outbox, '');
    try {
      await page.goto('/users?recherche=delafontaine&ajouter=');
      const form = page.getByRole('region', { name: 'Nouvel utilisateur' });
      await form.getByLabel('Nom').fill(name);
      await form.getByLabel('E-mail').fill(address);
      await form.getByRole('button', { name: 'Ajouter' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Utilisateur ajouté' })).toBeVisible();
      await page.goto('/users/messages');
      await expect(page.getByRole('row').filter({ hasText: address })).toContainText('EEXIST');
    } finally {
      rmSync(outbox);
      renameSync(`${outbox}.aside`, outbox);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await shot(page, 'messages-1280');

    for (const javaScriptEnabled of [true, false]) {
      const context = await browser.newContext({ storageState: storageState('app_admin'), ...touchTablet(), javaScriptEnabled });
      const tablet = await context.newPage();
      await tablet.goto('/users/messages');
      const row = tablet.getByRole('row').filter({ hasText: address });
      await expect(row).toBeVisible();
      expect(await tablet.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      const retry = row.getByRole('button', { name: `Renvoyer : Création du mot de passe à ${address}` });
      const box = (await retry.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.x + box.width).toBeLessThanOrEqual(768);
      await shot(tablet, `messages-768-touch${javaScriptEnabled ? '' : '-no-js'}`);
      await context.close();
    }

    // The outbox is back: «Renvoyer» sends it, and the colleague goes.
    await page
      .getByRole('row')
      .filter({ hasText: address })
      .getByRole('button', { name: /^Renvoyer/ })
      .click();
    await expect(page.getByRole('status').filter({ hasText: 'Message renvoyé' })).toBeVisible();
    await page.goto('/users?recherche=delafontaine');
    await page.getByRole('button', { name: `Actions : ${name}` }).click();
    await page.getByRole('button', { name: `Supprimer : ${name}` }).click();
    await page.getByRole('alertdialog', { name: "Supprimer l'utilisateur" }).getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByText('Aucun utilisateur ne correspond à cette recherche.')).toBeVisible();
  });
});
