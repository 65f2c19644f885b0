// Walk31 W2, F12: the procedure tab when the network or a reply is lost. A result tapped in a
// dead spot is never dropped for a typo in the value; a closing whose reply is lost never leaves
// the page half-updated.
import type { Browser, Page } from '@playwright/test';
import { allowBrowserErrors, expect, test } from './support/test.ts';
import { openProcedure, reopenOrder, storageState, touchTablet } from './support/fixtures.ts';

// Closed demo orders (three checkpoints, all answered) that no other test uses; reopened first.
const TAPPED = 'OR-2026-0177';

/** An admin reopens the order from its page (once: it may be open already). */
async function reopen(browser: Browser, number: string) {
  const context = await browser.newContext({ storageState: storageState('app_admin') });
  try {
    await reopenOrder(await context.newPage(), number);
  } finally {
    await context.close();
  }
}

const row = (page: Page, index: number) => page.locator('li[id^="point-"]').nth(index);

test.describe('a mechanic on a tablet in a dead spot', () => {
  test.use({ storageState: storageState('mechanic'), ...touchTablet() });
  test.beforeAll(async ({ browser }) => reopen(browser, TAPPED));

  test('a result tapped offline stays pending over a value typed wrong, and is sent when the network is back', async ({ page, context }) => {
    allowBrowserErrors(/ERR_INTERNET_DISCONNECTED|ERR_FAILED|ERR_NETWORK_CHANGED/);
    await openProcedure(page, TAPPED);
    const point = row(page, 1);
    await context.setOffline(true);
    await point.getByText('Non conforme', { exact: true }).tap();
    await expect(point.getByRole('status')).toHaveText('Non enregistré : envoi dès le retour du réseau');
    // A word in the value, a comment, then the next field.
    await point.getByLabel('Valeur mesurée').fill('sec');
    await point.getByLabel('Commentaire').fill('À-coup net en rétrogradation 3-2 à chaud');
    await row(page, 2).getByLabel('Commentaire').focus();
    // Still pending, said on the card, with its retry; the value's own fault beside it.
    await expect(point.getByRole('status')).toHaveText('Non enregistré : envoi dès le retour du réseau');
    await expect(point.getByRole('button', { name: 'Réessayer' })).toBeVisible();
    await expect(point).toHaveAttribute('data-unsent', '');
    await expect(point.getByLabel('Valeur mesurée')).toHaveAccessibleDescription('Nombre invalide');

    // The network back: the result and the comment go; the value stays on screen, still marked.
    await context.setOffline(false);
    await expect(point.getByRole('status')).toHaveText(/^Enregistré à \d{2}:\d{2} par Karim Benali$/);
    await expect(point).not.toHaveAttribute('data-unsent');
    await expect(point.getByLabel('Valeur mesurée')).toHaveValue('sec');
    await expect(point.getByLabel('Valeur mesurée')).toHaveAccessibleDescription('Nombre invalide');

    // What the server holds, read again.
    await page.reload();
    await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toHaveCount(0);
    await expect(row(page, 1).getByRole('radio', { name: 'Non conforme' })).toBeChecked();
    await expect(row(page, 1).getByLabel('Commentaire')).toHaveValue('À-coup net en rétrogradation 3-2 à chaud');
    await expect(row(page, 1).getByRole('status')).toHaveText(/^Enregistré à \d{2}:\d{2} par Karim Benali$/);
  });

  test('a value typed wrong online does not hold back the result tapped after it', async ({ page }) => {
    await openProcedure(page, TAPPED);
    const point = row(page, 0);
    await point.getByLabel('Valeur mesurée').fill('environ 5');
    await point.getByText('Tolérance haute', { exact: true }).tap();
    await expect(point.getByRole('status')).toHaveText(/^Enregistré à \d{2}:\d{2} par Karim Benali$/);
    await expect(point.getByLabel('Valeur mesurée')).toHaveAccessibleDescription('Nombre invalide');
    // No «Réessayer»: the same value would be refused again; corrected, it saves on leaving the field.
    await expect(point.getByRole('button', { name: 'Réessayer' })).toHaveCount(0);
    await point.getByLabel('Valeur mesurée').fill('5,1');
    await expect(point.getByText('Nombre invalide')).toHaveCount(0);
    const saved = page.waitForResponse((response) => !!response.request().postData()?.includes('answerOrderCheckpoint'));
    await point.getByLabel('Commentaire').focus();
    await saved;
    await expect(point.getByRole('status')).toHaveText(/^Enregistré à/);
    await page.reload();
    await expect(row(page, 0).getByRole('radio', { name: 'Tolérance haute' })).toBeChecked();
    await expect(row(page, 0).getByLabel('Valeur mesurée')).toHaveValue('5,1');
  });
});

// Reopened before each closing below.
const CLOSED = 'OR-2026-0143';

/** Every closing request reaches the server; its reply is lost on the way back. */
async function loseCloseReplies(page: Page) {
  await page.route('**/graphql', async (route) => {
    if (!route.request().postData()?.includes('closeRepairOrder')) return route.continue();
    await route.fetch();
    await route.abort();
  });
}

async function closeWith(page: Page, comment: string) {
  await page.getByRole('button', { name: "Clôturer l'OR" }).click();
  const dialog = page.getByRole('dialog', { name: "Clôturer l'ordre de réparation" });
  await dialog.getByLabel('Commentaire de clôture (facultatif)').fill(comment);
  await dialog.getByRole('button', { name: 'Clôturer', exact: true }).click();
  return dialog;
}

async function expectClosedPage(page: Page, comment: string) {
  await expect(page.getByRole('status').filter({ hasText: /^OR clôturé$/ })).toBeVisible();
  await expect(page.getByText('Clôturé', { exact: true })).toBeVisible();
  await expect(page.getByText(/OR clôturé le \d{2}\/\d{2}\/\d{4} par Karim Benali/)).toBeVisible();
  // Closed once.
  await expect(page.getByText(`Clôture · Karim Benali — ${comment}`)).toHaveCount(1);
  await expect(page.getByRole('button', { name: "Clôturer l'OR" })).toHaveCount(0);
  await expect(page.locator('[data-toast]').filter({ hasText: /erreur|Échec/ })).toHaveCount(0);
}

test.describe('a mechanic closing an order whose reply is lost', () => {
  test.use({ storageState: storageState('mechanic'), ...touchTablet() });
  test.beforeEach(async ({ browser }) => reopen(browser, CLOSED));

  test('sees the closed page, as the live status says', async ({ page }) => {
    allowBrowserErrors(/ERR_FAILED/);
    await openProcedure(page, CLOSED);
    await loseCloseReplies(page);
    await closeWith(page, 'Clôture avec réponse perdue');
    await expectClosedPage(page, 'Clôture avec réponse perdue');
  });

  test('with the live status lost too, keeps the dialog and what was typed; the retry shows the closed page', async ({ page }) => {
    allowBrowserErrors(/ERR_FAILED/);
    // No live update reaches this tab (the socket opens, nothing comes), and the order cannot be read again.
    await page.routeWebSocket(/\/graphql$/, () => undefined);
    await openProcedure(page, CLOSED);
    await loseCloseReplies(page);
    await page.route('**/graphql', async (route) => {
      const query = String(route.request().postDataJSON()?.query ?? '').replace(/\s+/g, '');
      if (query.includes('repairOrder(id:$o){status}')) return route.abort();
      return route.fallback();
    });
    const dialog = await closeWith(page, 'Clôture sans nouvelles');
    await expect(dialog.getByRole('alert')).toHaveText("Échec de l'enregistrement : votre saisie est conservée.");
    await expect(dialog.getByLabel('Commentaire de clôture (facultatif)')).toHaveValue('Clôture sans nouvelles');
    // The answers stay as they were: nothing on the page says closed or not until it is known.
    await expect(page.getByRole('radio', { name: 'Conforme', exact: true }).first()).toBeEnabled();

    // The network is fine again; the retry finds the order closed by the first try.
    await page.unrouteAll();
    await dialog.getByRole('button', { name: 'Clôturer', exact: true }).click();
    await expectClosedPage(page, 'Clôture sans nouvelles');
  });
});
