// The intervention report (SPEC §2.7): a mechanic prints a closed order's report, as a page and as
// a PDF whose text says the same; nobody signed out gets it, and an unknown order is a French 404.
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/db/seed.ts';
import { renderReportPdf } from '#lib/repair-orders/report-pdf.tsx';
import type { Report } from '#lib/repair-orders/report.server.ts';
import { createModel, createOrder, demoEmails, graphqlAs, ok, signInAll, startTestApp, type TestApp } from './support/app.ts';
import { htmlText } from './support/browser.ts';

const UNKNOWN = '3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f';
const results = ['Conforme', 'Non conforme', 'Non mesurable', 'Tolérance haute', 'Tolérance basse'];

/** The PDF's text, one space between words whatever the lines and cells. */
async function pdfText(bytes: Uint8Array): Promise<{ pages: number; text: string }> {
  const { totalPages, text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  return { pages: totalPages, text: text.replace(/\s+/g, ' ') };
}

async function read(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return new Uint8Array(Buffer.concat(chunks));
}

describe('the intervention report PDF, drawn alone', () => {
  it('prints French text in its embedded font, the curve over its band, and numbered pages', async () => {
    const band = { label: 'min – max', points: [0, 1, 2, 3].map((x) => [x * 1000, 2 + x, 4 + x] as [number, number, number]) };
    const report: Report = {
      id: UNKNOWN,
      number: 'OR-2026-0042',
      url: `http://atelier.test/repair-order/${UNKNOWN}`,
      qr: { d: 'M0 0h1v1h-1z', size: 21 },
      editedOn: '22/11/2026 10:00',
      order: [{ label: 'Statut', value: 'Clôturé' }],
      vehicle: [{ label: 'Énergie', value: 'Électrique' }],
      gearbox: [{ label: 'Modèle', value: 'ZF 8HP45' }],
      faultCodesNote: null,
      faultCodes: [{ id: '1', name: 'P0730', detail: 'Rapport incorrect', conditions: [{ label: 'Temporalité', value: 'Pendant' }], comment: '' }],
      symptoms: [],
      outages: [{ id: '2', label: 'Mécatronique — Usure', description: '« Grippage » du tiroir' }],
      validatedOn: '20/11/2026',
      procedures: [
        {
          id: '3',
          name: 'Remplacement de la mécatronique',
          description: '',
          steps: ['Vidanger', 'Déposer le carter'],
          checkpoints: [
            {
              id: '4',
              name: 'Pression de ligne',
              description: '',
              result: 'high_tolerance',
              resultLabel: 'Tolérance haute',
              value: '4,6',
              comment: 'Léger dépassement',
              answered: 'Marc Petit, 21/11/2026 09:30',
            },
          ],
        },
      ],
      measures: [],
      curves: [
        {
          id: '5',
          description: 'Pression en montée',
          result: '',
          comment: '',
          problems: [],
          charts: [
            {
              title: 'Courbe essai.csv sur sa référence',
              reference: { xLabel: 'Régime (tr/min)', series: [], band },
              measured: {
                xLabel: 'Régime (tr/min)',
                series: [
                  {
                    label: 'Pression',
                    points: [
                      [0, 3],
                      [1500, 4.5],
                      [3000, 5.5],
                    ],
                  },
                ],
              },
            },
          ],
        },
      ],
      comment: 'Client prévenu',
      closing: { comment: 'Essai routier concluant', by: 'Clôturé par Marc Petit le 21/11/2026 17:00' },
    };
    const bytes = await read(await renderReportPdf(report));
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
    const { text } = await pdfText(bytes);
    for (const part of [
      "Rapport d'intervention",
      'OR-2026-0042',
      'Électrique',
      '« Grippage »',
      'Tolérance haute',
      'Pression de ligne',
      'Référence : min – max',
      'Régime (tr/min)',
      '3 000',
      'Essai routier concluant',
      "Rapport d'intervention · OR-2026-0042 Page 1 / 2",
      'Page 2 / 2',
    ]) {
      expect(text).toContain(part);
    }
  });
});

describe('the intervention report of a closed order', () => {
  let t: TestApp;
  let cookie = '';
  let order: { id: string; number: string; checkpoint: string; label: string };

  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    const signIn = await fetch(`${t.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: demoEmails.mechanic, password: DEMO_PASSWORD }),
    });
    cookie = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('atelier_session='))!
      .split(';')[0]!;
    // A closed demo order whose validated procedures have checkpoints.
    const gql = graphqlAs(t, await signInAll(t));
    const list = await gql('mechanic', '{ repairOrders(limit: 100) { id number status } }');
    for (const o of list.data.repairOrders.filter((r: { status: string }) => r.status === 'CLOSED')) {
      const { data } = await gql(
        'mechanic',
        'query($id: uuid!) { repairOrder(id: $id) { procedures { checkpoints { name checkResult } } measures { checkResult } } }',
        { id: o.id },
      );
      const checkpoints = data.repairOrder.procedures.flatMap((p: { checkpoints: { name: string; checkResult: string | null }[] }) => p.checkpoints);
      const answered = [...checkpoints, ...data.repairOrder.measures].find((c: { checkResult: string | null }) => c.checkResult);
      if (checkpoints.length && answered) {
        order = {
          id: o.id,
          number: o.number,
          checkpoint: checkpoints[0].name,
          label: results[['ok', 'nok', 'not_mesurable', 'high_tolerance', 'low_tolerance'].indexOf(answered.checkResult)]!,
        };
        break;
      }
    }
  });
  afterAll(() => t?.close());

  const get = (path: string, withCookie = true) => fetch(`${t.url}${path}`, { redirect: 'manual', headers: withCookie ? { cookie } : {} });

  it('gives a mechanic the PDF: the order, its checkpoints and results, numbered pages', async () => {
    expect(order).toBeDefined();
    const res = await get(`/repair-order/${order.id}/report.pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    // A download named after the order; `?ouvrir` opens the same PDF in the browser.
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="rapport-${order.number}.pdf"; filename*=UTF-8''rapport-${order.number}.pdf`);
    const opened = await get(`/repair-order/${order.id}/report.pdf?ouvrir`);
    expect(opened.headers.get('content-disposition')).toMatch(/^inline; filename="rapport-/);
    await opened.arrayBuffer();
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 4)).toString()).toBe('%PDF');
    const { text } = await pdfText(bytes);
    expect(text).toContain(order.number);
    expect(text).toContain(order.checkpoint.replace(/\s+/g, ' '));
    expect(text).toContain(order.label);
    expect(text).toContain("Rapport d'intervention");
    expect(text).toMatch(/Page 1 \/ \d/);
  });

  it('shows the printable page, without the navigation bar', async () => {
    const res = await get(`/repair-order/${order.id}/report`);
    expect(res.status).toBe(200);
    const html = htmlText(await res.text());
    expect(html).toContain(order.number);
    expect(html).toContain("Rapport d'intervention");
    expect(html).toContain(`/repair-order/${order.id}/report.pdf`);
    expect(html).not.toContain('Menu du profil');
  });

  it('answers an unknown or malformed order with a French 404', async () => {
    for (const id of [UNKNOWN, 'pas-un-uuid']) {
      const pdf = await get(`/repair-order/${id}/report.pdf`);
      expect(pdf.status).toBe(404);
      expect(pdf.headers.get('content-type')).toContain('text/html');
      expect(htmlText(await pdf.text())).toContain("Impossible de récupérer l'ordre de réparation");
      const page = await get(`/repair-order/${id}/report`);
      expect(page.status).toBe(404);
      expect(htmlText(await page.text())).toContain("Impossible de récupérer l'ordre de réparation");
    }
  });

  it('gives nothing to someone signed out', async () => {
    for (const path of [`/repair-order/${order.id}/report.pdf`, `/repair-order/${order.id}/report`]) {
      const res = await get(path, false);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(/^\/sign-in/);
      expect(res.headers.get('content-type') ?? '').not.toContain('pdf');
    }
  });
});

describe('a closed order as a record (decision 043)', () => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let cookie = '';

  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    gql = graphqlAs(t, await signInAll(t));
    const signIn = await fetch(`${t.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: demoEmails.diagnostician, password: DEMO_PASSWORD }),
    });
    cookie = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('atelier_session='))!
      .split(';')[0]!;
  });
  afterAll(() => t?.close());

  const page = async (path: string) => {
    const res = await fetch(`${t.url}${path}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    return htmlText(await res.text());
  };
  const pdf = async (id: string) =>
    (await pdfText(new Uint8Array(await (await fetch(`${t.url}/repair-order/${id}/report.pdf`, { headers: { cookie } })).arrayBuffer()))).text;
  const SYMPTOMS = 'query($id: uuid!) { repairOrder(id: $id) { status symptoms { symptom { id name } action } } }';

  it('keeps the names it closed with on its page, print page and PDF when the base renames them; an open order and a reopened one follow the base', async () => {
    // A closed demo order with a symptom recorded under an operating phase of the base.
    const list = (await gql('diagnostician', '{ repairOrders(limit: 100) { id number status } }')).data.repairOrders as { id: string; status: string }[];
    let closed: { id: string; symptom: { id: string; name: string }; action: string } | undefined;
    for (const o of list.filter((r) => r.status === 'CLOSED')) {
      const s = (await gql('diagnostician', SYMPTOMS, { id: o.id })).data.repairOrder.symptoms.find((x: { action: string }) => x.action);
      if (s) {
        closed = { id: o.id, ...s };
        break;
      }
    }
    expect(closed).toBeDefined();
    const { symptom, action } = closed!;
    const [phase] = (await gql('diagnostician', 'query($n: String!) { baseItems(kind: condition, search: $n) { id name } }', { n: action })).data.baseItems;
    // An order in progress records the same symptom and phase.
    const open = await createOrder(gql, { number: 'OR-RECORD-1', gearboxModelId: await createModel(gql, { model: 'Essai record' }) });
    ok(
      await gql('diagnostician', 'mutation($o: uuid!, $s: order_symptoms_input!) { insertOrderSymptom(repairOrderId: $o, object: $s) }', {
        o: open,
        s: { symptom: symptom.name, action },
      }),
    );

    const rename = async (id: string, name: string) =>
      ok(await gql('diagnostician', 'mutation($id: uuid!, $n: String!) { updateBaseItem(id: $id, name: $n) { id } }', { id, n: name }));
    await rename(symptom.id, `${symptom.name} (renommé)`);
    await rename(phase.id, `${phase.name} (renommée)`);

    const symptomsTab = (id: string) => page(`/repair-order/${id}/diagnostic?onglet=symptomes`);
    for (const text of [await symptomsTab(closed!.id), await page(`/repair-order/${closed!.id}/report`), await pdf(closed!.id)]) {
      expect(text).toContain(symptom.name);
      expect(text).toContain(phase.name);
      expect(text).not.toContain('(renommé');
    }
    const openTab = await symptomsTab(open);
    expect(openTab).toContain(`${symptom.name} (renommé)`);
    expect(openTab).toContain(`${phase.name} (renommée)`);

    // Reopened, the order follows the base again.
    ok(await gql('app_admin', 'mutation($id: uuid!) { reopenRepairOrder(id: $id, comment: "Reprise") }', { id: closed!.id }));
    expect((await gql('diagnostician', SYMPTOMS, { id: closed!.id })).data.repairOrder.symptoms).toContainEqual({
      symptom: { id: symptom.id, name: `${symptom.name} (renommé)` },
      action: `${phase.name} (renommée)`,
    });
  });
});
