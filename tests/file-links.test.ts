// A file tapped on a page left open for hours still opens (issue 32, decision 095): the links a
// user taps (a checkpoint's photo, a dossier's document, a curve's file) are `/files/{id}`, signed
// when tapped, not storage links signed when the page was drawn (valid 1 to 2 hours). Signed out,
// such a link leads to the sign-in and back; an unknown or malformed id is the French 404.
import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { gearboxDocuments, orderFiles } from '#server/db/schema/index.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { browser, htmlText } from './support/browser.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { demoEmails } from './kit/index.ts';

const HOURS = 3_600_000;

describe('links to stored files on the pages', () => {
  let t: TestApp;
  let diagnostician: ReturnType<typeof browser>;

  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    diagnostician = browser(t.url);
    expect((await diagnostician.signIn(demoEmails.diagnostician)).status).toBe(303);
  });
  afterAll(() => t?.close());
  afterEach(() => vi.useRealTimers());

  /** The demo's files a user taps, each with the page that shows it. */
  async function tappedFiles() {
    const db = t.database.db;
    const [photo] = await db
      .select({ orderId: orderFiles.orderId, fileId: orderFiles.fileId })
      .from(orderFiles)
      .where(and(eq(orderFiles.kind, 'photo'), isNotNull(orderFiles.checkpointId)))
      .limit(1);
    const [curve] = await db.select({ orderId: orderFiles.orderId, fileId: orderFiles.fileId }).from(orderFiles).where(eq(orderFiles.kind, 'curve')).limit(1);
    const [document] = await db
      .select({ modelId: gearboxDocuments.modelId, fileId: gearboxDocuments.fileId })
      .from(gearboxDocuments)
      .where(eq(gearboxDocuments.category, 'reference-curve'))
      .limit(1);
    return [
      { what: 'a checkpoint photo', page: `/repair-order/${photo!.orderId}?onglet=procedure`, fileId: photo!.fileId, type: 'image/jpeg' },
      { what: 'a curve file', page: `/repair-order/${curve!.orderId}/diagnostic?onglet=courbes`, fileId: curve!.fileId, type: 'text/csv' },
      { what: 'a dossier document', page: `/gearbox/${document!.modelId}?onglet=documents&vue=courbes`, fileId: document!.fileId, type: 'text/csv' },
    ];
  }

  /** Follows redirects as a browser does, with its cookies: the last answer. */
  async function follow(b: ReturnType<typeof browser>, href: string) {
    let res = await b.request(href);
    for (let hops = 0; hops < 5 && res.status >= 300 && res.status < 400; hops++) {
      const next = new URL(res.headers.get('location')!, t.url);
      res = await b.request(next.pathname + next.search);
    }
    return res;
  }

  it('opens the file from a page drawn three hours earlier', async () => {
    for (const { what, page, fileId, type } of await tappedFiles()) {
      const res = await diagnostician.request(page);
      expect(res.status, what).toBe(200);
      const html = htmlText(await res.text());
      const href = new RegExp(`href="([^"]*${fileId}[^"]*)"`).exec(html)?.[1];
      expect(href, what).toBeDefined();
      // The tablet left on the page all morning: the tap comes three hours later.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 3 * HOURS);
      const file = await follow(diagnostician, href!);
      vi.useRealTimers();
      expect(file.status, `${what} at ${href}`).toBe(200);
      expect(file.headers.get('content-type'), what).toContain(type);
      expect(Buffer.from(await file.arrayBuffer()).equals((await t.app.services.files.blobs.read(fileId))!), what).toBe(true);
    }
  });

  it('passes a thumbnail width on, and is never cached', async () => {
    const [photo] = await tappedFiles();
    const res = await diagnostician.request(`/files/${photo!.fileId}?w=320`);
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^/api/storage/files/${photo!.fileId}\\?expires=\\d+&signature=[\\w-]+&w=320$`));
    const thumbnail = await diagnostician.request(location);
    expect(thumbnail.headers.get('content-type')).toBe('image/webp');
  });

  it('sends a signed-out visitor to the sign-in, then back to the file', async () => {
    const [photo] = await tappedFiles();
    const visitor = browser(t.url);
    const path = `/files/${photo!.fileId}?w=320`;
    const res = await visitor.request(path);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/sign-in?redirectTo=${encodeURIComponent(path)}`);
    const signedIn = await visitor.request(`/sign-in?redirectTo=${encodeURIComponent(path)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: demoEmails.mechanic, password: DEMO_PASSWORD }).toString(),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(path);
    const file = await follow(visitor, path);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/webp');
  });

  it('answers the French 404 for an unknown or malformed id', async () => {
    for (const id of ['3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f', 'pas-un-fichier', '1%27%20or%201%3D1']) {
      const res = await diagnostician.request(`/files/${id}`);
      expect(res.status, id).toBe(404);
      const html = htmlText(await res.text());
      expect(html, id).toContain('Fichier introuvable');
      expect(html, id).toContain('Cette adresse ne correspond à aucun élément.');
    }
  });
});
