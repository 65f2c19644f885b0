// Issue 28: a page's status line says what its status means. Astro hands its Response's
// statusText to Node, and a page that sets only `Astro.response.status` kept the 'OK' of the
// 200 it started as: a refused form answered `400 OK`. Read through node:http, as a proxy or a
// log reads it.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { browser } from './support/browser.ts';

function statusLine(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; message: string }>((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, message: res.statusMessage! }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('the status line of a page', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    const b = browser(t.url);
    await b.signIn('admin@demo.local');
    cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  });
  afterAll(() => t?.close());

  const post = (path: string, fields: Record<string, string>) =>
    statusLine(t.url + path, {
      method: 'POST',
      headers: { cookie, origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  it('a form refused in place answers 400 Bad Request', async () => {
    // /jump's box left unticked is said in place (the page's forms move theirs to their own address: decisions 039, 087).
    const answer = await post('/jump?to=%2Fstock', {});
    expect(answer).toEqual({ status: 400, message: 'Bad Request' });
  });

  it('a refused sign-in or password answers 303 See Other, to the page that shows it', async () => {
    const answer = await statusLine(`${t.url}/sign-in`, {
      method: 'POST',
      headers: { origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'admin@demo.local', password: 'wrong-password' }).toString(),
    });
    expect(answer).toEqual({ status: 303, message: 'See Other' });
    expect(await post('/set-password', { currentPassword: 'x', password: 'court', confirmation: 'autre' })).toEqual({ status: 303, message: 'See Other' });
  });

  it('an unknown record answers 404 Not Found, a page 200 OK', async () => {
    expect(await statusLine(`${t.url}/repair-order/00000000-0000-4000-8000-000000000000`, { headers: { cookie } })).toEqual({
      status: 404,
      message: 'Not Found',
    });
    expect(await statusLine(`${t.url}/repair-orders`, { headers: { cookie } })).toEqual({ status: 200, message: 'OK' });
  });
});
