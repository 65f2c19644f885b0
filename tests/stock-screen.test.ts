// The stock screen as a commercial reads it: a list filtered by a model offers to add boxes of
// that model (walk11 F7), the add form starting on it.
import { eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stockItems } from '#server/db/schema/index.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { browser, htmlText } from './support/browser.ts';

describe('the stock screen', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('filtered by a model, links «Ajouter au stock» to the add form on that model', async () => {
    const b = browser(t.url);
    expect((await b.signIn('commercial@demo.local')).status).toBe(303);
    const all = await (await b.request('/stock')).text();
    expect(all).toMatch(/<a href="\/add-stock" class="btn btn-primary">\s*Ajouter au stock/);
    const modelId = /<option value="([0-9a-f-]{36})"/.exec(all)![1]!;
    const filtered = await (await b.request(`/stock?modele=${modelId}`)).text();
    expect(filtered).toMatch(new RegExp(`<a href="/add-stock\\?modele=${modelId}" class="btn btn-primary">\\s*Ajouter au stock`));
    const form = await (await b.request(`/add-stock?modele=${modelId}`)).text();
    expect(form).toMatch(new RegExp(`<option value="${modelId}" selected`));
  });

  it('keeps the exit reason typed when a colleague moved the box meanwhile (walk12 F5)', async () => {
    const claire = browser(t.url);
    expect((await claire.signIn('admin@demo.local')).status).toBe(303);
    const [item] = await t.database.db.select().from(stockItems).where(isNull(stockItems.outOn)).limit(1);
    const self = `/stock?article=${item!.id}`;
    // Sophie moves it first: the version Claire's page shows is no longer the box's.
    await t.database.db
      .update(stockItems)
      .set({ version: item!.version + 1 })
      .where(eq(stockItems.id, item!.id));
    const refused = await claire.request(`${self}&action=retirer`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ version: String(item!.version), outOn: '27/11/2026', outReason: 'Vendue au garage Martin' }).toString(),
    });
    expect(refused.status).toBe(303);
    const shown = htmlText(await (await claire.request(refused.headers.get('location')!)).text());
    expect(shown).toContain('Cette boîte a été modifiée entre-temps par un collègue');
    expect(shown).toMatch(/name="outReason"[^>]*>Vendue au garage Martin<\/textarea>|name="outReason"[^>]*value="Vendue au garage Martin"/);
  });
});
