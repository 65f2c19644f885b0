// A browser as the pages see it, without one: cookies kept, our Origin on posts, no redirects followed.
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import type { TestApp } from './app.ts';

/** A browser-like client: keeps cookies, sends our Origin on posts, never follows redirects. */
export function browser(base: string) {
  const jar = new Map<string, string>();
  const setCookies: string[] = [];
  async function request(path: string, init: RequestInit & { origin?: string } = {}) {
    const headers = new Headers(init.headers);
    headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    if (init.method && init.method !== 'GET') headers.set('origin', init.origin ?? base);
    const res = await fetch(base + path, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      setCookies.push(line);
      const [pair] = line.split(';');
      const [name, ...rest] = pair!.split('=');
      const value = rest.join('=');
      if (/max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line) || value === '') jar.delete(name!);
      else jar.set(name!, value);
    }
    return res;
  }
  return {
    jar,
    setCookies,
    request,
    signIn: (email: string, password = DEMO_PASSWORD) =>
      request('/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, password }).toString(),
      }),
  };
}

/** A page's HTML with the entities Astro writes decoded (`&#39;` is the apostrophe of decision 020). */
export const htmlText = (html: string) =>
  html.replace(/&(#39|#x27|quot|lt|gt|amp);/g, (_, name: string) => ({ '#39': "'", '#x27': "'", quot: '"', lt: '<', gt: '>', amp: '&' })[name]!);

/**
 * A browser signed in as `email`; `aged`: its sign-in an hour old and not raised, so a change of a
 * way in asks the current password again (decision 048).
 */
export async function signedInBrowser(t: TestApp, email: string, aged = true) {
  const b = browser(t.url);
  expect((await b.signIn(email)).status).toBe(303);
  if (aged) {
    const user = (await t.app.services.auth.findUserByEmail(email))!;
    await t.database.db.execute(sql`update auth.grants set created_at = now() - interval '1 hour', elevated_at = null where user_id = ${user.id}`);
  }
  return b;
}
