// A page whose data the API could not give (issue 17: search pages under load ran out of their
// time budget) answers in French: 503 with Retry-After when a moment's wait helps, else the 500
// page; never Astro's empty 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultGraphQLLimits } from '#server/config.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { browser, htmlText } from './support/browser.ts';

/** `busy` answers every list past its 1 ms time budget; `t` has the usual limits. */
let busy: TestApp;
let t: TestApp;
beforeAll(async () => {
  busy = await startTestApp('pglite', { pages: true, production: true, graphqlLimits: { ...defaultGraphQLLimits, timeBudgetMs: 1 } });
  t = await startTestApp('pglite', { pages: true, production: true });
});
afterAll(async () => {
  await busy?.close();
  await t?.close();
});

describe('a page whose API call fails', () => {
  it('answers 503 in French with Retry-After when the API ran out of time, and loads again by itself', async () => {
    const b = browser(busy.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const res = await b.request('/repair-orders?recherche=8hp');
    const html = await res.text();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(html).toContain('<meta http-equiv="refresh" content="5">');
    expect(htmlText(html)).toContain("La page n'a pas pu être préparée à temps. Nouvel essai dans 5 secondes.");
  });

  it('shows the French error page, with its security headers, when the API failed otherwise', async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const services = t.app.domain.base;
    const list = services.list;
    services.list = (() => Promise.reject(new Error('disque plein'))) as unknown as typeof list;
    try {
      const res = await b.request('/symptoms-conditions-base');
      const html = await res.text();
      expect(res.status).toBe(500);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(htmlText(html)).toContain("La page n'a pas pu être affichée.");
      expect(html).not.toContain('disque plein');
    } finally {
      services.list = list;
    }
  });
});
