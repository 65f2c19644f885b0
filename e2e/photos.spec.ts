// Issue 32, item 1 (decision 088): photos on checkpoints and measures. On a touch tablet a
// mechanic sends a phone camera's full-size photo (its progress shown), which comes back 2048 px
// wide without its GPS position; what is not a photo, or too large, is said in French beside the
// field and the form stays; without JavaScript the form posts as it is; a commercial and a closed
// order read the photos with no form, a forged deletion refused; the report and its PDF show them.
import sharp from 'sharp';
import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { allowBrowserErrors, expect, test } from './support/test.ts';
import { openProcedure, refusedPost, reopenOrder, shot, storageState, touchTablet } from './support/fixtures.ts';
import { cameraPhoto, hasGpsIfd, phonePhoto } from '../tests/kit/photos.ts';

// A demo order in progress whose procedure is validated, that no other spec changes.
const OPEN = 'OR-2026-0351';
// A closed demo order with two photos on its first checkpoint (server/demo/diagnostics.ts).
const CLOSED = 'OR-2025-0615';
const NOT_PHOTO = "« notes.jpg » n'est pas une photo : JPEG, PNG ou WebP seulement.";
const TOO_LARGE = '« enorme.jpg » est trop volumineuse : 20 Mo au plus par photo.';

const NONE_ADDED = 'Aucune photo ajoutée : ';
/** A checkpoint's row of the open order's procedure (three): tests find their own photos by name, so each stands alone. */
const ROW = { progress: 0, refusals: 1, deadSpot: 1, noScript: 2, lostReply: 0, mixed: 2, report: 1 } as const;
/** A photo the server refuses answers the script a 400 (or a 409): the browser logs it. */
const REFUSED_LOGGED = /status of 40[09]/;

test.describe('a mechanic on a tablet', () => {
  test.use({ storageState: storageState('mechanic'), ...touchTablet() });

  test('sends a phone camera full-size photo with its progress; it comes back 2048 px wide, without its GPS position', async ({ page }) => {
    test.slow();
    await openProcedure(page, OPEN);
    const row = page.locator('li[id^="point-"]').nth(ROW.progress);
    const rowId = await row.getAttribute('id');
    const bytes = await phonePhoto();
    expect(bytes.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(hasGpsIfd((await sharp(bytes).metadata()).exif)).toBe(true);
    // What the form says while the photo goes, noted before the page opens again.
    const said: string[] = [];
    await page.exposeFunction('notePhotoStatus', (text: string) => said.push(text));
    await row.evaluate((li) => {
      const status = li.querySelector('[data-photos-status]')!;
      new MutationObserver(() => (window as unknown as { notePhotoStatus: (t: string) => void }).notePhotoStatus(status.textContent ?? '')).observe(status, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles({ name: 'PXL_20261128_093012.jpg', mimeType: 'image/jpeg', buffer: bytes });
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('Photo ajoutée')).toBeVisible();
    expect(said.some((text) => /^Photo 1 sur 1 : \d+ %$/.test(text))).toBe(true);
    expect(said.at(-1)).toBe('Photo 1 sur 1 reçue, préparation…');
    await expect(page).toHaveURL(new RegExp(`#${rowId}$`));
    const shown = page.locator(`#${rowId}`).getByRole('link', { name: /^Photo \d+ : PXL_20261128_093012\.jpg, ouvrir en grand$/ });
    await expect(shown).toBeVisible();
    // The thumbnail is drawn (loaded), 400 px wide; the full photo 2048, and neither carries EXIF.
    const img = shown.locator('img');
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(400);
    const full = await page.request.get((await shown.getAttribute('href'))!);
    const meta = await sharp(await full.body()).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 2048, height: 1536 });
    expect(meta.exif).toBeUndefined();
    const box = (await shown.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
  });

  test('is told in French beside the field when a file is not a photo or too large, and the form stays', async ({ page }) => {
    allowBrowserErrors(REFUSED_LOGGED);
    await openProcedure(page, OPEN);
    const row = page.locator('li[id^="point-"]').nth(ROW.refusals);
    const rowId = await row.getAttribute('id');
    const here = () => page.locator(`#${rowId}`);
    const status = here().locator('[data-photos-status]');
    const input = here().getByLabel('Prendre ou choisir des photos');
    await input.setInputFiles({ name: 'notes.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('Pression 4,2 bar\n') });
    await here().getByRole('button', { name: 'Envoyer les photos' }).click();
    // Said beside the button, the file still picked to send again.
    await expect(status).toHaveText(NONE_ADDED + NOT_PHOTO);
    expect(await input.evaluate((i: HTMLInputElement) => i.files?.[0]?.name)).toBe('notes.jpg');
    await expect(here().getByRole('link', { name: /notes/ })).toHaveCount(0);
    // Too large a photo, or too many, is said before anything is sent, naming the file; the photos picked stay.
    const posts: string[] = [];
    page.on('request', (request) => request.method() === 'POST' && posts.push(request.url()));
    await input.setInputFiles({ name: 'enorme.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(21 * 1024 * 1024, 0xff) });
    await here().getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText(TOO_LARGE);
    const small = await cameraPhoto('jpeg');
    await input.setInputFiles(Array.from({ length: 21 }, (_, i) => ({ name: `p${i}.jpg`, mimeType: 'image/jpeg', buffer: small })));
    await here().getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText('20 photos au plus par envoi.');
    expect(await input.evaluate((i: HTMLInputElement) => i.files?.length)).toBe(21);
    expect(posts).toEqual([]);
    // A post refused before the page answers (413: too big for the server) keeps the form and says why.
    allowBrowserErrors(/status of 413/);
    await page.route('**/repair-order/**', (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 413, body: '' }) : route.fallback()));
    await input.setInputFiles({ name: 'bride.jpg', mimeType: 'image/jpeg', buffer: small });
    await here().getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText(`${NONE_ADDED}Envoi trop volumineux : envoyez moins de photos à la fois.`);
    await expect(here().getByRole('button', { name: 'Envoyer les photos' })).toBeEnabled();
    expect(await input.evaluate((i: HTMLInputElement) => i.files?.[0]?.name)).toBe('bride.jpg');
    await page.unroute('**/repair-order/**');
  });

  test('in a Wi-Fi dead spot, keeps the form and the photos picked and says so, then sends them once the network is back', async ({ page, context }) => {
    allowBrowserErrors(/ERR_INTERNET_DISCONNECTED|ERR_FAILED|ERR_NETWORK_CHANGED/);
    await openProcedure(page, OPEN);
    const row = page.locator('li[id^="point-"]').nth(ROW.deadSpot);
    const rowId = await row.getAttribute('id');
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles({ name: 'bride.jpg', mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') });
    await context.setOffline(true);
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(row.locator('[data-photos-status]')).toHaveText(
      `${NONE_ADDED}Envoi interrompu : le réseau est perdu. Les photos choisies sont toujours là : réessayez quand le réseau revient.`,
    );
    expect(await row.getByLabel('Prendre ou choisir des photos').evaluate((input: HTMLInputElement) => input.files?.[0]?.name)).toBe('bride.jpg');
    await context.setOffline(false);
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('Photo ajoutée')).toBeVisible();
    await expect(page.locator(`#${rowId}`).getByRole('link', { name: /^Photo \d+ : bride\.jpg/ })).toBeVisible();
  });

  test('whose reply is lost after the photo reached the server, sends it again and it is kept once', async ({ page }) => {
    allowBrowserErrors(/ERR_CONNECTION_RESET|ERR_FAILED/);
    await openProcedure(page, OPEN);
    const rowId = await page.locator('li[id^="point-"]').nth(ROW.lostReply).getAttribute('id');
    const here = page.locator(`#${rowId}`);
    const shown = () => page.locator(`#${rowId}`).getByRole('link', { name: / : vanne-pilote\.jpg, ouvrir en grand$/ });
    await expect(shown()).toHaveCount(0);
    // The post reaches the server, which keeps the photo; its reply is lost on the way back.
    await page.route(
      '**/repair-order/**',
      async (route) => {
        if (route.request().method() !== 'POST') return route.fallback();
        expect((await route.fetch()).status()).toBe(204);
        await route.abort('connectionreset');
      },
      { times: 1 },
    );
    await here
      .getByLabel('Prendre ou choisir des photos')
      .setInputFiles({ name: 'vanne-pilote.jpg', mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') });
    await here.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(here.locator('[data-photos-status]')).toContainText('Envoi interrompu');
    await here.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('Photo ajoutée')).toBeVisible();
    await expect(shown()).toHaveCount(1);
  });

  test('sends a batch photo by photo: the bad one is refused by name, the others are kept, the bad one stays picked', async ({ page }) => {
    test.slow();
    allowBrowserErrors(REFUSED_LOGGED);
    await openProcedure(page, OPEN);
    const rowId = await page.locator('li[id^="point-"]').nth(ROW.mixed).getAttribute('id');
    const here = page.locator(`#${rowId}`);
    const input = here.getByLabel('Prendre ou choisir des photos');
    const status = here.locator('[data-photos-status]');
    // The first photo's answer held back a moment, to see the progress.
    const [first, third] = await Promise.all([cameraPhoto('jpeg', '#0f766e'), cameraPhoto('png', '#7c2d12')]);
    let posts = 0;
    await page.route('**/repair-order/**', async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      posts += 1;
      if (posts !== 1) return route.fallback();
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.fulfill({ response });
    });
    const said: string[] = [];
    await page.exposeFunction('noteBatchStatus', (text: string) => said.push(text));
    await status.evaluate((p) => {
      new MutationObserver(() => (window as unknown as { noteBatchStatus: (t: string) => void }).noteBatchStatus(p.textContent ?? '')).observe(p, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await input.setInputFiles([
      { name: 'embrayage.jpg', mimeType: 'image/jpeg', buffer: first },
      { name: 'vanne.txt', mimeType: 'text/plain', buffer: Buffer.from('Pression 4,2 bar\n') },
      { name: 'boite.png', mimeType: 'image/png', buffer: third },
    ]);
    await here.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText(/^Photo 1 sur 3/);
    await here.scrollIntoViewIfNeeded();
    await shot(page, 'photos-progress-768', true);
    await expect(status).toHaveText("2 photos ajoutées ; « vanne.txt » n'est pas une photo : JPEG, PNG ou WebP seulement.");
    await shot(page, 'photos-mixed-summary-768', true);
    expect(posts).toBe(3);
    expect(said.some((text) => /^Photo 3 sur 3 : \d+ %$/.test(text))).toBe(true);
    expect(await input.evaluate((i: HTMLInputElement) => [...(i.files ?? [])].map((f) => f.name))).toEqual(['vanne.txt']);
    await expect(here.getByRole('button', { name: 'Envoyer les photos' })).toBeEnabled();
    // The next page shows both, and says how many were added.
    await page.unroute('**/repair-order/**');
    await page.reload();
    await expect(page.getByText('2 photos ajoutées')).toBeVisible();
    for (const name of [/ : embrayage\.jpg, ouvrir/, / : boite\.jpg, ouvrir/])
      await expect(page.locator(`#${rowId}`).getByRole('link', { name })).toHaveCount(1);
  });

  test('without JavaScript, adds photos and deletes one with plain forms', async ({ browser }) => {
    const context = await browser.newContext({ storageState: storageState('mechanic'), javaScriptEnabled: false, ...touchTablet() });
    const page = await context.newPage();
    await page.goto(`/repair-orders?recherche=${OPEN}`);
    await page.getByRole('link', { name: OPEN, exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    const row = page.locator('li[id^="point-"]').nth(ROW.noScript);
    const rowId = await row.getAttribute('id');
    const had = await row.getByRole('link', { name: /ouvrir en grand$/ }).count();
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles([
      { name: 'carter.png', mimeType: 'image/png', buffer: await cameraPhoto('png') },
      { name: 'joint.webp', mimeType: 'image/webp', buffer: await cameraPhoto('webp', '#1e3a8a') },
    ]);
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('2 photos ajoutées')).toBeVisible();
    const here = page.locator(`#${rowId}`);
    await expect(here.getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 2);
    await expect(here.getByRole('link', { name: /^Photo \d+ : carter\.jpg/ })).toBeVisible();
    // A deletion asks first (SPEC): a page of its own, whose cancel deletes nothing.
    await here.getByRole('link', { name: 'Supprimer la photo' }).nth(had).click();
    await expect(page.getByText('Supprimer la photo « carter.jpg » ?')).toBeVisible();
    await page.getByRole('link', { name: 'Annuler' }).click();
    await expect(page.locator(`#${rowId}`).getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 2);
    await page.locator(`#${rowId}`).getByRole('link', { name: 'Supprimer la photo' }).nth(had).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByText('Photo supprimée')).toBeVisible();
    // Back at the photo's checkpoint, as after an add.
    await expect(page).toHaveURL(new RegExp(`#${rowId}$`));
    await expect(page.locator(`#${rowId}`).getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 1);
    // A refused post answers 303 and shows the message again at its row (decision 039).
    const again = page.locator(`#${rowId}`);
    await again.getByLabel('Prendre ou choisir des photos').setInputFiles({ name: 'notes.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('texte') });
    await refusedPost(page, again.getByRole('button', { name: 'Envoyer les photos' }));
    // Without JavaScript the one post is refused whole: said so.
    await expect(page.locator(`#${rowId}`).getByText(NONE_ADDED + NOT_PHOTO)).toBeVisible();
    await context.close();
  });
});

test.describe('reading photos', () => {
  test('a commercial sees them with no form; the report page and its PDF show them under their checkpoint', async ({ browser }) => {
    const context = await browser.newContext({ storageState: storageState('commercial') });
    const page = await context.newPage();
    await page.goto(`/repair-orders?recherche=${OPEN}`);
    await page.getByRole('link', { name: OPEN, exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    // A photo of its own, posted by a mechanic, whatever the tests above left.
    const pointId = (await page.locator('li[id^="point-"]').nth(ROW.report).getAttribute('id'))!.replace('point-', '');
    const mechanic = await browser.newContext({ storageState: storageState('mechanic') });
    const tabUrl = new URL(page.url());
    const posted = await mechanic.request.post(`${tabUrl.pathname}?onglet=procedure&action=photos&id=${pointId}`, {
      multipart: { photos: { name: 'rapport.jpg', mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg', '#334155') } },
      maxRedirects: 0,
      headers: { origin: tabUrl.origin },
    });
    expect(posted.status()).toBe(303);
    await mechanic.close();
    await page.reload();
    await expect(page.locator(`#point-${pointId}`).getByRole('link', { name: / : rapport\.jpg, ouvrir en grand$/ })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Envoyer les photos' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Supprimer la photo' })).toHaveCount(0);
    const orderUrl = new URL(page.url());
    await page.goto(`${orderUrl.pathname}/report`);
    const grids = page.getByRole('list', { name: /^Photos : / });
    await expect(grids.first()).toBeVisible();
    const shownThumbnails = await grids.locator('img').count();
    expect(shownThumbnails).toBeGreaterThanOrEqual(1);
    const pdf = await page.request.get(`${orderUrl.pathname}/report.pdf`);
    expect(pdf.status()).toBe(200);
    const body = await pdf.body();
    // Thumbnails, not the photos: the report stays light.
    expect(body.length).toBeLessThan(400_000);
    const { OPS } = await getResolvedPDFJS();
    const doc = await getDocumentProxy(new Uint8Array(body));
    let images = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const ops = await (await doc.getPage(n)).getOperatorList();
      images += ops.fnArray.filter((fn) => fn === OPS.paintImageXObject).length;
    }
    // The PDF embeds what the page shows.
    expect(images).toBe(shownThumbnails);
    await context.close();
  });

  test('a closed order shows its photos read-only and refuses a forged deletion', async ({ browser }) => {
    const context = await browser.newContext({ storageState: storageState('mechanic') });
    const page = await context.newPage();
    await page.goto(`/repair-orders?recherche=${CLOSED}`);
    await page.getByRole('link', { name: CLOSED, exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    const photos = page.locator('li[id^="photo-"]');
    await expect(photos).toHaveCount(2);
    await expect(page.getByRole('button', { name: 'Envoyer les photos' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Supprimer la photo' })).toHaveCount(0);
    const photoId = (await photos.first().getAttribute('id'))!.replace('photo-', '');
    const tab = new URL(page.url());
    const forged = await page.request.post(`${tab.pathname}?onglet=procedure&action=supprimer-photo&id=${photoId}`, {
      form: {},
      maxRedirects: 0,
      headers: { origin: tab.origin },
    });
    expect(forged.status()).toBe(303);
    await page.reload();
    await expect(page.locator('p[role="alert"]')).toHaveText('Cet ordre de réparation est clôturé : il ne peut plus être modifié.');
    await expect(page.locator('li[id^="photo-"]')).toHaveCount(2);
    await context.close();
  });
});

test.describe('an order closed while the photos are picked', () => {
  test.use({ storageState: storageState('mechanic'), ...touchTablet() });

  test('says so in French beside the field when the photos are sent', async ({ page, browser }) => {
    allowBrowserErrors(REFUSED_LOGGED);
    const admin = await browser.newContext({ storageState: storageState('app_admin') });
    const there = await admin.newPage();
    await reopenOrder(there, CLOSED);
    await openProcedure(page, CLOSED);
    const row = page.locator('li[id^="point-"]').first();
    const rowId = await row.getAttribute('id');
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles({ name: 'tard.jpg', mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') });
    await there.getByRole('button', { name: "Clôturer l'OR" }).click();
    await there.getByRole('dialog').getByRole('button', { name: 'Clôturer', exact: true }).click();
    await expect(there.getByText(/OR clôturé le/)).toBeVisible();
    await admin.close();
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.locator(`#${rowId}`).locator('[data-photos-status]')).toHaveText(
      `${NONE_ADDED}« tard.jpg » refusée : Cet ordre de réparation est clôturé : il ne peut plus être modifié.`,
    );
    // The page opened again says it above the photos, with no form.
    await page.reload();
    await expect(page.locator(`#${rowId}`).getByRole('button', { name: 'Envoyer les photos' })).toHaveCount(0);
  });
});

test.describe('a diagnostician on a measure', () => {
  test.use({ storageState: storageState('diagnostician'), ...touchTablet() });

  test('adds photos to a measure and deletes one; a mechanic reads them with no form', async ({ page, browser }) => {
    await page.goto(`/repair-orders?recherche=${OPEN}`);
    await page.getByRole('link', { name: OPEN, exact: true }).click();
    const order = new URL(page.url()).pathname;
    await page.goto(`${order}/diagnostic?onglet=mesures`);
    await page.locator(`a[href^="${order}/measure/"]`).first().click();
    await expect(page).toHaveURL(/\/measure\//);
    const photos = page.locator('#photos-mesure');
    const had = await photos.getByRole('link', { name: /ouvrir en grand$/ }).count();
    await photos.getByLabel('Prendre ou choisir des photos').setInputFiles([
      { name: 'manometre.jpg', mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') },
      { name: 'prise.png', mimeType: 'image/png', buffer: await cameraPhoto('png', '#047857') },
    ]);
    await photos.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('2 photos ajoutées')).toBeVisible();
    await expect(page.locator('#photos-mesure').getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 2);
    await page.locator('#photos-mesure').getByRole('link', { name: 'Supprimer la photo' }).nth(had).click();
    await expect(page.getByText('Supprimer la photo « manometre.jpg » ?')).toBeVisible();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByText('Photo supprimée')).toBeVisible();
    await expect(page).toHaveURL(/#photos-mesure$/);
    await expect(page.locator('#photos-mesure').getByRole('link', { name: /^Photo \d+ : prise\.jpg/ })).toBeVisible();
    const mechanic = await (await browser.newContext({ storageState: storageState('mechanic') })).newPage();
    await mechanic.goto(page.url());
    await expect(mechanic.locator('#photos-mesure').getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 1);
    await expect(mechanic.getByRole('button', { name: 'Envoyer les photos' })).toHaveCount(0);
    await mechanic.context().close();
  });
});
