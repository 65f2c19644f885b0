// Decision 039: a refused post moves to its own address with what to show again, in an encrypted
// cookie for that path, by the same user at the same address only, until a post of the page succeeds.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { postOrShowRefusal, redirectRefusal, readRefusal } from '#lib/forms.server.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { browser, htmlText } from './support/browser.ts';

type Jar = Map<string, { value: string; path?: string; maxAge?: number }>;

function pageAt(href: string, method: string, jar: Jar, userId = 'u1', secret = 's'.repeat(32)) {
  const url = new URL(href, 'http://localhost');
  return {
    url,
    request: new Request(url, { method }),
    response: { status: 200 },
    locals: { user: { id: userId }, services: { config: { sessionSecret: secret, publicUrl: 'http://localhost' } } },
    cookies: {
      get: (name: string) => (jar.has(name) ? { value: jar.get(name)!.value } : undefined),
      set: (name: string, value: string, options: { path?: string; maxAge?: number }) => void jar.set(name, { value, ...options }),
      delete: (name: string) => void jar.delete(name),
    },
    redirect: (path: string, status = 302) => new Response(null, { status, headers: { location: path } }),
  } as unknown as Parameters<typeof postOrShowRefusal>[0];
}

const ADDRESS = '/repair-order/1?onglet=procedure';
const state = { status: 400, values: { comment: 'é'.repeat(2000) }, errors: { measuredValue: 'Nombre invalide' } };

afterEach(() => void vi.useRealTimers());

describe('refusals at their own address', () => {
  it('answers 303 to the same address, whose GET shows the state, again on a reload, until a post succeeds', async () => {
    const jar: Jar = new Map();
    const answer = await postOrShowRefusal(pageAt(ADDRESS, 'POST', jar), async () => state);
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(303);
    expect((answer as Response).headers.get('location')).toBe(ADDRESS);
    // A 2,000-character comment fits in one cookie, for this path, short-lived.
    // Beside it, for every page to see, which path it waits on (decision 064: leaving the page drops it).
    expect([...jar.keys()]).toEqual(['atelier_refus0', 'atelier_refus_page']);
    expect(jar.get('atelier_refus0')).toMatchObject({ path: '/repair-order/1', maxAge: 600 });
    expect(jar.get('atelier_refus_page')).toMatchObject({ value: '/repair-order/1', path: '/', maxAge: 600 });
    expect(jar.get('atelier_refus0')!.value).not.toContain('Nombre');
    expect(await postOrShowRefusal(pageAt(ADDRESS, 'GET', jar), async () => null)).toEqual(state);
    // A reload shows it again: what was typed survives a reload.
    expect(await readRefusal(pageAt(ADDRESS, 'GET', jar))).toEqual(state);
    // Another address of the same path shows nothing and keeps it.
    expect(await readRefusal(pageAt('/repair-order/1?onglet=historique', 'GET', jar))).toBeNull();
    expect(await readRefusal(pageAt(ADDRESS, 'GET', jar))).toEqual(state);
    // A post of the page that succeeds ends it.
    const done = await postOrShowRefusal(pageAt(ADDRESS, 'POST', jar), async () => new Response(null, { status: 303, headers: { location: ADDRESS } }));
    expect((done as Response).status).toBe(303);
    expect(jar.size).toBe(0);
    expect(await readRefusal(pageAt(ADDRESS, 'GET', jar))).toBeNull();
  });

  it("shows the form again with a 200: the refusal was the POST's, which the 303 says", async () => {
    const jar: Jar = new Map();
    await postOrShowRefusal(pageAt(ADDRESS, 'POST', jar), async () => state);
    const page = pageAt(ADDRESS, 'GET', jar);
    expect(await postOrShowRefusal(page, async () => null)).toEqual(state);
    expect(page.response.status).toBe(200);
  });

  it('moves to the address named by `at`, with its anchor, and shows it there only', async () => {
    const jar: Jar = new Map();
    const post = '/repair-order/1?onglet=procedure&action=point&id=2&version=0';
    const answer = await postOrShowRefusal(pageAt(post, 'POST', jar), async () => state, { at: '/repair-order/1?onglet=procedure#point-2' });
    expect((answer as Response).status).toBe(303);
    expect((answer as Response).headers.get('location')).toBe('/repair-order/1?onglet=procedure#point-2');
    expect(await readRefusal(pageAt(post, 'GET', new Map(jar)))).toBeNull();
    expect(await readRefusal(pageAt('/repair-order/1?onglet=procedure', 'GET', jar))).toEqual(state);
  });

  it('moves a post naming its action, record or version to the address that shows its form, without them', async () => {
    for (const [post, shown] of [
      ['/repair-order/1?action=supprimer', '/repair-order/1'],
      ['/repair-order/1?onglet=codes-defaut&action=lecture', '/repair-order/1?onglet=codes-defaut'],
      ['/repair-order/1/diagnostic?onglet=courbes&courbe=2&action=courbe-modif&id=2', '/repair-order/1/diagnostic?onglet=courbes&courbe=2'],
      ['/gearbox/1?onglet=procedures&procedure=nouvelle&action=enregistrer-procedure', '/gearbox/1?onglet=procedures&procedure=nouvelle'],
    ]) {
      const jar: Jar = new Map();
      const answer = await postOrShowRefusal(pageAt(post!, 'POST', jar), async () => state);
      expect((answer as Response).headers.get('location'), post).toBe(shown);
      expect(await readRefusal(pageAt(shown!, 'GET', jar))).toEqual(state);
    }
    // An anchor alone: the form on that address.
    const jar: Jar = new Map();
    const post = '/repair-order/1/diagnostic?onglet=courbes&action=courbe-fichier&id=2';
    const answer = await postOrShowRefusal(pageAt(post, 'POST', jar), async () => state, { at: '#courbe-2' });
    expect((answer as Response).headers.get('location')).toBe('/repair-order/1/diagnostic?onglet=courbes#courbe-2');
  });

  it('ignores a refusal older than ten minutes', async () => {
    const jar: Jar = new Map();
    await redirectRefusal(pageAt(ADDRESS, 'POST', jar), state);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 601_000);
    expect(await readRefusal(pageAt(ADDRESS, 'GET', jar))).toBeNull();
  });

  it('shows nothing to another user, at another address, or from a tampered cookie', async () => {
    for (const [page, expected] of [
      [pageAt(ADDRESS, 'GET', new Map(), 'u2'), null],
      [pageAt('/repair-order/1?onglet=historique', 'GET', new Map()), null],
      [pageAt(ADDRESS, 'GET', new Map(), 'u1', 't'.repeat(32)), null],
    ] as const) {
      const jar: Jar = new Map();
      await redirectRefusal(pageAt(ADDRESS, 'POST', jar), state);
      (page.cookies as unknown as { set: (n: string, v: string, o: object) => void }).set('atelier_refus0', jar.get('atelier_refus0')!.value, {});
      expect(await readRefusal(page)).toEqual(expected);
    }
    const jar: Jar = new Map();
    await redirectRefusal(pageAt(ADDRESS, 'POST', jar), state);
    const value = jar.get('atelier_refus0')!.value;
    jar.set('atelier_refus0', { value: `${value.slice(0, 40)}${value[40] === 'A' ? 'B' : 'A'}${value.slice(41)}` });
    expect(await readRefusal(pageAt(ADDRESS, 'GET', jar))).toBeNull();
  });

  it('leaves a refusal too long for three cookies to the page, in place, with its status', async () => {
    const jar: Jar = new Map();
    const noise = randomBytes(12_000).toString('base64');
    expect(await redirectRefusal(pageAt(ADDRESS, 'POST', jar), { values: { steps: noise } })).toBeNull();
    expect(jar.size).toBe(0);
    const page = pageAt(ADDRESS, 'POST', jar);
    expect(await postOrShowRefusal(page, async () => ({ status: 409, values: { steps: noise } }))).toMatchObject({ status: 409 });
    expect(page.response.status).toBe(409);
  });
});

// The pages themselves, as a browser without JavaScript posts to them (decision 039): a refused
// post answers 303 to the address that shows its form (never the one naming the action), whose
// GET answers 200 with what was typed and why, again on a reload.
describe('refused posts of the pages, without JavaScript', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('pglite', { pages: true });
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (b: ReturnType<typeof browser>, path: string, fields: Record<string, string>) =>
    b.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  /** Posts, expects a 303 to `landing`, then reads it: 200, its text; and a reload, which shows it again. */
  async function refused(b: ReturnType<typeof browser>, path: string, fields: Record<string, string>, landing: string) {
    const answer = await post(b, path, fields);
    expect(answer.status, path).toBe(303);
    expect(answer.headers.get('location')).toBe(landing);
    const shown = await b.request(landing.replace(/#.*/, ''));
    expect(shown.status, landing).toBe(200);
    const again = await b.request(landing.replace(/#.*/, ''));
    expect(again.status).toBe(200);
    return { shown: htmlText(await shown.text()), again: htmlText(await again.text()) };
  }
  const signedIn = async (email: string) => {
    const b = browser(app.url);
    expect((await b.signIn(email)).status).toBe(303);
    return b;
  };

  it('shows a form again with a 200 (order creation)', async () => {
    const b = await signedIn('diagnostic@demo.local');
    const { shown } = await refused(b, '/repair-order', { number: 'OR-PRG-200' }, '/repair-order');
    expect(shown).toContain('value="OR-PRG-200"');
    expect(shown).toContain('aria-invalid="true"');
  });

  it('stops the typing of a text where its schema would refuse it (walk31 F5)', async () => {
    const b = await signedIn('diagnostic@demo.local');
    const html = async (path: string) => htmlText(await (await b.request(path)).text());
    const field = (page: string, name: string) => new RegExp(`<(input|textarea)[^>]*name="${name}"[^>]*>`).exec(page)?.[0] ?? `no field ${name}`;
    const model = await html('/gearbox');
    expect(field(model, 'businessName')).toMatch(/maxlength="120"/i);
    expect(field(model, 'model')).toMatch(/maxlength="60"/i);
    const order = await html('/repair-order');
    expect(field(order, 'number')).toMatch(/maxlength="40"/i);
    expect(field(order, 'historyIntervention')).toMatch(/maxlength="300"/i);
    const list = await html('/repair-orders?recherche=OR-2026-0601');
    const orderPath = /href="(\/repair-order\/[0-9a-f-]{36})"/.exec(list)![1]!;
    const code = await html(`${orderPath}/code-conditions`);
    expect(field(code, 'description')).toMatch(/maxlength="300"/i);
    expect(field(code, 'comment')).toMatch(/maxlength="1000"/i);
    const measures = await html(`${orderPath}/diagnostic?onglet=mesures`);
    const measurePath = /href="(\/repair-order\/[0-9a-f-]{36}\/measure\/[0-9a-f-]{36})"/.exec(measures)?.[1];
    expect(measurePath, 'a measure of the order').toBeDefined();
    expect(field(await html(measurePath!), 'comment')).toMatch(/maxlength="1000"/i);
  });

  it('says what the database refuses of a post (a NUL character) at the form, never a 500', async () => {
    // The service stores the text as typed; PostgreSQL refuses a NUL in a text column (22021).
    const b = await signedIn('admin@demo.local');
    const { shown } = await refused(b, '/symptoms-conditions-base', { intent: 'create', name: 'Claquement\u0000' }, '/symptoms-conditions-base');
    expect(shown).toContain('Valeur invalide : caractère nul');
  });

  it('answers a refused checkpoint at the procedure tab, at its row', async () => {
    const b = await signedIn('diagnostic@demo.local');
    const list = await (await b.request('/repair-orders?recherche=OR-2026-0463')).text();
    const order = /\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!;
    const tab = htmlText(await (await b.request(`/repair-order/${order}?onglet=procedure`)).text());
    const [action, id] = /action="([^"]*action=point&id=([0-9a-f-]{36})&version=\d+)"/.exec(tab.replace(/&amp;/g, '&'))!.slice(1) as [string, string];
    const { shown, again } = await refused(
      b,
      action,
      { checkResult: 'not_mesurable', measuredValue: 'abc', comment: 'Sonde indisponible' },
      `/repair-order/${order}?onglet=procedure#point-${id}`,
    );
    expect(shown).toContain('Nombre invalide');
    expect(shown).toContain('Sonde indisponible');
    expect(again).toContain('Sonde indisponible');
  });

  it("answers the stock page's refused move and take-out at the box's address", async () => {
    const b = await signedIn('diagnostic@demo.local');
    const list = await (await b.request('/stock')).text();
    const item = /[?&]article=([0-9a-f-]{36})/.exec(list)![1]!;
    const box = `/stock?article=${item}`;
    const moved = await refused(b, `${box}&action=deplacer`, { rack: 'B 12 !', level: '2', version: '0' }, box);
    expect(moved.shown).toContain('value="B 12 !"');
    expect(moved.again).toContain('value="B 12 !"');
    const removed = await refused(b, `${box}&action=retirer`, { outOn: '', outReason: 'Vendue au garage Martin' }, box);
    expect(removed.shown).toContain('Vendue au garage Martin');
    expect(removed.shown).toContain('Champ obligatoire');
    // The codes tab's forms too, at the tab's address on its model.
    const codes = await (await b.request('/stock?onglet=codes')).text();
    const model = /onglet=codes&(?:amp;)?modele=([0-9a-f-]{36})/.exec(codes)![1]!;
    const tab = `/stock?onglet=codes&modele=${model}`;
    const code = await refused(b, `${tab}&action=ajouter-code-doctor`, { code: '', businessName: 'Boîte de secours' }, tab);
    expect(code.shown).toContain('value="Boîte de secours"');
    expect(code.again).toContain('Boîte de secours');
  });

  it("answers the users screen's refused add at the list's address, with what was typed", async () => {
    const b = await signedIn('admin@demo.local');
    const { shown, again } = await refused(
      b,
      '/users',
      { action: 'ajouter', displayName: 'Claire Bis', email: 'admin@demo.local', defaultRole: 'mechanic' },
      '/users',
    );
    expect(shown).toContain('value="Claire Bis"');
    expect(shown).toContain('Email non disponible');
    expect(again).toContain('Claire Bis');
  });

  it("answers the diagnostic's refused forms at their tab or step, without the action", async () => {
    const b = await signedIn('diagnostic@demo.local');
    const list = await (await b.request('/repair-orders?recherche=OR-2026-0463')).text();
    const order = /\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!;
    const tab = `/repair-order/${order}/diagnostic?onglet=courbes`;
    const { shown, again } = await refused(b, `${tab}&action=courbe-ajout`, { description: '', result: 'Pression instable en 3e' }, `${tab}#courbe-formulaire`);
    expect(shown).toContain('value="Pression instable en 3e"');
    expect(shown).toContain('Champ obligatoire');
    expect(again).toContain('Pression instable en 3e');
  });

  it("answers a dossier's refused procedure at its tab, the form still open", async () => {
    const b = await signedIn('diagnostic@demo.local');
    const list = await (await b.request('/gearboxes')).text();
    const model = /\/gearbox\/([0-9a-f-]{36})/.exec(list)![1]!;
    const form = `/gearbox/${model}?onglet=procedures&procedure=nouvelle`;
    const { shown, again } = await refused(
      b,
      `${form}&action=enregistrer-procedure`,
      { name: '', description: 'Contrôle du bloc hydraulique' },
      `${form}#procedure-form`,
    );
    expect(shown).toContain('Contrôle du bloc hydraulique');
    expect(shown).toContain('Champ obligatoire');
    expect(again).toContain('Contrôle du bloc hydraulique');
  });

  it("answers the order list's refused deletion at the list's address", async () => {
    const b = await signedIn('diagnostic@demo.local');
    const { shown, again } = await refused(b, '/repair-orders?recherche=OR-2026&action=supprimer', { id: randomUUID() }, '/repair-orders?recherche=OR-2026');
    // Deleted meanwhile (by a colleague): said over the list.
    expect(shown).toContain('role="alert">Élément introuvable</p>');
    expect(again).toContain('Élément introuvable');
  });
});
