// The photo forms' posts to their page (issue 32 round 3, decision 088): a form's post over the photo
// post cap is refused beside its field like any refused post (303, shown again at its checkpoint),
// the script's gets its 413; the script's posts leave the toast only with the pick's last post.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, viewerOf } from './support/app.ts';
import { checkpointsOf, createOrderOnTheFloor, demoEmails, graphqlAs, M, ok, signInAll } from './kit/index.ts';
import { browser, htmlText } from './support/browser.ts';
import { cameraPhoto } from './kit/photos.ts';
import { FLASH_COOKIE } from '#lib/toasts.ts';

const upload = (name: string, bytes: Buffer) => new File([new Uint8Array(bytes)], name);
const TOO_BIG = 'Envoi trop volumineux : 64 Mo au plus par envoi ; envoyez moins de photos à la fois.';

describe('the photo forms posted to their page (issue 32 round 3)', () => {
  let t: TestApp;
  let order: { orderId: string; pointId: string; measureId: string };
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    const gql = graphqlAs(t, await signInAll(t));
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician, { measuresDone: true });
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const measure = ok(await gql.diagnostician(M.insertOrderMeasure, { o: orderId, m: { name: 'Pression principale', unit: 'bar' } }));
    order = { orderId, pointId: point!.id, measureId: measure.insertOrderMeasure as string };
  });
  afterAll(() => t?.close());

  const mechanic = async (who: string = demoEmails.mechanic, action = `/repair-order/${order.orderId}?onglet=procedure&action=photos&id=${order.pointId}`) => {
    const b = browser(t.url);
    await b.signIn(who);
    const post = (files: [string, Buffer][], headers: Record<string, string> = {}) => {
      const form = new FormData();
      form.set('cle', `cle-${files[0]![0]}-0123456789`);
      for (const [name, bytes] of files) form.append('photos', upload(name, bytes));
      return b.request(action, { method: 'POST', body: form, headers });
    };
    return { b, post };
  };

  it('sends a form post over the photo cap back to its checkpoint, said beside the field; the script gets its 413', async () => {
    const { b, post } = await mechanic();
    const tab = `/repair-order/${order.orderId}?onglet=procedure`;
    // The hint says the post's cap too.
    expect(htmlText(await (await b.request(tab)).text())).toContain('20 photos au plus par envoi ; 64 Mo au plus par envoi.');
    // Four photos the hint accepts one by one, 68 MB together.
    const big = Buffer.alloc(17 * 1024 * 1024, 0xff);
    const files: [string, Buffer][] = ['a', 'b', 'c', 'd'].map((n) => [`${n}.jpg`, big]);
    const refused = await post(files);
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe(`${tab}#point-${order.pointId}`);
    const shown = htmlText(await (await b.request(tab)).text());
    expect(shown).toContain(TOO_BIG);
    expect(shown).toMatch(new RegExp(`id="photos-${order.pointId}-erreur"[^>]*>${TOO_BIG}<`));
    const scripted = await post(files, { 'x-atelier-photos': '0' });
    expect(scripted.status).toBe(413);
    expect(await scripted.text()).toContain(TOO_BIG);
  });

  it('leaves the toast only with the last post of a pick none of whose photos was refused', async () => {
    const { b, post } = await mechanic();
    const flashed = () => b.jar.has(FLASH_COOKIE);
    expect((await post([['bride.jpg', await cameraPhoto('jpeg')]], { 'x-atelier-photos': '0' })).status).toBe(204);
    expect(flashed()).toBe(false);
    expect((await post([['joint.jpg', await cameraPhoto('jpeg', '#1e3a8a')]], { 'x-atelier-photos': '1;last' })).status).toBe(204);
    expect(flashed()).toBe(true);
    expect(htmlText(await (await b.request(`/repair-order/${order.orderId}?onglet=procedure`)).text())).toContain('2 photos ajoutées');
  });

  it('sends a measure form post over the photo cap back to the measure, said beside the field', async () => {
    const self = `/repair-order/${order.orderId}/measure/${order.measureId}`;
    const { b, post } = await mechanic(demoEmails.diagnostician, `${self}?action=photos`);
    const big = Buffer.alloc(17 * 1024 * 1024, 0xff);
    const refused = await post(['a', 'b', 'c', 'd'].map((n) => [`${n}.jpg`, big]));
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe(`${self}#photos-mesure`);
    const shown = htmlText(await (await b.request(self)).text());
    // Beside the field (the form's data holds the words for the script too).
    expect(shown).toMatch(new RegExp(`id="photos-[^"]+-erreur"[^>]*>${TOO_BIG}<`));
    // The measure's own form is drawn as saved around it.
    expect(shown).toContain('value="Pression principale"');
  });

  it('answers the checkpoint of a photo it deletes, where the page lands', async () => {
    const photos = t.app.services.forViewer(await viewerOf(t, demoEmails.mechanic)).orderPhotos;
    await photos.addToCheckpoint(order.pointId, [upload('carter.jpg', await cameraPhoto('jpeg'))], order.orderId);
    const photo = (await photos.photosOf(order.orderId)).find((p) => p.name === 'carter.jpg')!;
    expect(await photos.removeFromCheckpoint(photo.id, order.orderId)).toBe(order.pointId);
  });

  it('tells a commercial whose forged post deletes a photo that the access is refused, deleting nothing', async () => {
    const photos = t.app.services.forViewer(await viewerOf(t, demoEmails.mechanic)).orderPhotos;
    await photos.addToCheckpoint(order.pointId, [upload('joint.jpg', await cameraPhoto('jpeg'))], order.orderId);
    const photo = (await photos.photosOf(order.orderId)).find((p) => p.name === 'joint.jpg')!;
    const tab = `/repair-order/${order.orderId}?onglet=procedure`;
    const { b } = await mechanic(demoEmails.commercial);
    const forged = await b.request(`${tab}&action=supprimer-photo&id=${photo.id}`, {
      method: 'POST',
      body: new URLSearchParams(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.status).toBe(303);
    const shown = htmlText(await (await b.request(tab)).text());
    expect(shown).toMatch(/role="alert"[^>]*>Accès refusé</);
    expect(shown).not.toContain('Une erreur est survenue');
    expect((await photos.photosOf(order.orderId)).some((p) => p.id === photo.id)).toBe(true);
  });
});
