// The customer's outage sheet (issue 32, decision 090): on a seeded history of closed orders, the
// sheet names the model, the codes and symptoms recorded, the outages ranked as the diagnostic
// ranks them with their rates, mileage and evidence, the chosen outage and procedure, and the QR's
// address; as a page and as a PDF saying the same. Mechanics are refused; an order with nothing
// recorded, a model without history and a closed order read sensibly.
import { chromium } from '@playwright/test';
import { eq, sql } from 'drizzle-orm';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatNumber } from '#lib/format.ts';
import { outageLabel } from '#lib/gearboxes/outages.ts';
import type { Role } from '#lib/roles.ts';
import { repairOrders } from '#server/db/schema/index.ts';
import type { Viewer } from '#server/auth/viewer.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { htmlText } from './support/browser.ts';
import { createModel, createOrder, createOutage, createProcedure, demoEmails, graphqlAs, M, ok, sessionCookie, signInAll } from './kit/index.ts';

/** Text as a reader sees it: one space between words, whatever the spaces (French numbers use narrow ones). */
const plain = (text: string) => text.replace(/\s+/g, ' ').trim();
const pageText = (html: string) =>
  plain(
    htmlText(
      html
        .replace(/<(style|script)[\s\S]*?<\/\1>/g, ' ')
        .replace(/<[^>]+>/g, ' ')
        .replace(/&nbsp;/g, ' '),
    ),
  );

/** Each line said, in the order given or not. */
function expectSays(text: string, lines: string[]) {
  for (const said of lines) expect(text).toContain(said);
}

/** The PDF's page count and its text as a reader sees it. */
async function pdfOf(res: Response): Promise<{ pages: number; text: string }> {
  const { totalPages, text } = await extractText(await getDocumentProxy(new Uint8Array(await res.arrayBuffer())), { mergePages: true });
  return { pages: totalPages, text: plain(text) };
}

// Both databases: the evidence's SQL is new (diagnostic.sharedSignsOf).
describe.each(['pglite', 'postgres'] as const)('the outage sheet for the customer on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  const cookies: Partial<Record<Role, string>> = {};
  let n = 0;
  let modelId = '';
  let outages: string[] = [];
  let fresh = '';
  let bare = '';
  let firstClosed = '';

  const viewerAs = async (role: Role): Promise<Viewer> => {
    const email = demoEmails[role];
    const user = (await t.app.services.auth.findUserByEmail(email))!;
    return { id: user.id, role, sessionId: `test-${role}` };
  };

  async function newOrder(model: string, codes: string[], symptoms: string[] = [], mileage?: string) {
    n += 1;
    const orderId = await createOrder(gql.diagnostician, {
      number: `FICHE-${n}`,
      openedOn: '2026-10-01',
      interventionCategory: 'complete_car',
      gearboxModelId: model,
      vehicleBrand: 'Peugeot',
      vehicleModel: '508',
      mileage,
    });
    if (codes.length) {
      ok(await gql('diagnostician', M.setFaultCodeReading, { o: orderId, c: true }));
      for (const code of codes)
        ok(await gql('diagnostician', M.insertOrderFaultCode, { o: orderId, c: { code, description: `Défaut ${code}`, temporality: 'during' } }));
    }
    for (const symptom of symptoms) ok(await gql('diagnostician', M.insertOrderSymptom, { o: orderId, s: { symptom, temporality: 'during' } }));
    return orderId;
  }

  /** A closed order of the history: its codes and symptoms, its confirmed outage. */
  async function closedOrder(codes: string[], outageId: string | null, options: { symptoms?: string[]; mileage?: string; model?: string } = {}) {
    const orderId = await newOrder(options.model ?? modelId, codes, options.symptoms, options.mileage);
    if (outageId) ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [outageId] }));
    await t.database.db.execute(
      sql`update repair_orders set status = 'CLOSED', closed_on = '2026-10-20', validated_at = case when ${outageId !== null} then now() end where id = ${orderId}`,
    );
    return orderId;
  }

  beforeAll(async () => {
    t = await startTestApp(kind, { pages: true });
    gql = graphqlAs(t, await signInAll(t));
    for (const role of ['app_admin', 'diagnostician', 'commercial', 'mechanic'] as const) cookies[role] = await sessionCookie(t, demoEmails[role]);
    modelId = await createModel(gql.diagnostician, { model: '8HP45 fiche', type: 'automatic', constructorName: 'ZF', startYear: 2012 });
    const outage = (component: string, outageType: string, occurrenceRate: number) =>
      createOutage(gql.diagnostician, modelId, { component, outageType, occurrenceRate, description: `${component} à contrôler` });
    outages = [
      await outage('Mécatronique', 'Défaut électrique', 10),
      await outage('Convertisseur de couple', 'Usure', 20),
      await outage('Pompe à huile', 'Usure', 40),
      await outage('Embrayage', 'Usure', 50),
    ];
    const [o1, o2, o3] = outages as [string, string, string];
    // Seven closed orders: three P0730 with the mechatronics (one also slipping), one P0730 and one
    // P0841 with the converter, one without codes with the pump, one P0730 without an outage.
    firstClosed = await closedOrder(['P0730'], o1, { symptoms: ['Patinage'], mileage: '100000_to_150000' });
    await closedOrder(['P0730'], o1, { mileage: '100000_to_150000' });
    await closedOrder(['P0730'], o1, { mileage: '150000_to_200000' });
    await closedOrder(['P0730'], o2);
    await closedOrder(['P0841'], o2);
    await closedOrder([], o3, { mileage: '150000_to_200000' });
    await closedOrder(['P0730'], null);
    // The customer's order: P0730 and slipping; the converter retained with its procedure.
    fresh = await newOrder(modelId, ['P0730'], ['Patinage'], '150000_to_200000');
    const procedureId = await createProcedure(gql.diagnostician, modelId, {
      name: 'Remplacement du convertisseur',
      description: 'Dépose de la boîte et échange du convertisseur de couple.',
      steps: ['Déposer', 'Remplacer'],
    });
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: fresh, ids: [o2] }));
    ok(await gql('diagnostician', M.chooseOrderProcedures, { o: fresh, p: [{ procedureId, outageId: o2 }] }));
    bare = await newOrder(modelId, []);
  });
  afterAll(() => t?.close());

  it('ranks the outages from the closed orders as the diagnostic does, with their rates and evidence', async () => {
    const services = t.app.services.forViewer(await viewerAs('diagnostician'));
    const sheet = (await services.outageSheet.sheetOf(fresh))!;
    const candidates = await services.diagnostic.candidatesOf(fresh);
    const [o1, o2, o3] = outages as [string, string, string];
    expect(sheet.history).toBe(7);
    // The diagnostic's own order, kept to the outages the history has seen (the clutch has none).
    expect(sheet.ranked.map((o) => o.outage.id)).toEqual(candidates.map((c) => c.outage.id).filter((id) => id !== outages[3]));
    expect(sheet.ranked.map((o) => [o.outage.id, Number(o.outage.orderCount), o.confirmedOrders, o.similarOrders, o.chosen])).toEqual([
      [o1, 3, 3, 4, false],
      [o2, 2, 1, 4, true],
      [o3, 1, 0, 4, false],
    ]);
    expect(sheet.ranked.map((o) => o.shared.map((s) => [s.kind, s.label, s.orders]))).toEqual([
      [
        ['code', 'P0730', 3],
        ['symptom', 'Patinage', 1],
      ],
      [['code', 'P0730', 1]],
      [],
    ]);
    expect(sheet.more).toBe(0);
    expect(sheet.chosen.map((o) => o.id)).toEqual([o2]);
    expect(sheet.procedures.map((p) => p.name)).toEqual(['Remplacement du convertisseur']);
  });

  it('is refused to mechanics and given to admins, diagnosticians and commercials', async () => {
    const mechanic = t.app.services.forViewer(await viewerAs('mechanic'));
    expect(() => mechanic.outageSheet.sheetOf(fresh)).toThrow('Accès refusé');
    for (const role of ['app_admin', 'diagnostician', 'commercial'] as const)
      expect((await t.app.services.forViewer(await viewerAs(role)).outageSheet.sheetOf(fresh))?.order.number).toBe('FICHE-8');
    for (const path of ['outage-sheet', 'outage-sheet.pdf']) {
      const res = await fetch(`${t.url}/repair-order/${fresh}/${path}`, { headers: { cookie: cookies.mechanic! }, redirect: 'manual' });
      expect([res.status, res.headers.get('location')], path).toEqual([302, '/repair-orders']);
    }
    // The order's page offers it beside the report to those who hand it, not to mechanics.
    const tab = async (role: Role) => await (await fetch(`${t.url}/repair-order/${fresh}?onglet=rapport`, { headers: { cookie: cookies[role]! } })).text();
    expect(await tab('diagnostician')).toContain(`href="/repair-order/${fresh}/outage-sheet"`);
    expect(await tab('mechanic')).not.toContain('outage-sheet');
  });

  it('prints for the customer the model, the signs, the ranked outages with their rates, the diagnosis and the QR address', async () => {
    const res = await fetch(`${t.url}/repair-order/${fresh}/outage-sheet`, { headers: { cookie: cookies.commercial! } });
    expect(res.status).toBe(200);
    const html = await res.text();
    const text = pageText(html);
    // The bands' middles average 141,667 km: a customer reads it rounded.
    const km = plain(`${formatNumber(140_000)} km`);
    expectSays(text, [
      'Fiche de panne FICHE-8',
      'Constructeur ZF Type Automatique Modèle 8HP45 fiche',
      'Véhicule Peugeot 508',
      'P0730 : Défaut P0730',
      'Patinage',
      '1. Mécatronique — Défaut électrique',
      `Observée sur 3 des 7 boîtes de ce modèle réparées à l'atelier, 43 %, en moyenne vers ${km}.`,
      '3 des 4 boîtes réparées qui présentaient un signe commun avec la vôtre avaient cette panne.',
      'Signes en commun : code P0730 (3 boîtes), Patinage (1 boîte).',
      '2. Convertisseur de couple — Usure Retenue',
      // No mileage known for the converter's orders: none said.
      "Observée sur 2 des 7 boîtes de ce modèle réparées à l'atelier, 29 %.",
      'Une des 4 boîtes réparées qui présentaient un signe commun avec la vôtre avait cette panne.',
      '3. Pompe à huile — Usure',
      // One box: its mileage, no average.
      `Observée sur 1 des 7 boîtes de ce modèle réparées à l'atelier, 14 %, vers ${plain(`${formatNumber(175_000)} km`)}.`,
      "Aucune des 4 boîtes réparées qui présentaient un signe commun avec la vôtre n'avait cette panne.",
      'Panne(s) retenue(s) Convertisseur de couple — Usure',
      'Intervention(s) prévue(s) Remplacement du convertisseur Dépose de la boîte et échange du convertisseur de couple.',
      'ne garantissent pas la panne de votre boîte',
    ]);
    expect(text).not.toContain('Embrayage');
    // The QR code opens the order's page; no internal id is printed for the customer to read.
    expect(html).toContain(`aria-label="Code QR du dossier de votre boîte à l'atelier : ${t.config.publicUrl}/repair-order/${fresh}"`);
    expect(text).not.toContain(fresh);
    expect(text).toMatch(/Imprimée le \d\d\/\d\d\/\d{4} à \d\d:\d\d/);
  });

  it('draws the same sheet as a PDF, on one A4 page', async () => {
    const res = await fetch(`${t.url}/repair-order/${fresh}/outage-sheet.pdf`, { headers: { cookie: cookies.diagnostician! } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toContain('fiche-panne-FICHE-8.pdf');
    const doc = await getDocumentProxy(new Uint8Array(await res.arrayBuffer()));
    const { totalPages, text: raw } = await extractText(doc, { mergePages: true });
    const text = plain(raw);
    expect(totalPages).toBe(1);
    const [w, h] = (await doc.getPage(1)).view.slice(2);
    expect([Math.round(w!), Math.round(h!)]).toEqual([595, 842]);
    expectSays(text, [
      'Fiche de panne',
      'FICHE-8',
      '8HP45 fiche',
      'P0730',
      '1. Mécatronique — Défaut électrique',
      "Observée sur 3 des 7 boîtes de ce modèle réparées à l'atelier, 43 %, en moyenne vers",
      'Signes en commun : code P0730 (3 boîtes), Patinage (1 boîte).',
      'Convertisseur de couple — Usure · Retenue',
      'Remplacement du convertisseur',
      'Page 1 / 1',
    ]);
  });

  it('reads sensibly with nothing recorded, nothing chosen, and without history', async () => {
    const page = async (id: string) =>
      pageText(await (await fetch(`${t.url}/repair-order/${id}/outage-sheet`, { headers: { cookie: cookies.diagnostician! } })).text());
    const nothing = await page(bare);
    expectSays(nothing, [
      'Aucun code défaut relevé.',
      'Aucun symptôme relevé.',
      'Aucune boîte réparée ne présentait encore un signe commun avec la vôtre : les pannes sont classées selon leur fréquence.',
      '1. Mécatronique — Défaut électrique',
      "Aucune panne n'est encore retenue : le diagnostic de votre boîte est en cours.",
      "Aucune intervention n'est encore décidée.",
    ]);
    expect(nothing).not.toContain('signe commun avec la vôtre avaient');

    const newModelId = await createModel(gql.diagnostician, { model: 'DQ200 neuve', type: 'double_clutch', constructorName: 'VW', startYear: 2015 });
    await createOutage(gql.diagnostician, newModelId, { component: 'Mécatronique', outageType: 'Usure', occurrenceRate: 30 });
    const unknown = await page(await newOrder(newModelId, ['P17BF']));
    expect(unknown).toContain("Pas encore d'historique : aucune boîte de ce modèle n'a encore été réparée dans notre atelier.");
    expect(unknown).not.toContain('Observée sur');

    // One box repaired, nothing retained: said of that one box; its own sheet has no history but itself.
    const alone = await closedOrder(['P17BF'], null, { model: newModelId });
    expect(await page(await newOrder(newModelId, ['P17BF']))).toContain(
      "Aucune panne n'a encore été confirmée sur la seule boîte de ce modèle réparée dans notre atelier.",
    );
    expect(await page(alone)).toContain("Pas encore d'historique");
  });

  it('says when every similar order had the outage, and when there was only one', async () => {
    const small = await createModel(gql.diagnostician, { model: 'AL4 fiche', type: 'automatic', constructorName: 'PSA', startYear: 2000 });
    const outageId = await createOutage(gql.diagnostician, small, { component: 'Pompe à huile', outageType: 'Usure' });
    await closedOrder(['P0745'], outageId, { model: small });
    const single = pageText(
      await (await fetch(`${t.url}/repair-order/${await newOrder(small, ['P0745'])}/outage-sheet`, { headers: { cookie: cookies.diagnostician! } })).text(),
    );
    expect(single).toContain("Observée sur la seule boîte de ce modèle réparée à l'atelier, 100 %.");
    expect(single).toContain('La seule boîte réparée qui présentait un signe commun avec la vôtre avait cette panne.');
    await closedOrder(['P0745'], outageId, { model: small });
    const both = pageText(
      await (await fetch(`${t.url}/repair-order/${await newOrder(small, ['P0745'])}/outage-sheet`, { headers: { cookie: cookies.diagnostician! } })).text(),
    );
    expect(both).toContain("Observée sur 2 des 2 boîtes de ce modèle réparées à l'atelier, 100 %.");
    expect(both).toContain('Les 2 boîtes réparées qui présentaient un signe commun avec la vôtre avaient toutes cette panne.');
  });

  it('opens on a closed order, whose own box is left out of its evidence, rates and mileage', async () => {
    const sheet = (await t.app.services.forViewer(await viewerAs('diagnostician')).outageSheet.sheetOf(firstClosed))!;
    const [o1, o2, o3] = outages as [string, string, string];
    expect(sheet.history).toBe(6);
    expect(sheet.ranked.map((o) => [o.outage.id, Number(o.outage.orderCount), o.outage.ordersAverageMileage])).toEqual([
      [o1, 2, 150_000],
      [o2, 2, null],
      [o3, 1, 175_000],
    ]);
    const res = await fetch(`${t.url}/repair-order/${firstClosed}/outage-sheet`, { headers: { cookie: cookies.app_admin! } });
    expect(res.status).toBe(200);
    const text = pageText(await res.text());
    expect(text).toContain('Clôturé le 20/10/2026');
    // The six other boxes: two mechatronics (150,000 km on average without this one's 125,000), two converters, one pump.
    expect(text).toContain(`Observée sur 2 des 6 boîtes de ce modèle réparées à l'atelier, 33 %, en moyenne vers ${plain(`${formatNumber(150_000)} km`)}.`);
    expect(text).toContain("Observée sur 2 des 6 boîtes de ce modèle réparées à l'atelier, 33 %.");
    expect(text).toContain('des 6 boîtes');
    expect(text).not.toContain('des 7 boîtes');
    expect(text).toContain('Panne(s) retenue(s) Mécatronique — Défaut électrique');
    expect(text).toContain('Intervention(s) réalisée(s)');
    // Three other closed orders share its code or symptom: P0730 on two mechatronics, one converter.
    expect(text).toContain('2 des 3 boîtes réparées qui présentaient un signe commun avec la vôtre avaient cette panne.');
    const pdf = await fetch(`${t.url}/repair-order/${firstClosed}/outage-sheet.pdf`, { headers: { cookie: cookies.app_admin! } });
    expect(pdf.status).toBe(200);
  });

  it('says the outages beyond the five it lists are less likely for the customer box, not rarer', async () => {
    const wide = await createModel(gql.diagnostician, { model: '6HP fiche', type: 'automatic', constructorName: 'ZF', startYear: 2005 });
    for (const component of ['Mécatronique', 'Convertisseur de couple', 'Pompe à huile'])
      for (const outageType of ['Usure', 'Défaut électrique'])
        await closedOrder([], await createOutage(gql.diagnostician, wide, { component, outageType }), { model: wide });
    const text = pageText(
      await (await fetch(`${t.url}/repair-order/${await newOrder(wide, [])}/outage-sheet`, { headers: { cookie: cookies.diagnostician! } })).text(),
    );
    expect(text).toContain('5. ');
    expect(text).toContain('Et une autre panne, moins probable pour votre boîte, observée dans notre atelier.');

    // Retained, the sixth is not listed: the sheet gives its place and its figures, on the page and in the PDF.
    const orderId = await newOrder(wide, []);
    const sixth = (await t.app.services.forViewer(await viewerAs('diagnostician')).outageSheet.sheetOf(orderId))!;
    const all = await t.app.services.forViewer(await viewerAs('diagnostician')).gearboxModels.outagesOf(wide);
    const unlisted = all.find((o) => !sixth.ranked.some((r) => r.outage.id === o.id))!;
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [unlisted.id] }));
    const said = [
      `Panne(s) retenue(s) ${outageLabel(unlisted)}`,
      "Elle vient en 6e position parmi les pannes observées dans notre atelier sur ce modèle : la liste ci-dessus n'en montre que les 5 premières.",
      "Observée sur 1 des 6 boîtes de ce modèle réparées à l'atelier, 17 %.",
    ];
    const page = pageText(await (await fetch(`${t.url}/repair-order/${orderId}/outage-sheet`, { headers: { cookie: cookies.diagnostician! } })).text());
    expectSays(page, said);
    expect(page).not.toContain('6. ');
    // The sixth is the retained one, said under it: not also counted among the less likely.
    expect(page).not.toContain('moins probable');
    const pdf = await pdfOf(await fetch(`${t.url}/repair-order/${orderId}/outage-sheet.pdf`, { headers: { cookie: cookies.diagnostician! } }));
    expectSays(pdf.text, said.slice(1));
  });

  it('says the retained outage has not been seen on the model boxes repaired, on the page and the PDF', async () => {
    // The clutch: in the dossier, on no closed order.
    const orderId = await newOrder(modelId, ['P0730']);
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [outages[3]!] }));
    const unseen = "Embrayage — Usure Embrayage à contrôler Cette panne n'a pas encore été observée sur les boîtes de ce modèle réparées à l'atelier.";
    const page = pageText(await (await fetch(`${t.url}/repair-order/${orderId}/outage-sheet`, { headers: { cookie: cookies.commercial! } })).text());
    expect(page).toContain(`Panne(s) retenue(s) ${unseen}`);
    expect(page).not.toMatch(/\d\. Embrayage/);
    const pdf = await pdfOf(await fetch(`${t.url}/repair-order/${orderId}/outage-sheet.pdf`, { headers: { cookie: cookies.commercial! } }));
    expect(pdf.text).toContain(unseen);
    // Closed, the box that retained it is not evidence for itself: the other boxes have not had it.
    const closed = await closedOrder(['P0730'], outages[3]!);
    expect(pageText(await (await fetch(`${t.url}/repair-order/${closed}/outage-sheet`, { headers: { cookie: cookies.commercial! } })).text())).toContain(
      "Embrayage à contrôler Cette panne n'a pas été observée sur les autres boîtes de ce modèle réparées à l'atelier.",
    );
    // A retained outage that is listed needs no word: the fresh order's converter.
    expect(pageText(await (await fetch(`${t.url}/repair-order/${fresh}/outage-sheet`, { headers: { cookie: cookies.commercial! } })).text())).not.toContain(
      'Cette panne',
    );
  });

  // What «Imprimer» gives (Chromium, A4, the page's own margins), for the demo workshop's busiest sheet.
  it.runIf(kind === 'pglite')(
    'prints the busiest demo sheet on one A4 page, as its PDF',
    async () => {
      const [busiest] = await t.database.db.select({ id: repairOrders.id }).from(repairOrders).where(eq(repairOrders.number, 'OR-2025-0577'));
      const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
      try {
        const context = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Europe/Paris' });
        const [name, value] = cookies.commercial!.split('=') as [string, string];
        await context.addCookies([{ name, value, url: t.url }]);
        const page = await context.newPage();
        await page.goto(`${t.url}/repair-order/${busiest!.id}/outage-sheet`);
        await page.emulateMedia({ media: 'print' });
        const printed = await getDocumentProxy(new Uint8Array(await page.pdf({ format: 'A4', preferCSSPageSize: true })));
        const { totalPages, text } = await extractText(printed, { mergePages: true });
        expect(totalPages).toBe(1);
        expectSays(plain(text), ['4. ', 'Notre diagnostic', 'ne garantissent pas la panne de votre boîte', 'Page 1 / 1']);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it('answers an unknown order with the French 404', async () => {
    const res = await fetch(`${t.url}/repair-order/3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f/outage-sheet`, { headers: { cookie: cookies.diagnostician! } });
    expect(res.status).toBe(404);
  });
});
