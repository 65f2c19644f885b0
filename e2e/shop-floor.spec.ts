// SPEC §2.7, §4, issue 8: a mechanic at a shop-floor terminal follows a demo order's validated
// procedure, answers every checkpoint (one save fails on purpose and is retried, the entry kept),
// closes the order with a comment, finds it read-only, then opens the intervention report and
// its PDF.
import AxeBuilder from '@axe-core/playwright';
import { writeFileSync } from 'node:fs';
import { expect, test } from './support/test.ts';
import { extractText, getDocumentProxy } from 'unpdf';
import { storageState } from './support/fixtures.ts';

// A demo order in progress whose diagnostic is validated and half answered (server/db/demo-diagnostics.ts).
const NUMBER = 'OR-2026-0601';

test.describe.configure({ mode: 'serial' });

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic'), viewport: { width: 1024, height: 768 } });

  test('answers every checkpoint, a failed save retried, then closes the order', async ({ page }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    await expect(page.getByRole('heading', { name: 'Points de contrôle' })).toBeVisible();
    const points = page.locator('li[id^="point-"]');
    const count = await points.count();
    const checkpointNames = await points.locator('legend').allTextContents();
    expect(count).toBeGreaterThanOrEqual(2);
    await expect(page.getByText(/point\(s\) de contrôle à renseigner avant de clôturer l'OR/)).toBeVisible();
    // The island has taken over: the no-JavaScript "Enregistrer" buttons are gone.
    await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toHaveCount(0);

    // The network drops: the row says the save failed and keeps what was entered; back, it retries.
    let offline = true;
    await page.route('**/graphql', async (route) => {
      if (offline && route.request().postData()?.includes('answerOrderCheckpoint')) await route.abort('failed');
      else await route.continue();
    });
    const first = points.first();
    await first.getByLabel('Valeur mesurée').fill('4,3');
    await first.getByText('Conforme', { exact: true }).click();
    await expect(first.getByRole('status')).toContainText("Échec de l'enregistrement");
    await expect(first.getByLabel('Valeur mesurée')).toHaveValue('4,3');
    await expect(first.getByRole('radio', { name: 'Conforme', exact: true })).toBeChecked();
    offline = false;
    await first.getByRole('button', { name: 'Réessayer' }).click();
    await expect(first.getByRole('status')).toContainText('Enregistré à');

    // A value that is not a number is refused on the spot, nothing sent.
    const second = points.nth(1);
    await second.getByLabel('Valeur mesurée').fill('environ 5');
    await second.getByText('Tolérance haute', { exact: true }).click();
    await expect(second.getByRole('status')).toContainText('Nombre invalide');
    await second.getByLabel('Valeur mesurée').fill('5,1');
    await second.getByRole('button', { name: 'Réessayer' }).click();
    await expect(second.getByRole('status')).toContainText('Enregistré à');

    // The rest from the keyboard: a result is a radio, the arrows choose, saving follows.
    for (let i = 2; i < count; i++) {
      const row = points.nth(i);
      await row.getByRole('radio', { name: 'Conforme', exact: true }).focus();
      await page.keyboard.press('Space');
      await expect(row.getByRole('status')).toContainText('Enregistré à');
    }
    // Whatever the demo had answered already stays answered.
    await expect(page.getByText("Tous les points de contrôle sont renseignés : l'OR peut être clôturé.")).toBeVisible();
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    await page.getByRole('button', { name: "Clôturer l'OR" }).click();
    const dialog = page.getByRole('dialog', { name: "Clôturer l'ordre de réparation" });
    await dialog.getByLabel('Commentaire de clôture (facultatif)').fill('Essai routier concluant, client prévenu.');
    await dialog.getByRole('button', { name: 'Clôturer', exact: true }).click();
    await expect(page.getByText(/OR clôturé le \d{2}\/\d{2}\/\d{4} par/)).toBeVisible();
    await expect(page.getByText('Commentaire de clôture : Essai routier concluant, client prévenu.')).toBeVisible();
    await expect(page.getByText('Clôturé', { exact: true })).toBeVisible();

    // Read-only now: no result can be chosen, nothing to close, the general data cannot change.
    await expect(page.getByRole('radio', { name: 'Conforme', exact: true }).first()).toBeDisabled();
    await expect(page.getByRole('button', { name: "Clôturer l'OR" })).toHaveCount(0);
    await expect(page.getByRole('button', { name: "Rouvrir l'OR" })).toHaveCount(0);

    // The intervention report: the printable page under the same CSP as every page, then its PDF.
    const refused: string[] = [];
    page.on('console', (message) => message.type() === 'error' && /Content Security Policy/.test(message.text()) && refused.push(message.text()));
    await page.getByRole('link', { name: "Rapport d'intervention" }).first().click();
    await page.getByRole('link', { name: 'Version imprimable' }).click();
    await expect(page.getByRole('heading', { name: "Rapport d'intervention" })).toBeVisible();
    await expect(page.getByText(NUMBER).first()).toBeVisible();
    await expect(page.getByText('Essai routier concluant, client prévenu.')).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Navigation principale' })).toHaveCount(0);
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    expect(refused).toEqual([]);
    // "Télécharger le PDF" downloads it, named after the order; "Ouvrir le PDF" shows it.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Télécharger le PDF' }).click()]);
    expect(download.suggestedFilename()).toBe(`rapport-${NUMBER}.pdf`);
    await expect(page.getByRole('link', { name: 'Ouvrir le PDF' })).toHaveAttribute('target', '_blank');
    const pdfHref = (await page.getByRole('link', { name: 'Télécharger le PDF' }).getAttribute('href'))!;
    const response = await page.request.get(pdfHref);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/pdf');
    const bytes = new Uint8Array(await response.body());
    writeFileSync(test.info().outputPath('rapport.pdf'), bytes);
    const { totalPages, text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
    expect(totalPages).toBeGreaterThanOrEqual(1);
    expect(text).toContain(NUMBER);
    expect(text).toContain('Essai routier concluant, client prévenu.');
    expect(text).toContain('Conforme');
    expect(text).toContain(`Page 1 / ${totalPages}`);
    for (const name of checkpointNames) expect(text).toContain(name.replace(/^\d+\.\s*/, ''));
  });
});

test.describe('without JavaScript', () => {
  test.use({ storageState: storageState('diagnostician'), javaScriptEnabled: false });

  test('a checkpoint is answered through the page itself, a bad value kept with its message', async ({ page }) => {
    await page.goto('/repair-orders?recherche=OR-2026-0463');
    await page.getByRole('link', { name: 'OR-2026-0463', exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    const row = page.locator('li[id^="point-"]').filter({ hasText: 'Pas encore renseigné' }).first();
    const name = (await row.locator('legend').textContent())!;
    await row.getByText('Non mesurable', { exact: true }).click();
    await row.getByLabel('Valeur mesurée').fill('abc');
    await row.getByLabel('Commentaire').fill('Sonde indisponible');
    await row.getByRole('button', { name: 'Enregistrer' }).click();
    const again = page.locator('li[id^="point-"]').filter({ hasText: name });
    await expect(again.getByRole('status')).toHaveText('Nombre invalide');
    await expect(again.getByLabel('Commentaire')).toHaveValue('Sonde indisponible');
    await again.getByLabel('Valeur mesurée').fill('');
    await again.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.locator('li[id^="point-"]').filter({ hasText: name }).getByRole('status')).toContainText('Enregistré à');
    await expect(page.locator('li[id^="point-"]').filter({ hasText: name }).getByRole('radio', { name: 'Non mesurable' })).toBeChecked();
  });
});

test.describe('two terminals on one order', () => {
  test('an answer given on one shows on the other without reloading', async ({ browser }) => {
    const mechanic = await browser.newContext({ storageState: storageState('mechanic') });
    const diagnostician = await browser.newContext({ storageState: storageState('diagnostician') });
    try {
      const here = await mechanic.newPage();
      const there = await diagnostician.newPage();
      for (const page of [here, there]) {
        await page.goto('/repair-orders?recherche=OR-2026-0351');
        await page.getByRole('link', { name: 'OR-2026-0351', exact: true }).click();
        await page.getByRole('link', { name: 'Procédure de réparation' }).click();
        // Hydrated: the island's saves replace the page's own buttons.
        await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toHaveCount(0);
      }
      const name = (await there.locator('li[id^="point-"]').filter({ hasText: 'Pas encore renseigné' }).first().locator('legend').textContent())!;
      const row = (page: typeof here) => page.locator('li[id^="point-"]').filter({ hasText: name });
      await row(there).getByText('Non conforme', { exact: true }).click();
      await expect(row(there).getByRole('status')).toContainText('Enregistré à');
      await expect(row(here).getByRole('radio', { name: 'Non conforme' })).toBeChecked();
      await expect(row(here).getByRole('status')).toContainText('Enregistré à');
    } finally {
      await mechanic.close();
      await diagnostician.close();
    }
  });
});
