// Issue 32, item 1 (decision 088): photos on checkpoints and measures. On a touch tablet a
// mechanic sends a phone camera's full-size photo (its progress shown), which comes back 2048 px
// wide without its GPS position; what is not a photo, or too large, is said in French beside the
// field and the form stays; without JavaScript the form posts as it is; a commercial and a closed
// order read the photos with no form, a forged deletion refused; the report and its PDF show them.
// Each test names its photos for its run alone (`run()`): the file passes run twice on one server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
const TOO_BIG = 'Envoi trop volumineux : 64 Mo au plus par envoi ; envoyez moins de photos à la fois.';
const CLOSED_ORDER = 'Cet ordre de réparation est clôturé : il ne peut plus être modifié.';
/** A checkpoint's row of the open order's procedure (three): tests find their own photos by name, so each stands alone. */
const ROW = { progress: 0, refusals: 1, deadSpot: 1, noScript: 2, lostReply: 0, mixed: 2, report: 1 } as const;
/** A photo the server refuses answers the script a 400 (or a 409): the browser logs it. */
const REFUSED_LOGGED = /status of 40[09]/;
/** A suffix for one test's photo names: another run on the same server finds only its own. */
const run = () => Math.random().toString(36).slice(2, 8);
/** A name as a regular expression matches it. */
const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test.describe('a mechanic on a tablet', () => {
  test.use({ storageState: storageState('mechanic'), ...touchTablet() });

  test('sends a phone camera full-size photo with its progress; it comes back 2048 px wide, without its GPS position', async ({ page }) => {
    test.slow();
    const name = `PXL_20261128_${run()}`;
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
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles({ name: `${name}.jpg`, mimeType: 'image/jpeg', buffer: bytes });
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('Photo ajoutée')).toBeVisible();
    expect(said.some((text) => /^Photo 1 sur 1 : \d+ %$/.test(text))).toBe(true);
    expect(said.at(-1)).toBe('Photo 1 sur 1 reçue, préparation…');
    await expect(page).toHaveURL(new RegExp(`#${rowId}$`));
    const shown = page.locator(`#${rowId}`).getByRole('link', { name: new RegExp(`^Photo \\d+ : ${name}\\.jpg, ouvrir en grand$`) });
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
    await expect(status).toHaveText(NONE_ADDED + TOO_LARGE);
    const small = await cameraPhoto('jpeg');
    await input.setInputFiles(Array.from({ length: 21 }, (_, i) => ({ name: `p${i}.jpg`, mimeType: 'image/jpeg', buffer: small })));
    await here().getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText(`${NONE_ADDED}20 photos au plus par envoi.`);
    expect(await input.evaluate((i: HTMLInputElement) => i.files?.length)).toBe(21);
    expect(posts).toEqual([]);
    // A post refused before the page answers (413: too big for the server) keeps the form and says why.
    allowBrowserErrors(/status of 413/);
    await page.route('**/repair-order/**', (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 413, body: '' }) : route.fallback()));
    await input.setInputFiles({ name: 'bride.jpg', mimeType: 'image/jpeg', buffer: small });
    await here().getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText(`${NONE_ADDED}${TOO_BIG}`);
    await expect(here().getByRole('button', { name: 'Envoyer les photos' })).toBeEnabled();
    expect(await input.evaluate((i: HTMLInputElement) => i.files?.[0]?.name)).toBe('bride.jpg');
    await page.unroute('**/repair-order/**');
    // Too large a photo in a batch is refused by name unsent; the others go, and show once the page opens again.
    const sent = posts.length;
    const petite = `petite-${run()}.jpg`;
    await input.setInputFiles([
      { name: 'enorme.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(21 * 1024 * 1024, 0xff) },
      { name: petite, mimeType: 'image/jpeg', buffer: small },
    ]);
    await here().getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText(`Photo ajoutée ; ${TOO_LARGE}`);
    // Only the refusal reads as an error.
    await expect(status.locator('.text-danger')).toHaveText(TOO_LARGE);
    await expect(here().getByRole('link', { name: new RegExp(` : ${escaped(petite)}, ouvrir en grand$`) })).toHaveCount(1);
    expect(posts.length - sent).toBe(1);
  });

  test('in a Wi-Fi dead spot, keeps the form and the photos picked and says so, then sends them once the network is back', async ({ page, context }) => {
    allowBrowserErrors(/ERR_INTERNET_DISCONNECTED|ERR_FAILED|ERR_NETWORK_CHANGED/);
    await openProcedure(page, OPEN);
    const row = page.locator('li[id^="point-"]').nth(ROW.deadSpot);
    const rowId = await row.getAttribute('id');
    const bride = `bride-${run()}.jpg`;
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles({ name: bride, mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') });
    await context.setOffline(true);
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(row.locator('[data-photos-status]')).toHaveText(
      `${NONE_ADDED}Envoi interrompu : le réseau est perdu. Les photos choisies sont toujours là : réessayez quand le réseau revient.`,
    );
    expect(await row.getByLabel('Prendre ou choisir des photos').evaluate((input: HTMLInputElement) => input.files?.[0]?.name)).toBe(bride);
    await context.setOffline(false);
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('Photo ajoutée')).toBeVisible();
    await expect(page.locator(`#${rowId}`).getByRole('link', { name: new RegExp(`^Photo \\d+ : ${escaped(bride)}`) })).toBeVisible();
  });

  test('whose network drops once the photo is stored, keeps the page and says to reload it when the network is back', async ({ page, context }) => {
    allowBrowserErrors(/ERR_INTERNET_DISCONNECTED|ERR_FAILED|ERR_NETWORK_CHANGED|Failed to fetch/);
    await openProcedure(page, OPEN);
    const rowId = await page.locator('li[id^="point-"]').nth(ROW.deadSpot).getAttribute('id');
    const here = page.locator(`#${rowId}`);
    const name = `coupure-${run()}.jpg`;
    // The photo is stored and its 204 arrives; then the network is gone.
    await page.route(
      '**/repair-order/**',
      async (route) => {
        if (route.request().method() !== 'POST') return route.fallback();
        const response = await route.fetch();
        await context.setOffline(true);
        await route.fulfill({ response });
      },
      { times: 1 },
    );
    await here.getByLabel('Prendre ou choisir des photos').setInputFiles({ name, mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') });
    await here.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(here.locator('[data-photos-status]')).toHaveText('Photo ajoutée ; le réseau est perdu : rechargez la page quand il revient.');
    await expect(here.getByRole('button', { name: 'Envoyer les photos' })).toBeEnabled();
    await context.setOffline(false);
    await page.reload();
    await expect(page.locator(`#${rowId}`).getByRole('link', { name: new RegExp(` : ${escaped(name)}, ouvrir en grand$`) })).toHaveCount(1);
  });

  test('whose reply is lost after the photo reached the server, sends it again and it is kept once', async ({ page }) => {
    allowBrowserErrors(/ERR_CONNECTION_RESET|ERR_FAILED/);
    await openProcedure(page, OPEN);
    const rowId = await page.locator('li[id^="point-"]').nth(ROW.lostReply).getAttribute('id');
    const here = page.locator(`#${rowId}`);
    const name = `vanne-pilote-${run()}.jpg`;
    const shown = () => page.locator(`#${rowId}`).getByRole('link', { name: new RegExp(` : ${escaped(name)}, ouvrir en grand$`) });
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
    await here.getByLabel('Prendre ou choisir des photos').setInputFiles({ name, mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') });
    await here.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(here.locator('[data-photos-status]')).toContainText('Envoi interrompu');
    await here.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('Photo ajoutée')).toBeVisible();
    await expect(shown()).toHaveCount(1);
  });

  test('sends a batch photo by photo: the bad one is refused by name, the others shown at once, no toast left for later', async ({ page }) => {
    test.slow();
    allowBrowserErrors(REFUSED_LOGGED);
    await openProcedure(page, OPEN);
    const rowId = await page.locator('li[id^="point-"]').nth(ROW.mixed).getAttribute('id');
    const here = page.locator(`#${rowId}`);
    const input = here.getByLabel('Prendre ou choisir des photos');
    const status = here.locator('[data-photos-status]');
    const r = run();
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
      { name: `embrayage-${r}.jpg`, mimeType: 'image/jpeg', buffer: first },
      { name: `vanne-${r}.txt`, mimeType: 'text/plain', buffer: Buffer.from('Pression 4,2 bar\n') },
      { name: `boite-${r}.png`, mimeType: 'image/png', buffer: third },
      { name: `notes-${r}.txt`, mimeType: 'text/plain', buffer: Buffer.from('Couple 45 Nm\n') },
    ]);
    await here.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(status).toHaveText(/^Photo 1 sur 4/);
    await here.scrollIntoViewIfNeeded();
    await shot(page, 'photos-progress-768', true);
    // The page opened again shows the two added at once; the form names the two refused in one
    // sentence (no full stop before its semicolon), no longer picked.
    const summary = `2 photos ajoutées ; « vanne-${r}.txt » n'est pas une photo : JPEG, PNG ou WebP seulement ; « notes-${r}.txt » n'est pas une photo : JPEG, PNG ou WebP seulement.`;
    await expect(page.locator(`#${rowId}`).locator('[data-photos-status]')).toHaveText(summary);
    await expect(page.locator(`#${rowId}`).locator('[data-photos-status] .text-danger')).toHaveText(summary.replace('2 photos ajoutées ; ', ''));
    for (const name of [`embrayage-${r}.jpg`, `boite-${r}.jpg`])
      await expect(page.locator(`#${rowId}`).getByRole('link', { name: new RegExp(` : ${escaped(name)}, ouvrir en grand$`) })).toHaveCount(1);
    await page.locator(`#${rowId}`).scrollIntoViewIfNeeded();
    await shot(page, 'photos-mixed-summary-768', true);
    expect(posts).toBe(4);
    expect(said.some((text) => /^Photo 3 sur 4 : \d+ %$/.test(text))).toBe(true);
    expect(
      await page
        .locator(`#${rowId}`)
        .getByLabel('Prendre ou choisir des photos')
        .evaluate((i: HTMLInputElement) => i.files?.length),
    ).toBe(0);
    await expect(page.getByText('2 photos ajoutées', { exact: true })).toHaveCount(0);
    // Said once: opened again, the form is as new, and no toast waits for another page.
    await page.unroute('**/repair-order/**');
    await page.reload();
    await expect(page.locator(`#${rowId}`).locator('[data-photos-status]')).toHaveText('');
    await page.goto('/repair-orders');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByText(/photos ajoutées/)).toHaveCount(0);
  });

  test('without JavaScript, a post over the photo post cap is refused beside the field at its checkpoint', async ({ browser }) => {
    test.slow();
    const context = await browser.newContext({ storageState: storageState('mechanic'), javaScriptEnabled: false, ...touchTablet() });
    const page = await context.newPage();
    await page.goto(`/repair-orders?recherche=${OPEN}`);
    await page.getByRole('link', { name: OPEN, exact: true }).click();
    await page.getByRole('link', { name: 'Procédure de réparation' }).click();
    const row = page.locator('li[id^="point-"]').nth(ROW.noScript);
    const rowId = await row.getAttribute('id');
    await expect(row.getByText('20 photos au plus par envoi ; 64 Mo au plus par envoi.')).toBeVisible();
    // Four photos the hint accepts one by one (17 MB each), 68 MB together.
    const dir = mkdtempSync(path.join(tmpdir(), 'photos-cap-'));
    const files = ['a', 'b', 'c', 'd'].map((n) => path.join(dir, `${n}.jpg`));
    for (const file of files) writeFileSync(file, Buffer.alloc(17 * 1024 * 1024, 0xff));
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles(files);
    await refusedPost(page, row.getByRole('button', { name: 'Envoyer les photos' }));
    rmSync(dir, { recursive: true, force: true });
    await expect(page).toHaveURL(new RegExp(`#${rowId}$`));
    const here = page.locator(`#${rowId}`);
    await expect(here.getByRole('alert')).toHaveText(TOO_BIG);
    await expect(here.getByLabel('Prendre ou choisir des photos')).toHaveAttribute('aria-invalid', 'true');
    await here.scrollIntoViewIfNeeded();
    await shot(page, 'photos-cap-nojs-768', true);
    await context.close();
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
    const carter = `carter-${run()}`;
    await row.getByLabel('Prendre ou choisir des photos').setInputFiles([
      { name: `${carter}.png`, mimeType: 'image/png', buffer: await cameraPhoto('png') },
      { name: 'joint.webp', mimeType: 'image/webp', buffer: await cameraPhoto('webp', '#1e3a8a') },
    ]);
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('2 photos ajoutées')).toBeVisible();
    const here = page.locator(`#${rowId}`);
    await expect(here.getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 2);
    await expect(here.getByRole('link', { name: new RegExp(`^Photo \\d+ : ${carter}\\.jpg`) })).toBeVisible();
    // A deletion asks first (SPEC): a page of its own, whose cancel deletes nothing.
    await here.getByRole('link', { name: 'Supprimer la photo' }).nth(had).click();
    await expect(page.getByText(`Supprimer la photo « ${carter}.jpg » ?`)).toBeVisible();
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
    const name = `rapport-${run()}.jpg`;
    const posted = await mechanic.request.post(`${tabUrl.pathname}?onglet=procedure&action=photos&id=${pointId}`, {
      multipart: { photos: { name, mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg', '#334155') } },
      maxRedirects: 0,
      headers: { origin: tabUrl.origin },
    });
    expect(posted.status()).toBe(303);
    await mechanic.close();
    await page.reload();
    await expect(page.locator(`#point-${pointId}`).getByRole('link', { name: new RegExp(` : ${escaped(name)}, ouvrir en grand$`) })).toBeVisible();
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

  test('says so once in French beside the field when the photos are sent, sending no more', async ({ page, browser }) => {
    allowBrowserErrors(REFUSED_LOGGED);
    const admin = await browser.newContext({ storageState: storageState('app_admin') });
    const there = await admin.newPage();
    await reopenOrder(there, CLOSED);
    await openProcedure(page, CLOSED);
    const row = page.locator('li[id^="point-"]').first();
    const rowId = await row.getAttribute('id');
    const photo = await cameraPhoto('jpeg');
    const input = row.getByLabel('Prendre ou choisir des photos');
    await input.setInputFiles(['tard', 'trop-tard', 'bien-trop-tard'].map((name) => ({ name: `${name}.jpg`, mimeType: 'image/jpeg', buffer: photo })));
    await there.getByRole('button', { name: "Clôturer l'OR" }).click();
    await there.getByRole('dialog').getByRole('button', { name: 'Clôturer', exact: true }).click();
    await expect(there.getByText(/OR clôturé le/)).toBeVisible();
    await admin.close();
    const posts: string[] = [];
    page.on('request', (request) => request.method() === 'POST' && posts.push(request.url()));
    await row.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.locator(`#${rowId}`).locator('[data-photos-status]')).toHaveText(`${NONE_ADDED}${CLOSED_ORDER}`);
    // The first refusal stops the pick: one post, the three photos still picked.
    expect(posts).toHaveLength(1);
    expect(await input.evaluate((i: HTMLInputElement) => i.files?.length)).toBe(3);
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
    const [manometre, prise] = [`manometre-${run()}`, `prise-${run()}`];
    await photos.getByLabel('Prendre ou choisir des photos').setInputFiles([
      { name: `${manometre}.jpg`, mimeType: 'image/jpeg', buffer: await cameraPhoto('jpeg') },
      { name: `${prise}.png`, mimeType: 'image/png', buffer: await cameraPhoto('png', '#047857') },
    ]);
    await photos.getByRole('button', { name: 'Envoyer les photos' }).click();
    await expect(page.getByText('2 photos ajoutées')).toBeVisible();
    await expect(page.locator('#photos-mesure').getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 2);
    await page.locator('#photos-mesure').getByRole('link', { name: 'Supprimer la photo' }).nth(had).click();
    await expect(page.getByText(`Supprimer la photo « ${manometre}.jpg » ?`)).toBeVisible();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByText('Photo supprimée')).toBeVisible();
    await expect(page).toHaveURL(/#photos-mesure$/);
    await expect(page.locator('#photos-mesure').getByRole('link', { name: new RegExp(`^Photo \\d+ : ${prise}\\.jpg`) })).toBeVisible();
    const mechanic = await (await browser.newContext({ storageState: storageState('mechanic') })).newPage();
    await mechanic.goto(page.url());
    await expect(mechanic.locator('#photos-mesure').getByRole('link', { name: /ouvrir en grand$/ })).toHaveCount(had + 1);
    await expect(mechanic.getByRole('button', { name: 'Envoyer les photos' })).toHaveCount(0);
    await mechanic.context().close();
  });
});
