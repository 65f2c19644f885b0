// Issue 28, item 1 (decision 039): checkpoint answers under real use. A save's reply never
// replaces what is being typed; an answer typed offline and overtaken by a colleague's stays
// visible, to apply again; the tab follows a closing or a reopening done elsewhere, and what was
// typed then stays on screen with the reason.
import type { Browser, Page } from '@playwright/test';
import { allowBrowserErrors, expect, test } from './support/test.ts';
import { openProcedure, reopenOrder, storageState } from './support/fixtures.ts';

// Closed demo orders whose procedure has three checkpoints, all answered (server/demo/diagnostics.ts).
const TYPED = 'OR-2026-0250';
const FOLLOWED = 'OR-2026-0246';

async function asAdmin<T>(browser: Browser, run: (page: Page) => Promise<T>) {
  const context = await browser.newContext({ storageState: storageState('app_admin') });
  try {
    return await run(await context.newPage());
  } finally {
    await context.close();
  }
}

const row = (page: Page, index: number) => page.locator('li[id^="point-"]').nth(index);

test.describe('a mechanic typing a value then a comment at once', () => {
  test.use({ storageState: storageState('mechanic'), viewport: { width: 1024, height: 768 } });
  test.beforeAll(async ({ browser }) => asAdmin(browser, (page) => reopenOrder(page, TYPED)));

  for (const [index, delay] of [
    [0, 700],
    [1, 0],
  ] as const) {
    test(`keeps every letter of the comment (save round trip ${delay} ms)`, async ({ page }) => {
      if (delay) {
        await page.route('**/graphql', async (route) => {
          if (route.request().postData()?.includes('answerOrderCheckpoint')) await new Promise((resolve) => setTimeout(resolve, delay));
          await route.continue();
        });
      }
      await openProcedure(page, TYPED);
      const point = row(page, index);
      // The comment holds text already: none of it may come back mixed with the new.
      await point.getByLabel('Commentaire').fill('Ancien texte du point');
      const saved = page.waitForResponse((response) => !!response.request().postData()?.includes('answerOrderCheckpoint'));
      await point.getByLabel('Valeur mesurée').focus();
      await saved;
      await expect(point.getByRole('status')).toContainText('Enregistré à');
      // Tap the value, type, tap the comment at once and type over what it held.
      await point.getByLabel('Valeur mesurée').click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('12,4');
      await point.getByLabel('Commentaire').click();
      await page.keyboard.press('ControlOrMeta+a');
      // A word, a pause (the value's save answers, the live update follows), the rest.
      await page.keyboard.type('Pression', { delay: 40 });
      await page.waitForTimeout(delay + 800);
      await page.keyboard.type(' ligne OK', { delay: 40 });
      await expect(point.getByLabel('Commentaire')).toHaveValue('Pression ligne OK');
      await point.getByLabel('Valeur mesurée').focus();
      await expect(point.getByRole('status')).toContainText('Enregistré à');
      await expect(point.getByLabel('Commentaire')).toHaveValue('Pression ligne OK');
      // What the server holds, read again.
      await page.reload();
      await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toHaveCount(0);
      await expect(row(page, index).getByLabel('Valeur mesurée')).toHaveValue('12,4');
      await expect(row(page, index).getByLabel('Commentaire')).toHaveValue('Pression ligne OK');
    });
  }

  test('an answer typed offline and overtaken by a colleague stays visible, and can be applied again', async ({ page, context, browser }) => {
    allowBrowserErrors(/ERR_INTERNET_DISCONNECTED|ERR_FAILED|ERR_NETWORK_CHANGED/);
    await openProcedure(page, TYPED);
    const point = row(page, 2);
    await context.setOffline(true);
    await point.getByLabel('Valeur mesurée').fill('9,9');
    await point.getByLabel('Commentaire').fill('mécano hors ligne');
    await point.getByText('Non conforme', { exact: true }).click();
    await expect(point.getByRole('status')).toContainText('Non enregistré');

    // Meanwhile a colleague answers the same checkpoint online.
    const diagnostician = await browser.newContext({ storageState: storageState('diagnostician') });
    try {
      const there = await diagnostician.newPage();
      await openProcedure(there, TYPED);
      await row(there, 2).getByLabel('Commentaire').fill('Vu par le diagnostic');
      await row(there, 2).getByText('Tolérance haute', { exact: true }).click();
      await expect(row(there, 2).getByRole('status')).toContainText('Enregistré à');
    } finally {
      await diagnostician.close();
    }

    await context.setOffline(false);
    await expect(point.getByText(/Un collègue vient de renseigner ce point/)).toBeVisible();
    // Who answered, and when (the workshop's clock).
    await expect(point.getByText(/^Enregistré à \d{2}:\d{2} par Julien Moreau$/)).toBeVisible();
    await expect(point.getByLabel('Commentaire')).toHaveValue('Vu par le diagnostic');
    await expect(point.getByText('Votre saisie : 9,9 · mécano hors ligne · Non conforme')).toBeVisible();
    await point.getByRole('button', { name: 'Reprendre ma saisie' }).click();
    await expect(point.getByRole('status')).toContainText('par Karim Benali');
    await expect(point.getByText(/^Votre saisie/)).toHaveCount(0);
    await page.reload();
    await expect(row(page, 2).getByLabel('Valeur mesurée')).toHaveValue('9,9');
    await expect(row(page, 2).getByLabel('Commentaire')).toHaveValue('mécano hors ligne');
    await expect(row(page, 2).getByRole('radio', { name: 'Non conforme' })).toBeChecked();
  });
});

test.describe('an open procedure tab', () => {
  test.use({ storageState: storageState('mechanic'), viewport: { width: 1024, height: 768 } });

  test('follows a reopening and a closing done elsewhere, and keeps what was typed meanwhile', async ({ page, browser }) => {
    await openProcedure(page, FOLLOWED);
    await expect(row(page, 0).getByRole('radio', { name: 'Conforme', exact: true })).toBeDisabled();
    const admin = await browser.newContext({ storageState: storageState('app_admin') });
    try {
      const there = await admin.newPage();
      await reopenOrder(there, FOLLOWED);
      await expect(page.getByRole('alert').filter({ hasText: "Cet OR vient d'être rouvert" })).toBeVisible();
      await expect(row(page, 0).getByRole('radio', { name: 'Conforme', exact: true })).toBeEnabled();
      await expect(page.getByRole('button', { name: "Clôturer l'OR" })).toBeVisible();

      // The mechanic types; the admin closes before the field is left.
      await row(page, 1).getByLabel('Commentaire').click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('Fuite au carter');
      await there.getByRole('button', { name: "Clôturer l'OR" }).click();
      await there.getByRole('dialog').getByRole('button', { name: 'Clôturer', exact: true }).click();
      await expect(there.getByText(/OR clôturé le/)).toBeVisible();
    } finally {
      await admin.close();
    }
    await expect(page.getByRole('alert').filter({ hasText: "Cet OR vient d'être clôturé" })).toBeVisible();
    await expect(row(page, 1).getByLabel('Commentaire')).toBeDisabled();
    await expect(row(page, 1).getByLabel('Commentaire')).toHaveValue('Fuite au carter');
    await expect(row(page, 1).getByRole('status')).toHaveText("Non enregistré : l'OR a été clôturé entre-temps. Votre saisie reste affichée.");
    await expect(page.getByRole('button', { name: "Clôturer l'OR" })).toHaveCount(0);
  });
});
