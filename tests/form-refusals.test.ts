// Decision 039: a refused post moves to its own address with what to show again, in an encrypted
// cookie for that path, read once, by the same user at the same address only.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { postOrShowRefusal, redirectRefusal, takeRefusal } from '#lib/forms.server.ts';

type Jar = Map<string, { value: string; path?: string; maxAge?: number }>;

function pageAt(href: string, method: string, jar: Jar, userId = 'u1', secret = 's'.repeat(32)) {
  const url = new URL(href, 'http://localhost');
  return {
    url,
    request: new Request(url, { method }),
    locals: { user: { id: userId }, services: { config: { sessionSecret: secret, publicUrl: 'http://localhost' } } },
    cookies: {
      get: (name: string) => (jar.has(name) ? { value: jar.get(name)!.value } : undefined),
      set: (name: string, value: string, options: { path?: string; maxAge?: number }) => void jar.set(name, { value, ...options }),
      delete: (name: string) => void jar.delete(name),
    },
    redirect: (path: string, status = 302) => new Response(null, { status, headers: { location: path } }),
  } as unknown as Parameters<typeof redirectRefusal>[0];
}

const ADDRESS = '/repair-order/1?onglet=procedure&action=point';
const state = { status: 400, values: { comment: 'é'.repeat(2000) }, errors: { measuredValue: 'Nombre invalide' } };

describe('refusals at their own address', () => {
  it('answers 303 to the same address, whose GET shows the state once', async () => {
    const jar: Jar = new Map();
    const answer = await postOrShowRefusal(pageAt(ADDRESS, 'POST', jar), async () => state);
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(303);
    expect((answer as Response).headers.get('location')).toBe(ADDRESS);
    // A 2,000-character comment fits in one cookie, for this path, short-lived.
    expect([...jar.keys()]).toEqual(['atelier_refus0']);
    expect(jar.get('atelier_refus0')).toMatchObject({ path: '/repair-order/1', maxAge: 120 });
    expect(jar.get('atelier_refus0')!.value).not.toContain('Nombre');
    expect(await postOrShowRefusal(pageAt(ADDRESS, 'GET', jar), async () => null)).toEqual(state);
    // Read once: a reload shows the page as it is.
    expect(takeRefusal(pageAt(ADDRESS, 'GET', jar))).toBeNull();
  });

  it('shows nothing to another user, at another address, or from a tampered cookie', () => {
    for (const [page, expected] of [
      [pageAt(ADDRESS, 'GET', new Map(), 'u2'), null],
      [pageAt('/repair-order/1?onglet=procedure', 'GET', new Map()), null],
      [pageAt(ADDRESS, 'GET', new Map(), 'u1', 't'.repeat(32)), null],
    ] as const) {
      const jar: Jar = new Map();
      redirectRefusal(pageAt(ADDRESS, 'POST', jar), state);
      (page.cookies as unknown as { set: (n: string, v: string, o: object) => void }).set('atelier_refus0', jar.get('atelier_refus0')!.value, {});
      expect(takeRefusal(page)).toEqual(expected);
    }
    const jar: Jar = new Map();
    redirectRefusal(pageAt(ADDRESS, 'POST', jar), state);
    const value = jar.get('atelier_refus0')!.value;
    jar.set('atelier_refus0', { value: `${value.slice(0, 40)}${value[40] === 'A' ? 'B' : 'A'}${value.slice(41)}` });
    expect(takeRefusal(pageAt(ADDRESS, 'GET', jar))).toBeNull();
  });

  it('leaves a refusal too long for three cookies to the page, in place', () => {
    const jar: Jar = new Map();
    const noise = randomBytes(12_000).toString('base64');
    expect(redirectRefusal(pageAt(ADDRESS, 'POST', jar), { values: { steps: noise } })).toBeNull();
    expect(jar.size).toBe(0);
  });
});
