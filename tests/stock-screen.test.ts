// The stock screen as a commercial reads it: a list filtered by a model offers to add boxes of
// that model (walk11 F7), the add form starting on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { browser } from './support/browser.ts';

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
});
