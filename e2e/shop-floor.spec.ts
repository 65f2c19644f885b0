// SPEC §2.7, §4, issue 8: a mechanic at a shop-floor terminal follows a demo order's validated
// procedure, answers every checkpoint (one save fails on purpose and is retried, the entry kept),
// closes the order with a comment, finds it read-only, then opens the intervention report and
// its PDF.
import AxeBuilder from '@axe-core/playwright';
import { writeFileSync } from 'node:fs';
import { allowBrowserErrors, expect, test } from './support/test.ts';
import { extractText, getDocumentProxy } from 'unpdf';
import { refusedPost, storageState } from './support/fixtures.ts';

// A demo order in progress whose diagnostic is validated and half answered (server/demo/diagnostics.ts).
const NUMBER = 'OR-2026-0601';

test.describe.configure({ mode: 'serial' });

test.describe('a mechanic', () => {
  test.use({ storageState: storageState('mechanic'), viewport: { width: 1024, height: 768 } });

  test('a value and a comment typed before the result are kept through a tab change (issue 28)', async ({ page, browser }) => {
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toHaveCount(0);
    const row = page.locator('li[id^="point-"]').filter({ hasText: 'Pas encore renseigné' }).first();
    const name = (await row.locator('legend').textContent())!;
    await row.getByLabel('Valeur mesurée').fill('3,2');
    await row.getByLabel('Commentaire').fill('Relevé moteur chaud');
    // Straight to another tab, no result chosen.
    await page.getByRole('link', { name: 'Données générales' }).click();
    await expect(page).not.toHaveURL(/onglet=procedure/);
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    const again = page.locator('li[id^="point-"]').filter({ hasText: name });
    await expect(again.getByLabel('Valeur mesurée')).toHaveValue('3,2');
    await expect(again.getByLabel('Commentaire')).toHaveValue('Relevé moteur chaud');
    await expect(again.getByRole('status')).toContainText('choisissez un résultat');
    // A commercial, who cannot answer, reads the state rather than an instruction (walk12 F12).
    const commercial = await (await browser.newContext({ storageState: storageState('commercial') })).newPage();
    await commercial.goto(page.url());
    const seen = commercial.locator('li[id^="point-"]').filter({ hasText: name });
    await expect(seen.getByRole('status')).toContainText(/^Saisie enregistrée .+, sans résultat pour le moment$/);
    await commercial.context().close();
  });

  test('answers every checkpoint, a failed save retried, then closes the order', async ({ page, context }) => {
    // A dead spot, a lost reply, every answer, the closing, the report and its PDF: over 30 s on a busy machine.
    test.slow();
    await page.goto(`/repair-orders?recherche=${NUMBER}`);
    await page.getByRole('link', { name: NUMBER, exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    await expect(page.getByRole('heading', { name: 'Points de contrôle' })).toBeVisible();
    const points = page.locator('li[id^="point-"]');
    const count = await points.count();
    const checkpointNames = await points.locator('legend').allTextContents();
    expect(count).toBeGreaterThanOrEqual(2);
    await expect(page.getByText(/points? de contrôle à renseigner avant de clôturer l'OR/)).toBeVisible();
    // The island has taken over: the no-JavaScript "Enregistrer" buttons are gone.
    await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toHaveCount(0);

    // A Wi-Fi dead spot: two answers stay on screen marked unsaved, then go once the network is back, once each, in order.
    allowBrowserErrors(/ERR_INTERNET_DISCONNECTED|ERR_FAILED|ERR_NETWORK_CHANGED/);
    const sent: string[] = [];
    page.on('requestfinished', (request) => {
      const body = request.postData() ?? '';
      if (body.includes('answerOrderCheckpoint')) sent.push(JSON.parse(body).variables.id);
    });
    const first = points.first();
    const third = points.nth(2);
    const ids = [(await first.getAttribute('id'))!.replace('point-', ''), (await third.getAttribute('id'))!.replace('point-', '')];
    await context.setOffline(true);
    await first.getByLabel('Valeur mesurée').fill('4,3');
    await first.getByText('Conforme', { exact: true }).click();
    await expect(first.getByRole('status')).toContainText('Non enregistré');
    await third.getByText('Non conforme', { exact: true }).click();
    await expect(third.getByRole('status')).toContainText('Non enregistré');
    await expect(first.getByLabel('Valeur mesurée')).toHaveValue('4,3');
    await expect(first.getByRole('radio', { name: 'Conforme', exact: true })).toBeChecked();
    await context.setOffline(false);
    await expect(first.getByRole('status')).toContainText('Enregistré à');
    await expect(third.getByRole('status')).toContainText('Enregistré à');
    expect(sent).toEqual(ids);

    // The answer arrives but its reply is lost: the retry finds it saved, and does not apply it twice.
    let lose = true;
    await page.route('**/graphql', async (route) => {
      if (!lose || !route.request().postData()?.includes('answerOrderCheckpoint')) return route.continue();
      lose = false;
      await route.fetch();
      await route.abort('failed');
    });
    const orderId = new URL(page.url()).pathname.split('/')[2]!;
    const versionOf = async (id: string) => {
      const { accessToken } = await (await page.request.get('/api/session/token')).json();
      const answer = await page.request.post('/graphql', {
        headers: { authorization: `Bearer ${accessToken}` },
        data: { query: 'query($o: uuid!) { repairOrder(id: $o) { checkpoints { id version } } }', variables: { o: orderId } },
      });
      return ((await answer.json()).data.repairOrder.checkpoints as { id: string; version: number }[]).find((c) => c.id === id)!.version;
    };
    const before = await versionOf(ids[0]!);
    await first.getByLabel('Commentaire').fill('Pression stable');
    await first.getByLabel('Valeur mesurée').focus();
    // Either the live update says it arrived, or «Réessayer» finds it there.
    await expect(first.getByRole('status')).toContainText(/Non enregistré|Enregistré à/);
    // The button may go between seeing it and tapping it (the live update, or the 15 s retry, settles
    // the answer first): either way the answer arrives once.
    const retry = first.getByRole('button', { name: 'Réessayer' });
    if (await retry.isVisible()) await retry.click({ timeout: 2_000 }).catch(() => undefined);
    await expect(first.getByRole('status')).toContainText('Enregistré à');
    await expect(first.getByLabel('Commentaire')).toHaveValue('Pression stable');
    expect(await versionOf(ids[0]!)).toBe(before + 1);

    // A value that is not a number is refused on the spot, beside the field; the result goes all the same (walk31 W2).
    const second = points.nth(1);
    await second.getByLabel('Valeur mesurée').fill('environ 5');
    await second.getByText('Tolérance haute', { exact: true }).click();
    await expect(second.getByLabel('Valeur mesurée')).toHaveAccessibleDescription('Nombre invalide');
    await expect(second.getByRole('status')).toContainText('Enregistré à');
    // No «Réessayer» for a value typed wrong: the same try would fail again; the value corrected saves on leaving it.
    await expect(second.getByRole('button', { name: 'Réessayer' })).toHaveCount(0);
    await second.getByLabel('Valeur mesurée').fill('5,1');
    await second.getByText('Tolérance haute', { exact: true }).click();
    await expect(second.getByRole('status')).toContainText('Enregistré à');

    // The rest from the keyboard: a result is a radio, the arrows choose, saving follows.
    for (let i = 3; i < count; i++) {
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
    // The «Non conforme» answers are named before closing.
    await expect(dialog.getByText('1 point de contrôle « Non conforme » :')).toBeVisible();
    await expect(dialog.getByRole('listitem')).toHaveText([checkpointNames[2]!.replace(/^\d+\.\s*/, '')]);
    await dialog.getByLabel('Commentaire de clôture (facultatif)').fill('Essai routier concluant, client prévenu.');
    await dialog.getByRole('button', { name: 'Clôturer', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: /^OR clôturé$/ })).toBeVisible();
    await expect(page.getByText(/OR clôturé le \d{2}\/\d{2}\/\d{4} par/)).toBeVisible();
    await expect(page.getByText('Commentaire de clôture : Essai routier concluant, client prévenu.')).toBeVisible();
    await expect(page.getByText('Clôturé', { exact: true })).toBeVisible();

    // Read-only now: no result can be chosen, nothing to close, the general data cannot change.
    await expect(page.getByRole('radio', { name: 'Conforme', exact: true }).first()).toBeDisabled();
    // …and does not look pressable: no hand cursor, no raised button look.
    const option = points.first().locator('label').filter({ hasText: 'Non mesurable' });
    await expect(option).toHaveCSS('cursor', 'default');
    await expect(option).toHaveCSS('border-top-style', 'dashed');
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
    // The refusal moves to the tab's own address, at the row (303 → GET, 200): what was typed and
    // why, shown there; the address is the bookmarkable one, not the post's.
    const posts = await refusedPost(page, row.getByRole('button', { name: 'Enregistrer' }));
    expect(posts[0]).toMatch(/action=point&id=[0-9a-f-]{36}&version=\d+$/);
    const id = /id=([0-9a-f-]{36})/.exec(posts[0]!)![1];
    expect(page.url()).toMatch(new RegExp(`/repair-order/[0-9a-f-]{36}\\?onglet=procedure#point-${id}$`));
    const again = page.locator('li[id^="point-"]').filter({ hasText: name });
    await expect(again.getByRole('status')).toHaveText('Nombre invalide');
    await expect(again.getByLabel('Commentaire')).toHaveValue('Sonde indisponible');
    await expect(again.getByLabel('Valeur mesurée')).toHaveValue('abc');
    // One button, «Enregistrer»: «Réessayer» is the island's, for a save that got no answer (the
    // row's photo form, decision 088, is a form of its own).
    await expect(again.locator('form').first().getByRole('button')).toHaveText(['Enregistrer']);
    // A reload reads the page again; it does not post again.
    await page.reload();
    expect(posts).toHaveLength(1);
    await again.getByLabel('Commentaire').fill('Sonde indisponible');
    await again.getByText('Non mesurable', { exact: true }).click();
    await again.getByLabel('Valeur mesurée').fill('');
    await again.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.locator('li[id^="point-"]').filter({ hasText: name }).getByRole('status')).toContainText('Enregistré à');
    await expect(page.locator('li[id^="point-"]').filter({ hasText: name }).getByRole('radio', { name: 'Non mesurable' })).toBeChecked();
  });
});

test.describe('without JavaScript, closing', () => {
  test.use({ storageState: storageState('mechanic'), javaScriptEnabled: false });

  test('asks for a confirmation and names the «Non conforme» answers (issue 28)', async ({ page }) => {
    await page.goto('/repair-orders?recherche=OR-2026-0463');
    await page.getByRole('link', { name: 'OR-2026-0463', exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    const open = page.locator('li[id^="point-"]').filter({ hasText: 'Pas encore renseigné' });
    while ((await open.count()) > 0) {
      const row = open.first();
      await row.getByText('Non conforme', { exact: true }).click();
      await row.getByRole('button', { name: 'Enregistrer' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Point de contrôle enregistré' })).toBeVisible();
    }
    const closing = page.locator('form').filter({ has: page.getByRole('button', { name: 'Clôturer', exact: true }) });
    await expect(closing.getByText(/\d points? de contrôle « Non conforme » :/)).toBeVisible();
    // One tap is not enough: the box must be ticked (the browser would say so; a bare post is refused too).
    await expect(closing.getByLabel("Je confirme la clôture de l'OR")).toHaveAttribute('required', '');
    const refused = await page.request.post(`${new URL(page.url()).pathname}?onglet=procedure&action=cloturer`, { form: { comment: '' }, maxRedirects: 0 });
    expect(refused.status()).toBe(303);
    await page.goto(refused.headers().location!);
    await expect(page.getByRole('alert').filter({ hasText: "Cochez « Je confirme la clôture de l'OR » pour clôturer." })).toBeVisible();
    await expect(page.getByText(/OR clôturé le/)).toHaveCount(0);
    await closing.getByLabel("Je confirme la clôture de l'OR").check();
    await closing.getByRole('button', { name: 'Clôturer', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: /^OR clôturé$/ })).toBeVisible();
    await expect(page.getByText(/OR clôturé le \d{2}\/\d{2}\/\d{4}/)).toBeVisible();
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
