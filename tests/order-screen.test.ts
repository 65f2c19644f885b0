// The order page's one request path (issue 31, decision 065/066): opening an order reads it once,
// through the viewer's services, and answering a checkpoint posts straight to the service (no
// read of the order before it), then the redirect's GET reads the order once. No GraphQL call on
// the way: pages have no in-process GraphQL client any more (tests/import-graph.test.ts).
import { and, asc, eq, inArray, isNotNull, ne, notExists } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { energyLabels } from '#lib/repair-orders/repair-orders.ts';
import { interventionHistory, orderCheckpoints, orderEvents, orderMeasures, orderProcedures, repairOrders, users } from '#server/db/schema/index.ts';
import { createModel, createOrder, graphqlAs, signInAll } from './kit/index.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { browser, htmlText } from './support/browser.ts';

/** The fields the page's post form to `action` sends, as a browser fills them from the HTML. */
function formFieldsOf(html: string, action: string): Record<string, string> {
  const form = new RegExp(`<form method="post" action="${action.replace(/[?]/g, '\\$&')}"[^>]*>([\\s\\S]*?)</form>`).exec(html)![1]!;
  const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  const fields: Record<string, string> = {};
  for (const [tag] of form.matchAll(/<input[^>]*>/g)) {
    const name = attr(tag, 'name');
    const type = attr(tag, 'type') ?? 'text';
    if (!name || tag.includes(' disabled') || ((type === 'checkbox' || type === 'radio') && !tag.includes(' checked'))) continue;
    fields[name] = htmlText(attr(tag, 'value') ?? '');
  }
  for (const [, tag, text] of form.matchAll(/(<textarea[^>]*>)([\s\S]*?)<\/textarea>/g)) {
    const name = attr(tag!, 'name');
    if (name) fields[name] = htmlText(text!);
  }
  for (const [, tag, options] of form.matchAll(/(<select[^>]*>)([\s\S]*?)<\/select>/g)) {
    const name = attr(tag!, 'name');
    if (name && !tag!.includes(' disabled')) fields[name] = htmlText(/<option value="([^"]*)" selected/.exec(options!)?.[1] ?? '');
  }
  return fields;
}

/** The texts of the page a refused post redirects to, paragraph by paragraph: the refusal, then what was typed, label then value. */
async function alertOf(b: ReturnType<typeof browser>, refused: Response): Promise<string[]> {
  const html = await (await b.request(refused.headers.get('location')!)).text();
  return [...html.matchAll(/<(p|dt|dd)[^>]*>([^<]*)<\/\1>/g)].map((m) => htmlText(m[2]!));
}

describe('the order page, as a tablet opens it and answers a checkpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reads the order once per GET, and answers without reading it first', async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const list = await (await b.request('/repair-orders?recherche=OR-2026-0463')).text();
    const order = /\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!;
    const reads = vi.spyOn(t.app.domain.repairOrders, 'get');
    const codes = vi.spyOn(t.app.domain.faultCodes, 'faultCodesOf');

    const opened = await b.request(`/repair-order/${order}?onglet=procedure`);
    expect(opened.status).toBe(200);
    const tab = (await opened.text()).replace(/&amp;/g, '&');
    expect(reads.mock.calls.length).toBe(1);
    // The fault codes only for their own tab.
    expect(codes).not.toHaveBeenCalled();
    await b.request(`/repair-order/${order}?onglet=codes-defaut`);
    expect(codes).toHaveBeenCalledTimes(1);
    reads.mockClear();

    const [action, id] = /action="([^"]*action=point&id=([0-9a-f-]{36})&version=\d+)"/.exec(tab)!.slice(1) as [string, string];
    reads.mockClear();
    const answered = await b.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ checkResult: 'ok', measuredValue: '4,2', comment: 'Au ralenti' }).toString(),
    });
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toBe(`/repair-order/${order}?onglet=procedure#point-${id}`);
    expect(reads.mock.calls.length).toBe(0);

    const shown = await b.request(`/repair-order/${order}?onglet=procedure`);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Au ralenti');
    expect(reads.mock.calls.length).toBe(1);
  });

  it("refuses a checkpoint of another order posted to this order's page, and leaves it as it was", async () => {
    const b = browser(t.url);
    expect((await b.signIn('mecanicien@demo.local')).status).toBe(303);
    const list = await (await b.request('/repair-orders?recherche=OR-2026-0463')).text();
    const order = /\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!;
    const { db } = t.database;
    const [other] = await db.select().from(orderCheckpoints).where(ne(orderCheckpoints.orderId, order)).limit(1);
    const forged = await b.request(`/repair-order/${order}?onglet=procedure&action=point&id=${other!.id}&version=${other!.version}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ checkResult: 'ok', measuredValue: '', comment: 'Pas le bon ordre' }).toString(),
    });
    // A refusal is shown once by the page it redirects to (decisions 039, 064).
    expect(forged.status).toBe(303);
    const shown = await b.request(forged.headers.get('location')!);
    // Above the list: the page has no row of that checkpoint to say it at.
    expect(await shown.text()).toMatch(/<p class="alert-error" role="alert">\s*Élément introuvable\s*<\/p>/);
    const [after] = await db.select().from(orderCheckpoints).where(eq(orderCheckpoints.id, other!.id));
    expect(after).toEqual(other);
  });

  it("shows the order's own model again after a refused change of a locked model, so the next save goes through", async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const list = await (await b.request('/repair-orders?recherche=OR-2026-0463')).text();
    const order = /\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!;
    const page = await (await b.request(`/repair-order/${order}`)).text();
    const inputValue = (html: string, name: string) => /value="([^"]*)"/.exec(new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)![0])![1]!;
    const selectedOf = (html: string, name: string) =>
      /<option value="([^"]*)" selected/.exec(new RegExp(`<select[^>]*name="${name}"[^>]*>[\\s\\S]*?</select>`).exec(html)![0])?.[1];
    const own = inputValue(page, 'gearboxModelId');
    const other = [...page.matchAll(/<option value="([0-9a-f-]{36})"/g)].map((m) => m[1]).find((id) => id !== own)!;
    const form = {
      version: inputValue(page, 'version'),
      number: inputValue(page, 'number'),
      openedOn: inputValue(page, 'openedOn'),
      interventionCategory: selectedOf(page, 'interventionCategory')!,
      gearboxModelId: other,
      vehicleModel: 'Golf VII',
    };
    const refused = await b.request(`/repair-order/${order}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    expect(refused.status).toBe(303);
    const shown = await (await b.request(refused.headers.get('location')!)).text();
    // Said once, beside the field; what was typed elsewhere is kept; the model is the order's.
    expect(shown.match(/Le modèle de boîte ne peut plus changer : le diagnostic a commencé\./g)).toHaveLength(1);
    expect(inputValue(shown, 'vehicleModel')).toBe('Golf VII');
    expect(selectedOf(shown, 'gearboxModelId')).toBe(own);
    expect(inputValue(shown, 'gearboxModelId')).toBe(own);
  });

  it("merges a save over a colleague's, and refuses only a field both changed, keeping what was typed", async () => {
    const julien = browser(t.url);
    const claire = browser(t.url);
    expect((await julien.signIn('diagnostic@demo.local')).status).toBe(303);
    expect((await claire.signIn('admin@demo.local')).status).toBe(303);
    const list = await (await julien.request('/repair-orders?recherche=OR-2026-0463')).text();
    const self = `/repair-order/${/\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!}`;
    const post = (b: ReturnType<typeof browser>, path: string, form: Record<string, string>) =>
      b.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    const opened = async (b: ReturnType<typeof browser>, path = self) => formFieldsOf(await (await b.request(path)).text(), path);

    // Different fields: Claire's save, made over Julien's, keeps his comment and adds her vehicle.
    let before = { julien: await opened(julien), claire: await opened(claire) };
    const history = await opened(julien, `${self}?onglet=historique`);
    expect((await post(julien, self, { ...before.julien, comment: 'Commentaire de Julien' })).headers.get('location')).toBe(self);
    expect((await post(claire, self, { ...before.claire, vehicleModel: 'Clio V' })).headers.get('location')).toBe(self);
    expect(await opened(julien)).toMatchObject({ comment: 'Commentaire de Julien', vehicleModel: 'Clio V' });

    // The same field: Claire's is refused, beside it, with what she typed; Julien's stays saved.
    before = { julien: await opened(julien), claire: await opened(claire) };
    expect((await post(julien, self, { ...before.julien, comment: 'Boîte en attente de pièces' })).headers.get('location')).toBe(self);
    const refused = await post(claire, self, { ...before.claire, comment: 'Client prévenu', gearboxCode: 'XYZ' });
    expect(refused.status).toBe(303);
    const page = await (await claire.request(refused.headers.get('location')!)).text();
    expect(htmlText(page)).toContain("Cet OR a été modifié entre-temps (voir l'activité de l'OR).");
    // Beside the one field both changed, the value saved meanwhile, to compare (walk13 F3).
    expect(htmlText(page).match(/Modifié aussi entre-temps[^.]*\./g)).toEqual(['Modifié aussi entre-temps, enregistré : « Boîte en attente de pièces ».']);
    const typed = formFieldsOf(page, self);
    expect(typed).toMatchObject({ comment: 'Client prévenu', gearboxCode: 'XYZ' });
    expect((await opened(julien)).comment).toBe('Boîte en attente de pièces');
    // Saved again as shown, once checked: Claire's comment is applied knowingly.

    // A choice and a picked person both changed read back by their names, beside their fields (walk14 F3).
    before = { julien: await opened(julien), claire: await opened(claire) };
    const energies = (Object.keys(energyLabels) as (keyof typeof energyLabels)[]).filter((e) => e !== before.julien.energy);
    const referents = (
      await t.database.db
        .select({ id: users.id, displayName: users.displayName })
        .from(users)
        .where(and(inArray(users.defaultRole, ['app_admin', 'diagnostician']), eq(users.disabled, false)))
        .orderBy(asc(users.displayName))
    ).filter((u) => u.id !== before.julien.referentId);
    expect((await post(julien, self, { ...before.julien, energy: energies[0]!, referentId: referents[0]!.id })).headers.get('location')).toBe(self);
    const clash = await post(claire, self, { ...before.claire, energy: energies[1]!, referentId: referents[1]!.id });
    const both = await (await claire.request(clash.headers.get('location')!)).text();
    expect(htmlText(both).match(/Modifié aussi entre-temps[^.]*\./g)).toEqual([
      `Modifié aussi entre-temps, enregistré : « ${referents[0]!.displayName} ».`,
      `Modifié aussi entre-temps, enregistré : « ${energyLabels[energies[0]!]} ».`,
    ]);
    expect(both).toContain('id="or-referentId-error"');
    expect(formFieldsOf(both, self)).toMatchObject({ energy: energies[1], referentId: referents[1]!.id });
    expect((await post(claire, self, typed)).headers.get('location')).toBe(self);
    expect(await opened(julien)).toMatchObject({ comment: 'Client prévenu', gearboxCode: 'XYZ', vehicleModel: 'Clio V' });
    // The history's form was filled over the history, which nobody changed: it saves.
    expect((await post(julien, `${self}?onglet=historique`, history)).headers.get('location')).toBe(`${self}?onglet=historique`);
  });

  it('says beside «Interventions» which line is too long, and that a list holds 30 lines at most (walk14 F4, F10)', async () => {
    const julien = browser(t.url);
    expect((await julien.signIn('diagnostic@demo.local')).status).toBe(303);
    const list = await (await julien.request('/repair-orders?recherche=OR-2026-0463')).text();
    const self = `/repair-order/${/\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!}`;
    const form = formFieldsOf(await (await julien.request(self)).text(), self);
    const refusalOf = async (fields: Record<string, string>) => {
      const refused = await julien.request(self, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
      expect(refused.status).toBe(303);
      const page = await (await julien.request(refused.headers.get('location')!)).text();
      return /<p id="or-interventions-error"[^>]*>([^<]*)<\/p>/.exec(page)?.[1]?.trim();
    };
    expect(await refusalOf({ ...form, interventions: `Ligne courte\n${'x'.repeat(350)}` })).toBe('Ligne 2 : 300 caractères au plus');
    expect(await refusalOf({ ...form, interventions: Array.from({ length: 31 }, (_, i) => `Pièce ${i + 1}`).join('\n') })).toBe('30 lignes au plus');
  });

  it('asks to check a gearbox code typed while a colleague changed the model', async () => {
    const gql = graphqlAs(t, await signInAll(t));
    const [first, second] = [await createModel(gql.diagnostician), await createModel(gql.diagnostician)];
    const self = `/repair-order/${await createOrder(gql.diagnostician, { gearboxModelId: first })}`;
    const julien = browser(t.url);
    const claire = browser(t.url);
    expect((await julien.signIn('diagnostic@demo.local')).status).toBe(303);
    expect((await claire.signIn('admin@demo.local')).status).toBe(303);
    const post = (b: ReturnType<typeof browser>, form: Record<string, string>) =>
      b.request(self, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    const opened = async (b: ReturnType<typeof browser>) => formFieldsOf(await (await b.request(self)).text(), self);
    const before = { julien: await opened(julien), claire: await opened(claire) };
    expect((await post(julien, { ...before.julien, gearboxModelId: second })).headers.get('location')).toBe(self);
    const refused = await post(claire, { ...before.claire, gearboxCode: 'JPM' });
    const page = await (await claire.request(refused.headers.get('location')!)).text();
    expect(htmlText(page)).toContain('Le modèle de boîte a changé entre-temps : vérifiez ce code.');
    expect(formFieldsOf(page, self)).toMatchObject({ gearboxModelId: second, gearboxCode: 'JPM' });
    expect((await opened(julien)).gearboxCode).toBe('');
    // Checked, saved again: it goes through.
    expect((await post(claire, formFieldsOf(page, self))).headers.get('location')).toBe(self);
    expect(await opened(julien)).toMatchObject({ gearboxModelId: second, gearboxCode: 'JPM' });
  });

  it("merges a history saved over a colleague's: each one's added rows are kept, a row both changed is shown twice to check", async () => {
    const julien = browser(t.url);
    const claire = browser(t.url);
    expect((await julien.signIn('diagnostic@demo.local')).status).toBe(303);
    expect((await claire.signIn('admin@demo.local')).status).toBe(303);
    // An open order with no history yet, named: a table's order on disk changes once vacuumed (decision 085).
    const [order] = await t.database.db
      .select({ id: repairOrders.id })
      .from(repairOrders)
      .where(
        and(
          ne(repairOrders.status, 'CLOSED'),
          notExists(t.database.db.select({ id: interventionHistory.id }).from(interventionHistory).where(eq(interventionHistory.orderId, repairOrders.id))),
        ),
      )
      .orderBy(asc(repairOrders.number))
      .limit(1);
    const self = `/repair-order/${order!.id}?onglet=historique`;
    type Row = { mileage: string; intervention: string };
    /** The history form as a browser fills it: its version, what it was filled with, and its rows. */
    const opened = async (b: ReturnType<typeof browser>, html?: string) => {
      const { version, filled } = formFieldsOf(html ?? (await (await b.request(self)).text()), self);
      return { version: version!, filled: filled!, rows: JSON.parse(filled!) as Row[] };
    };
    const post = (b: ReturnType<typeof browser>, form: { version: string; filled: string }, rows: Row[]) => {
      const body = new URLSearchParams({ version: form.version, filled: form.filled });
      for (const row of rows) {
        body.append('historyMileage', row.mileage);
        body.append('historyIntervention', row.intervention);
      }
      return b.request(self, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
    };
    // A mileage read as its digits: the form shows «120 000» (walk16 F3), asserted once below.
    const digits = (r: Row) => `${r.mileage.replace(/\s/g, '')} ${r.intervention}`;
    const saved = async () => (await opened(julien)).rows.map(digits);
    /** The history form's rows as a user reads them, each row's note under it («! …»), blank rows left out. */
    const rowsWithNotes = (html: string) => {
      const form = html.slice(html.indexOf('name="historyMileage"'));
      const items = [...form.matchAll(/name="history(Mileage|Intervention)"[^>]*value="([^"]*)"|<p id="[^"]*-error"[^>]*>([^<]*)<\/p>/g)];
      const out: string[] = [];
      for (let i = 0; i < items.length; i++) {
        const [, kind, value, note] = items[i]!;
        if (note) out.push(`! ${htmlText(note)}`);
        else if (kind === 'Mileage') {
          const intervention = htmlText(items[i + 1]?.[2] ?? '');
          const mileage = htmlText(value!).replace(/\s/g, '');
          if (mileage || intervention) out.push(`${mileage} ${intervention}`);
          i++;
        }
      }
      return out;
    };

    let before = { julien: await opened(julien), claire: await opened(claire) };
    const kept = before.julien.rows.map(digits);
    expect(
      (await post(julien, before.julien, [...before.julien.rows, { mileage: '120000', intervention: 'Vidange boîte (Julien)' }])).headers.get('location'),
    ).toBe(self);
    expect(
      (await post(claire, before.claire, [...before.claire.rows, { mileage: '130000', intervention: 'Reprogrammation (Claire)' }])).headers.get('location'),
    ).toBe(self);
    expect(await saved()).toEqual([...kept, '120000 Vidange boîte (Julien)', '130000 Reprogrammation (Claire)']);
    // Saved, a mileage reads as typed with its digits grouped, not «120000» (walk16 F3).
    expect((await opened(julien)).rows.map((r) => r.mileage)).toContain('120\u202f000');

    // Both change Julien's row: Claire's comes back with both versions, and nothing is lost.
    before = { julien: await opened(julien), claire: await opened(claire) };
    const edit = (rows: Row[], intervention: string) => rows.map((r) => (digits(r) === `120000 ${r.intervention}` ? { ...r, intervention } : r));
    expect((await post(julien, before.julien, edit(before.julien.rows, 'Vidange boîte et filtre'))).headers.get('location')).toBe(self);
    const refused = await post(claire, before.claire, edit(before.claire.rows, 'Vidange boîte, huile ATF'));
    const page = await (await claire.request(refused.headers.get('location')!)).text();
    expect(htmlText(page)).toContain("L'historique a été modifié entre-temps (voir l'activité de l'OR), jusque sur une ligne que vous avez changée");
    const valuesOf = (name: string) => [...page.matchAll(new RegExp(`name="${name}"[^>]*value="([^"]*)"`, 'g'))].map((m) => htmlText(m[1]!));
    const mileages = valuesOf('historyMileage');
    // The form's blank rows, for adding, left out.
    const shown = valuesOf('historyIntervention')
      .map((intervention, i) => ({ mileage: mileages[i]!, intervention }))
      .filter((r) => r.intervention);
    // The two versions side by side, each saying whose it is (walk16 F2).
    expect(shown.map((r) => r.intervention)).toEqual(['Vidange boîte et filtre', 'Vidange boîte, huile ATF', 'Reprogrammation (Claire)']);
    expect(rowsWithNotes(page).filter((r) => r.includes('Vidange boîte') || r.startsWith('!'))).toEqual([
      '120000 Vidange boîte et filtre',
      "! Version d'un collègue, enregistrée entre-temps. Gardez celle-ci ou la vôtre (juste en dessous), videz l'autre.",
      '120000 Vidange boîte, huile ATF',
      "! Votre version. Gardez celle-ci ou celle du collègue (juste au-dessus), videz l'autre.",
    ]);
    expect(await saved()).toContain('120000 Vidange boîte et filtre');
    // Closed before Claire saves again: a reload shows the closed order's refusal, with her rows to copy (walk15 F1).
    const [{ status }] = (await t.database.db.select({ status: repairOrders.status }).from(repairOrders).where(eq(repairOrders.id, order!.id))) as [
      { status: 'IN_PROGRESS' | 'CLOSED' },
    ];
    await t.database.db.update(repairOrders).set({ status: 'CLOSED', closedOn: '2026-11-27' }).where(eq(repairOrders.id, order!.id));
    const closedNow = await alertOf(claire, refused).finally(() =>
      t.database.db.update(repairOrders).set({ status, closedOn: null }).where(eq(repairOrders.id, order!.id)),
    );
    expect(closedNow).toContain('Cet ordre de réparation est clôturé : il ne peut plus être modifié.');
    expect(closedNow).toContain('120\u202f000 km : Vidange boîte, huile ATF');
    expect(closedNow.join('\n')).not.toContain("L'historique a été modifié entre-temps");
    // Saved again once checked (Julien's version dropped): what is shown is what is saved.
    const again = await opened(claire, page);
    expect(
      (
        await post(
          claire,
          again,
          shown.filter((r) => r.intervention !== 'Vidange boîte et filtre'),
        )
      ).headers.get('location'),
    ).toBe(self);
    expect(await saved()).toEqual([...kept, '120000 Vidange boîte, huile ATF', '130000 Reprogrammation (Claire)']);

    // The same row added by both, typed «150 000» by one: one row (walk14 F5).
    before = { julien: await opened(julien), claire: await opened(claire) };
    const now = (await saved()).length;
    expect((await post(claire, before.claire, [...before.claire.rows, { mileage: '150000', intervention: 'Vidange' }])).headers.get('location')).toBe(self);
    expect((await post(julien, before.julien, [...before.julien.rows, { mileage: '150 000', intervention: 'Vidange' }])).headers.get('location')).toBe(self);
    expect((await saved()).filter((r) => r === '150000 Vidange')).toHaveLength(1);
    expect(await saved()).toHaveLength(now + 1);

    // Two equal rows, one taken out while a colleague adds another: one of the two goes, the colleague's stays (walk14 F6).
    before = { julien: await opened(julien), claire: await opened(claire) };
    expect((await post(claire, before.claire, [...before.claire.rows, { mileage: '150000', intervention: 'Vidange' }])).headers.get('location')).toBe(self);
    before = { julien: await opened(julien), claire: await opened(claire) };
    expect((await post(claire, before.claire, [...before.claire.rows, { mileage: '160000', intervention: 'Ajout de Claire' }])).headers.get('location')).toBe(
      self,
    );
    const second = before.julien.rows.map(digits).lastIndexOf('150000 Vidange');
    expect(
      (
        await post(
          julien,
          before.julien,
          before.julien.rows.filter((_, i) => i !== second),
        )
      ).headers.get('location'),
    ).toBe(self);
    expect((await saved()).filter((r) => r === '150000 Vidange')).toHaveLength(1);
    expect(await saved()).toContain('160000 Ajout de Claire');

    // The same row taken out by both: saved, not refused, and only that row goes (walk14 F9).
    before = { julien: await opened(julien), claire: await opened(claire) };
    expect((await post(claire, before.claire, [...before.claire.rows, { mileage: '170000', intervention: 'Ligne à retirer' }])).headers.get('location')).toBe(
      self,
    );
    before = { julien: await opened(julien), claire: await opened(claire) };
    const rest = (await saved()).filter((r) => r !== '170000 Ligne à retirer');
    const without = (rows: Row[]) => rows.filter((r) => r.intervention !== 'Ligne à retirer');
    expect((await post(claire, before.claire, without(before.claire.rows))).headers.get('location')).toBe(self);
    const same = await post(julien, before.julien, without(before.julien.rows));
    expect(htmlText(await (await julien.request(same.headers.get('location')!)).text())).toContain('OR mis à jour');
    expect(await saved()).toEqual(rest);

    // Two equal rows, one taken out by each: one of the two stays (the same removal, once).
    for (const b of [claire, claire]) {
      const form = await opened(b);
      expect((await post(b, form, [...form.rows, { mileage: '180000', intervention: 'Doublon' }])).headers.get('location')).toBe(self);
    }
    before = { julien: await opened(julien), claire: await opened(claire) };
    const oneLess = (rows: Row[]) => rows.filter((r, i) => r.intervention !== 'Doublon' || i !== rows.findIndex((x) => x.intervention === 'Doublon'));
    expect((await post(claire, before.claire, oneLess(before.claire.rows))).headers.get('location')).toBe(self);
    expect((await post(julien, before.julien, oneLess(before.julien.rows))).headers.get('location')).toBe(self);
    expect((await saved()).filter((r) => r === '180000 Doublon')).toHaveLength(1);

    // One takes a row out and adds another elsewhere, the other takes the same row out: saved, not refused.
    before = { julien: await opened(julien), claire: await opened(claire) };
    const noDoublon = (rows: Row[]) => rows.filter((r) => r.intervention !== 'Doublon');
    expect(
      (await post(claire, before.claire, [...noDoublon(before.claire.rows), { mileage: '190000', intervention: 'Autre ligne' }])).headers.get('location'),
    ).toBe(self);
    const also = await post(julien, before.julien, noDoublon(before.julien.rows));
    expect(htmlText(await (await julien.request(also.headers.get('location')!)).text())).toContain('OR mis à jour');
    expect(await saved()).toContain('190000 Autre ligne');
    expect(await saved()).not.toContain('180000 Doublon');

    // One corrects a row's mileage while the other corrects it differently, or takes it out: a clash, shown to check (walk15 F3, F4).
    const redate = (rows: Row[], mileage: string) => rows.map((r) => (r.intervention === 'À redater' ? { ...r, mileage } : r));
    const notes = [
      [
        '191500 À redater',
        "! Version d'un collègue, enregistrée entre-temps. Gardez celle-ci ou la vôtre (juste en dessous), videz l'autre.",
        '192000 À redater',
        "! Votre version. Gardez celle-ci ou celle du collègue (juste au-dessus), videz l'autre.",
      ],
      // The user's removal said on the colleague's correction (walk16 F1).
      ['191500 À redater', "! Vous aviez retiré cette ligne ; un collègue l'a corrigée entre-temps. Videz-la pour la retirer quand même."],
    ];
    for (const [variant, theirs] of [(rows: Row[]) => redate(rows, '192000'), (rows: Row[]) => rows.filter((r) => r.intervention !== 'À redater')].entries()) {
      const form = await opened(claire);
      expect((await post(claire, form, [...form.rows, { mileage: '191000', intervention: 'À redater' }])).headers.get('location')).toBe(self);
      before = { julien: await opened(julien), claire: await opened(claire) };
      expect((await post(julien, before.julien, redate(before.julien.rows, '191500'))).headers.get('location')).toBe(self);
      const clash = await post(claire, before.claire, theirs(before.claire.rows));
      const clashPage = await (await claire.request(clash.headers.get('location')!)).text();
      expect(htmlText(clashPage)).toContain("L'historique a été modifié entre-temps");
      expect(rowsWithNotes(clashPage).filter((r) => r.includes('À redater') || r.startsWith('!'))).toEqual(notes[variant]);
      expect((await saved()).filter((r) => r.endsWith('À redater'))).toEqual(['191500 À redater']);
      const clean = await opened(julien);
      expect(
        (
          await post(
            julien,
            clean,
            clean.rows.filter((r) => r.intervention !== 'À redater'),
          )
        ).headers.get('location'),
      ).toBe(self);
    }
  });

  it('says an order closed while its form was open cannot be saved, and shows what was typed to copy it', async () => {
    const julien = browser(t.url);
    expect((await julien.signIn('diagnostic@demo.local')).status).toBe(303);
    const [order] = await t.database.db
      .select({ id: repairOrders.id, status: repairOrders.status })
      .from(repairOrders)
      .where(ne(repairOrders.status, 'CLOSED'))
      .limit(1);
    const self = `/repair-order/${order!.id}`;
    const post = (path: string, form: Record<string, string>) =>
      julien.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    // A saved row the form below leaves out: listed as taken out.
    await t.database.db.insert(interventionHistory).values({ orderId: order!.id, position: 99, mileage: 99000, intervention: 'Ligne enregistrée' });
    const general = formFieldsOf(await (await julien.request(self)).text(), self);
    const history = formFieldsOf(await (await julien.request(`${self}?onglet=historique`)).text(), `${self}?onglet=historique`);
    // A colleague changes the brand and closes the order meanwhile: their change is not the user's to copy.
    await t.database.db
      .update(repairOrders)
      .set({ status: 'CLOSED', closedOn: '2026-11-27', vehicleBrand: `${general.vehicleBrand} (collègue)` })
      .where(eq(repairOrders.id, order!.id));
    try {
      // A choice is read back by its label, not its code.
      const [mileage, mileageLabel] = general.mileage === 'above_200000' ? ['0_to_50000', '0 à 50 000 km'] : ['above_200000', 'Plus de 200 000 km'];
      const energy = general.energy === 'hybrid' ? 'diesel' : 'hybrid';
      const refused = await post(self, {
        ...general,
        openedOn: '2026-01-02',
        comment: "À-coups 2-3 confirmés à l'essai",
        vehicleModel: 'Clio V',
        energy,
        mileage: mileage!,
      });
      expect(refused.status).toBe(303);
      // The refusal, and under it each field typed differently, label then value, to copy.
      const shown = await alertOf(julien, refused);
      const from = shown.indexOf('Cet ordre de réparation est clôturé : il ne peut plus être modifié.');
      expect(shown.slice(from, from + 12)).toEqual([
        'Cet ordre de réparation est clôturé : il ne peut plus être modifié.',
        "Votre saisie n'a pas été enregistrée ; la voici, pour la recopier si besoin :",
        "Date d'ouverture",
        '02/01/2026',
        'Modèle du véhicule',
        'Clio V',
        'Énergie',
        energyLabels[energy],
        'Kilométrage',
        mileageLabel,
        'Commentaire',
        "À-coups 2-3 confirmés à l'essai",
      ]);
      // A field left as the form showed it is not listed, the opening date included (walk15 F6).
      const only = await alertOf(julien, await post(self, { ...general, comment: 'Seulement un commentaire' }));
      const start = only.indexOf('Cet ordre de réparation est clôturé : il ne peut plus être modifié.');
      expect(only.slice(start + 2)).toEqual(['Commentaire', 'Seulement un commentaire']);
      const rows = await post(`${self}?onglet=historique`, { ...history, historyMileage: '150000', historyIntervention: 'Ligne tapée avant clôture' });
      const again = await alertOf(julien, rows);
      const at = again.indexOf('Cet ordre de réparation est clôturé : il ne peut plus être modifié.');
      expect(again.slice(at + 2, at + 4)).toEqual(["Historique d'intervention", '150\u202f000 km : Ligne tapée avant clôture']);
      expect(again.slice(at + 4).join('\n')).toContain("Historique d'intervention, ligne retirée\n99\u202f000 km : Ligne enregistrée");
      // Reopened since: a reload says so, not as an error, and the form holds what was typed again
      // (walk15 F2, walk16 F5), saved as it stands.
      await t.database.db.update(repairOrders).set({ status: order!.status, closedOn: null }).where(eq(repairOrders.id, order!.id));
      const page = await (await julien.request(rows.headers.get('location')!)).text();
      expect(htmlText(page)).toContain(
        'Cet ordre de réparation a été rouvert depuis : ce que vous aviez saisi est repris dans le formulaire ci-dessous. Vérifiez-le et enregistrez.',
      );
      expect(page).not.toContain('alert-error');
      const first = (name: string) => htmlText(new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '');
      expect([first('historyMileage'), first('historyIntervention')]).toEqual(['150000', 'Ligne tapée avant clôture']);
      // Its blank rows left blank, as a user saving it would.
      const refilled = { ...formFieldsOf(page, `${self}?onglet=historique`), historyMileage: '150000', historyIntervention: 'Ligne tapée avant clôture' };
      expect((await post(`${self}?onglet=historique`, refilled)).headers.get('location')).toBe(`${self}?onglet=historique`);
      const saved = await t.database.db.select().from(interventionHistory).where(eq(interventionHistory.orderId, order!.id));
      expect(saved.map((h) => `${h.mileage} ${h.intervention}`)).toEqual(['150000 Ligne tapée avant clôture']);
    } finally {
      await t.database.db
        .update(repairOrders)
        .set({ status: order!.status, closedOn: null, vehicleBrand: general.vehicleBrand })
        .where(eq(repairOrders.id, order!.id));
      await t.database.db.delete(interventionHistory).where(and(eq(interventionHistory.orderId, order!.id), eq(interventionHistory.position, 99)));
    }
  });

  it("merges a measure saved over a colleague's, and refuses only a field both changed", async () => {
    const julien = browser(t.url);
    const claire = browser(t.url);
    expect((await julien.signIn('diagnostic@demo.local')).status).toBe(303);
    expect((await claire.signIn('admin@demo.local')).status).toBe(303);
    const [measure] = await t.database.db
      .select({ id: orderMeasures.id, orderId: orderMeasures.orderId })
      .from(orderMeasures)
      .innerJoin(repairOrders, eq(repairOrders.id, orderMeasures.orderId))
      .where(ne(repairOrders.status, 'CLOSED'))
      .limit(1);
    const self = `/repair-order/${measure!.orderId}/measure/${measure!.id}`;
    const post = (b: ReturnType<typeof browser>, form: Record<string, string>) =>
      b.request(self, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    const opened = async (b: ReturnType<typeof browser>) => formFieldsOf(await (await b.request(self)).text(), self);

    let before = { julien: await opened(julien), claire: await opened(claire) };
    expect((await post(julien, { ...before.julien, measuredValue: '5,2' })).status).toBe(303);
    expect((await post(claire, { ...before.claire, comment: 'Relevé à chaud' })).status).toBe(303);
    expect(await opened(julien)).toMatchObject({ measuredValue: '5,2', comment: 'Relevé à chaud' });

    before = { julien: await opened(julien), claire: await opened(claire) };
    expect((await post(julien, { ...before.julien, measuredValue: '6,1' })).status).toBe(303);
    const refused = await post(claire, { ...before.claire, measuredValue: '7,9' });
    expect(refused.status).toBe(303);
    const page = await (await claire.request(refused.headers.get('location')!)).text();
    expect(htmlText(page)).toContain("Cette mesure a été modifiée entre-temps (voir l'activité de l'OR).");
    const typed = formFieldsOf(page, self);
    expect(typed.measuredValue).toBe('7,9');
    expect((await opened(julien)).measuredValue).toBe('6,1');
    // Closed before Claire saves again: a reload shows the closed order's refusal, with what she typed (walk15 F1).
    const [{ status }] = (await t.database.db.select({ status: repairOrders.status }).from(repairOrders).where(eq(repairOrders.id, measure!.orderId))) as [
      { status: 'IN_PROGRESS' | 'CLOSED' },
    ];
    await t.database.db.update(repairOrders).set({ status: 'CLOSED', closedOn: '2026-11-27' }).where(eq(repairOrders.id, measure!.orderId));
    const closedNow = await alertOf(claire, refused).finally(() =>
      t.database.db.update(repairOrders).set({ status, closedOn: null }).where(eq(repairOrders.id, measure!.orderId)),
    );
    const at = closedNow.indexOf('Cet ordre de réparation est clôturé : il ne peut plus être modifié.');
    expect(closedNow.slice(at + 2, at + 4)).toEqual(['Valeur mesurée', '7,9']);
    expect(closedNow.join('\n')).not.toContain('Cette mesure a été modifiée entre-temps');
    expect((await post(claire, typed)).status).toBe(303);
    expect(await opened(julien)).toMatchObject({ measuredValue: '7,9', comment: 'Relevé à chaud' });

    // A result chosen that the bounds also propose stays chosen (walk15 F5): shown as chosen, kept
    // when the value changes, and a colleague's save over it is a clash, not a silent overwrite.
    const bounds = { minimum: '4', maximum: '6' };
    expect((await post(claire, { ...(await opened(claire)), ...bounds, measuredValue: '7', checkResult: 'nok' })).status).toBe(303);
    expect(await opened(julien)).toMatchObject({ measuredValue: '7', checkResult: 'nok' });
    expect((await post(claire, { ...(await opened(claire)), measuredValue: '5' })).status).toBe(303);
    expect(await opened(julien)).toMatchObject({ measuredValue: '5', checkResult: 'nok' });
    expect((await post(claire, { ...(await opened(claire)), measuredValue: '7', checkResult: '' })).status).toBe(303);
    before = { julien: await opened(julien), claire: await opened(claire) };
    expect(before.julien.checkResult).toBe('');
    expect((await post(claire, { ...before.claire, checkResult: 'nok' })).status).toBe(303);
    const over = await post(julien, { ...before.julien, checkResult: 'high_tolerance' });
    expect(htmlText(await (await julien.request(over.headers.get('location')!)).text())).toContain('Modifié aussi entre-temps, enregistré : « Non conforme »');
    expect((await opened(claire)).checkResult).toBe('nok');
  });

  it('says a measure of an order closed while its form was open cannot be saved, and shows what was typed to copy it (walk14 F1)', async () => {
    const julien = browser(t.url);
    expect((await julien.signIn('diagnostic@demo.local')).status).toBe(303);
    const [measure] = await t.database.db
      .select({ id: orderMeasures.id, orderId: orderMeasures.orderId, status: repairOrders.status })
      .from(orderMeasures)
      .innerJoin(repairOrders, eq(repairOrders.id, orderMeasures.orderId))
      .where(ne(repairOrders.status, 'CLOSED'))
      .offset(1)
      .limit(1);
    const self = `/repair-order/${measure!.orderId}/measure/${measure!.id}`;
    const form = formFieldsOf(await (await julien.request(self)).text(), self);
    // A colleague corrects the measure's description, then the order is closed.
    await t.database.db.update(orderMeasures).set({ description: 'Description corrigée par un collègue' }).where(eq(orderMeasures.id, measure!.id));
    await t.database.db.update(repairOrders).set({ status: 'CLOSED', closedOn: '2026-11-27' }).where(eq(repairOrders.id, measure!.orderId));
    try {
      const refused = await julien.request(self, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form, measuredValue: '5,01', checkResult: 'nok', comment: 'Relevé tapé avant la clôture' }).toString(),
      });
      expect(refused.status).toBe(303);
      const shown = await alertOf(julien, refused);
      const from = shown.indexOf('Cet ordre de réparation est clôturé : il ne peut plus être modifié.');
      expect(shown.slice(from, from + 8)).toEqual([
        'Cet ordre de réparation est clôturé : il ne peut plus être modifié.',
        "Votre saisie n'a pas été enregistrée ; la voici, pour la recopier si besoin :",
        'Valeur mesurée',
        '5,01',
        'Résultat',
        'Non conforme',
        'Commentaire',
        'Relevé tapé avant la clôture',
      ]);
      // Reopened since: a reload says so, not as an error, and the form holds what was typed again
      // (walk15 F2, walk16 F5), saved as it stands.
      await t.database.db.update(repairOrders).set({ status: measure!.status, closedOn: null }).where(eq(repairOrders.id, measure!.orderId));
      const page = await (await julien.request(refused.headers.get('location')!)).text();
      expect(htmlText(page)).toContain(
        'Cet ordre de réparation a été rouvert depuis : ce que vous aviez saisi est repris dans le formulaire ci-dessous. Vérifiez-le et enregistrez.',
      );
      expect(page).not.toContain('alert-error');
      const refilled = formFieldsOf(page, self);
      // What the user typed, over the measure as saved now: the colleague's description kept (walk17 F2).
      expect([refilled.measuredValue, refilled.comment, refilled.description]).toEqual([
        '5,01',
        'Relevé tapé avant la clôture',
        'Description corrigée par un collègue',
      ]);
      // Not saved yet: leaving asks first (walk17 F1).
      expect(page).toMatch(new RegExp(`<form method="post" action="${self}"[^>]* data-unsaved`));
      const saving = await julien.request(self, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...refilled, checkResult: 'nok' }).toString(),
      });
      expect(saving.status).toBe(303);
      const [saved] = await t.database.db.select().from(orderMeasures).where(eq(orderMeasures.id, measure!.id));
      expect([saved!.measuredValue, saved!.checkResult, saved!.comment, saved!.description]).toEqual([
        5.01,
        'nok',
        'Relevé tapé avant la clôture',
        'Description corrigée par un collègue',
      ]);
    } finally {
      await t.database.db.update(repairOrders).set({ status: measure!.status, closedOn: null }).where(eq(repairOrders.id, measure!.orderId));
    }
  });

  it('says why a diagnostic whose checkpoints are answered cannot be reopened, in place of the button', async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const [answered] = await t.database.db
      .select({ orderId: orderCheckpoints.orderId })
      .from(orderCheckpoints)
      .innerJoin(repairOrders, eq(repairOrders.id, orderCheckpoints.orderId))
      .where(and(ne(repairOrders.status, 'CLOSED'), isNotNull(orderCheckpoints.checkResult)))
      .limit(1);
    const page = htmlText(await (await b.request(`/repair-order/${answered!.orderId}/diagnostic?etape=valider`)).text());
    expect(page).toContain('Des points de contrôle sont déjà renseignés : le diagnostic ne peut plus être rouvert.');
    expect(page).not.toContain('Rouvrir le diagnostic');
  });

  it('says to choose an answer when the fault code reading or the measures taken is saved with neither ticked', async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const list = await (await b.request('/repair-orders?recherche=OR-2026-0463')).text();
    const order = /\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!;
    const posted = await b.request(`/repair-order/${order}?onglet=codes-defaut&action=lecture`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(posted.status).toBe(303);
    expect(await (await b.request(posted.headers.get('location')!)).text()).toContain('Choisissez une réponse.');
    // Its sister question on the diagnostic's measures says the same.
    const measures = await b.request(`/repair-order/${order}/diagnostic?onglet=mesures&action=mesures-prises`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(measures.status).toBe(303);
    const shown = await (await b.request(measures.headers.get('location')!)).text();
    expect(shown).toContain('Choisissez une réponse.');
    expect(shown).not.toContain('Champ obligatoire');
  });

  it('shows each procedure with its own checkpoints in their order, and the closings and reopenings newest first', async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const [order] = await t.database.db
      .select({ id: repairOrders.id })
      .from(repairOrders)
      .where(and(isNotNull(repairOrders.validatedAt), ne(repairOrders.status, 'CLOSED')))
      .limit(1);
    // Checkpoints named by their place (procedure, then checkpoint), so the page's order can be read back.
    const rows = await t.database.db
      .select({ id: orderCheckpoints.id, procedure: orderProcedures.position, position: orderCheckpoints.position })
      .from(orderCheckpoints)
      .innerJoin(orderProcedures, eq(orderProcedures.id, orderCheckpoints.orderProcedureId))
      .where(eq(orderCheckpoints.orderId, order!.id));
    for (const row of rows)
      await t.database.db
        .update(orderCheckpoints)
        .set({ name: `Point ${row.procedure}.${row.position}` })
        .where(eq(orderCheckpoints.id, row.id));
    await t.database.db.insert(orderEvents).values([
      { orderId: order!.id, kind: 'closed', at: new Date('2026-03-02T09:00:00Z'), byName: 'Première clôture', comment: '' },
      { orderId: order!.id, kind: 'reopened', at: new Date('2026-03-03T09:00:00Z'), byName: 'Réouverture', comment: '' },
    ]);
    const html = htmlText(await (await b.request(`/repair-order/${order!.id}?onglet=procedure`)).text());
    const expected = rows.sort((x, y) => x.procedure - y.procedure || x.position - y.position).map((r) => `Point ${r.procedure}.${r.position}`);
    expect(expected.length).toBeGreaterThan(1);
    const shown = [...html.matchAll(/Point \d+\.\d+/g)].map((m) => m[0]).filter((name, i, all) => all.indexOf(name) === i);
    expect(shown).toEqual(expected);
    expect(html.indexOf('Réouverture')).toBeGreaterThan(-1);
    expect(html.indexOf('Réouverture')).toBeLessThan(html.indexOf('Première clôture'));
  });

  it('keeps an emptied compatible-gearbox search empty, beside its message', async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    const list = await (await b.request('/repair-orders?recherche=OR-2026-0463')).text();
    const order = /\/repair-order\/([0-9a-f-]{36})/.exec(list)![1]!;
    const view = `/repair-order/${order}?onglet=informations-techniques&vue=compatibles`;
    const field = (html: string) => /<input[^>]*name="bva"[^>]*>/.exec(html)![0];
    // Before any search the model's own BVA code is offered.
    expect(field(await (await b.request(view)).text())).toMatch(/value="[^"]+"/);
    const emptied = await (await b.request(`${view}&bva=`)).text();
    expect(field(emptied)).toMatch(/value=""/);
    expect(emptied).toContain('Le code BVA est nécessaire pour la recherche.');
  });
});
