// The intervention report (SPEC §2.7): a mechanic prints a closed order's report, as a page and as
// a PDF whose text says the same; nobody signed out gets it, and an unknown order is a French 404.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { extractText, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { type Report, renderReportPdf } from '#server/repair-orders/report-pdf.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import {
  answerCheckpoint,
  createModel,
  createOrder,
  createOutage,
  createProcedure,
  demoEmails,
  finishDiagnostic,
  graphqlAs,
  M,
  ok,
  sessionCookie,
  signInAll,
} from './kit/index.ts';
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
  const sample = (): Report => {
    const band = { label: 'min – max', points: [0, 1, 2, 3].map((x) => [x * 1000, 2 + x, 4 + x] as [number, number, number]) };
    return {
      id: UNKNOWN,
      number: 'OR-2026-0042',
      url: `http://atelier.test/repair-order/${UNKNOWN}`,
      qr: { d: 'M0 0h1v1h-1z', size: 21 },
      editedOn: 'Édité le 22/11/2026 à 10:00',
      order: [{ label: 'Statut', value: 'Clôturé' }],
      vehicle: [{ label: 'Énergie', value: 'Électrique' }],
      gearbox: [{ label: 'Modèle', value: 'ZF 8HP45' }],
      history: [{ id: '9', mileage: '120 000 km', intervention: 'Vidange boîte' }],
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
              photos: [],
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
  };

  it('names the checkpoint above its photos on every page their grid runs onto', async () => {
    const { loadSharp } = await import('#server/storage/sharp.ts');
    const sharp = await loadSharp();
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c0392b' } })
      .jpeg()
      .toBuffer();
    const report = sample();
    const photo = (i: number) => ({ id: `p${i}`, name: `p${i}.jpg`, href: '', thumbnail: '', thumbnailId: `t${i}`, bytes: new Uint8Array(jpeg) });
    // 40 photos: ten rows of four, more than a page holds.
    report.procedures[0]!.checkpoints[0]!.photos = Array.from({ length: 40 }, (_, i) => photo(i));
    const { OPS } = await getResolvedPDFJS();
    const doc = await getDocumentProxy(await read(await renderReportPdf(report)));
    const { text: pages } = await extractText(doc, { mergePages: false });
    const withPhotos = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const ops = await (await doc.getPage(n)).getOperatorList();
      if (ops.fnArray.some((fn) => fn === OPS.paintImageXObject)) withPhotos.push(n);
    }
    expect(withPhotos.length).toBeGreaterThanOrEqual(2);
    for (const n of withPhotos) expect(pages[n - 1]!.replace(/\s+/g, ' ')).toContain('Photos : Pression de ligne');

    // Pushed down a step at a time, the checkpoint reaches every height of its page: its caption
    // never stays alone at a page's foot, its photos on the next.
    for (let steps = 0; steps <= 40; steps++) {
      const pushed = sample();
      pushed.procedures[0]!.steps = Array.from({ length: steps }, (_, i) => `Étape ${i + 1}`);
      pushed.procedures[0]!.checkpoints[0]!.photos = Array.from({ length: 8 }, (_, i) => photo(i));
      const pdf = await getDocumentProxy(await read(await renderReportPdf(pushed)));
      const { text } = await extractText(pdf, { mergePages: false });
      for (let n = 1; n <= pdf.numPages; n++) {
        if (!text[n - 1]!.includes('Photos :')) continue;
        const ops = await (await pdf.getPage(n)).getOperatorList();
        expect(
          ops.fnArray.some((fn) => fn === OPS.paintImageXObject),
          `${steps} steps, page ${n}`,
        ).toBe(true);
      }
    }
  });

  it('prints French text in its embedded font, the curve over its band, and numbered pages', async () => {
    const bytes = await read(await renderReportPdf(sample()));
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
    const { text } = await pdfText(bytes);
    for (const part of [
      "Rapport d'intervention",
      'OR-2026-0042',
      'Électrique',
      "Historique d'intervention",
      'Vidange boîte',
      '« Grippage »',
      'Tolérance haute',
      'Pression de ligne',
      'Référence : min – max',
      'Régime (tr/min)',
      '3 000',
      'Essai routier concluant',
      "Rapport d'intervention · OR-2026-0042 · Édité le 22/11/2026 à 10:00 Page 1 / 2",
      'Page 2 / 2',
    ]) {
      expect(text).toContain(part);
    }
  });

  it('prints long comments whole, on as many pages as they take', async () => {
    // Kept in one block with the signatures, comments longer than a page would run off its foot.
    const lines = (what: string) => Array.from({ length: 40 }, (_, i) => `${what}, ligne ${i + 1} : relevé de pression et remarque du technicien.`).join('\n');
    const report = {
      ...sample(),
      comment: lines("Commentaire de l'OR"),
      closing: { comment: lines('Clôture'), by: 'Clôturé par Marc Petit le 21/11/2026 17:00' },
    };
    const pages = await pagesOf(await read(await renderReportPdf(report)));
    const body = pages.flatMap((p) => p.body.map((l) => l.text));
    expect(body).toContain("Commentaire de l'OR, ligne 40 : relevé de pression et remarque du technicien.");
    expect(body).toContain('Clôture, ligne 40 : relevé de pression et remarque du technicien.');
    expect(body.at(-1)).toBe('Signature : Signature :');
    // The signatures take the closing's author line with them.
    const last = pages.at(-1)!.body.map((l) => l.text);
    expect(last.indexOf('Signatures')).toBeGreaterThan(0);
    expect(last).toContain('Clôturé par Marc Petit le 21/11/2026 17:00');
    // Nothing drawn past the body's foot, over the footer or off the sheet.
    expect(pages.flatMap((p) => p.footer.map((l) => l.text)).filter((text) => !/^Rapport d'intervention · |^Page \d/.test(text))).toEqual([]);
  });
});

describe('the intervention report of a closed order', () => {
  let t: TestApp;
  let cookie = '';
  let order: { id: string; number: string; checkpoint: string; label: string; history: { mileage: number; intervention: string }[] };

  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    cookie = await sessionCookie(t, demoEmails.mechanic);
    // A closed demo order whose validated procedures have checkpoints.
    const gql = graphqlAs(t, await signInAll(t));
    const list = await gql('mechanic', '{ repairOrders(limit: 100) { id number status } }');
    for (const o of list.data.repairOrders.filter((r: { status: string }) => r.status === 'CLOSED')) {
      const { data } = await gql(
        'mechanic',
        'query($id: uuid!) { repairOrder(id: $id) { history { mileage intervention } procedures { checkpoints { name checkResult } } measures { checkResult } } }',
        { id: o.id },
      );
      const checkpoints = data.repairOrder.procedures.flatMap((p: { checkpoints: { name: string; checkResult: string | null }[] }) => p.checkpoints);
      const answered = [...checkpoints, ...data.repairOrder.measures].find((c: { checkResult: string | null }) => c.checkResult);
      if (checkpoints.length && answered && data.repairOrder.history.length) {
        order = {
          id: o.id,
          number: o.number,
          checkpoint: checkpoints[0].name,
          label: results[['ok', 'nok', 'not_mesurable', 'high_tolerance', 'low_tolerance'].indexOf(answered.checkResult)]!,
          history: data.repairOrder.history,
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
    // What was done on the gearbox before this order (walk31 F6).
    for (const entry of order.history) expect(text).toContain(entry.intervention.replace(/\s+/g, ' '));
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
    expect(html).toContain("Historique d'intervention");
    for (const entry of order.history) expect(html).toContain(entry.intervention);
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

// ---------------------------------------------------------------------------------------------
// The report as a document (issue 28, item 5; decision 041): a long order's report (three pages or more
// as a PDF and printed, two procedures of seven or eight checkpoints), printed by the browser (`page.pdf()`, what «Imprimer» gives) and drawn
// by the application (report.pdf), read page by page as a reader turns them.

const SECTIONS = ['Synthèse du diagnostic', 'Panne(s) confirmée(s)', 'Procédures appliquées', 'Mesures et contrôles', 'Courbes', 'Commentaires', 'Signatures'];

type TextItem = { str: string; height: number; y: number; x: number; width: number };
type Line = { y: number; text: string; items: TextItem[] };
type PdfPage = { body: Line[]; footer: Line[] };

/** Each page's lines, top to bottom; the running footer (the bottom margin) apart from the body. */
async function pagesOf(bytes: Uint8Array): Promise<PdfPage[]> {
  const doc = await getDocumentProxy(bytes.slice());
  const pages: PdfPage[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    const items = (content.items as { str?: string; transform: number[]; height: number; width: number }[])
      .filter((i) => i.str?.trim())
      .map((i) => ({ str: i.str!, height: i.height, width: i.width, x: i.transform[4]!, y: i.transform[5]! }));
    const lines: Line[] = [];
    for (const item of [...items].sort((a, b) => b.y - a.y || a.x - b.x)) {
      const line = lines.find((l) => Math.abs(l.y - item.y) < 2.5);
      if (line) line.items.push(item);
      else lines.push({ y: item.y, text: '', items: [item] });
    }
    // Pieces of one word touch; words and cells are apart.
    for (const line of lines)
      line.text = [...line.items]
        .sort((a, b) => a.x - b.x)
        .reduce((text, item, i, all) => text + (i && item.x - (all[i - 1]!.x + all[i - 1]!.width) > 1 ? ' ' : '') + item.str, '')
        .replace(/\s+/g, ' ')
        .trim();
    lines.sort((a, b) => b.y - a.y);
    // The footer is the text in the bottom 20 mm of the sheet.
    pages.push({ body: lines.filter((l) => l.y > 57), footer: lines.filter((l) => l.y <= 57) });
  }
  return pages;
}

const CSV = (label: string, shift: number) =>
  Buffer.from(
    `regime_tr_min;${label}\n${Array.from({ length: 30 }, (_, i) => `${i * 200};${(2 + shift + Math.sin(i / 4) * 2).toFixed(2).replace('.', ',')}`).join('\n')}\n`,
  );
const REFERENCE_CSV = Buffer.from(
  `regime_tr_min;pression_min_bar;pression_max_bar\n${Array.from({ length: 30 }, (_, i) => `${i * 200};${(1 + Math.sin(i / 4) * 2).toFixed(2).replace('.', ',')};${(4 + Math.sin(i / 4) * 2).toFixed(2).replace('.', ',')}`).join('\n')}\n`,
);

// Two lengths: one whose tables go on to the next page, and the one a tester printed (issue 28, item 5,
// second pass), whose curve did not fit at the foot of page 3 and left 40 % of it empty.
// Two mileage bands, each printed whole: «150 / 000 km» (walk15 F9), «Plus de 200 000 / km» (walk16 F4).
describe.each([
  { checkpoints: [8, 8], continued: true, mileage: '100000_to_150000', whole: '150 000 km' },
  { checkpoints: [7, 7], continued: false, mileage: 'above_200000', whole: '200 000 km' },
])('the report of a long order ($checkpoints checkpoints), printed and as a PDF', ({ checkpoints, continued: continues, mileage, whole }) => {
  let t: TestApp;
  let cookie = '';
  let order: { id: string; number: string };
  const procedureNames = ['Remplacement de la mécatronique', 'Contrôle du convertisseur de couple'];
  const checkpointNames = procedureNames.map((_, p) =>
    Array.from({ length: checkpoints[p]! }, (_, i) => `Contrôle ${p + 1}.${i + 1} : pression au rapport ${i + 1}`),
  );
  const measureNames = Array.from({ length: 5 }, (_, i) => `Pression du circuit ${i + 1}`);
  const curveNames = ['Pression en montée de rapports'];
  let printed: PdfPage[];
  let drawn: PdfPage[];
  let printedBytes: Uint8Array;
  let drawnBytes: Uint8Array;

  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    const tokens = await signInAll(t);
    const gql = graphqlAs(t, tokens);
    const upload = async (name: string, body: Buffer, bucket: string) => {
      const form = new FormData();
      form.append('file[]', new Blob([new Uint8Array(body)]), name);
      form.append('bucket-id', bucket);
      const res = await fetch(`${t.url}/api/storage/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${tokens.diagnostician}` } });
      return ((await res.json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
    };
    const modelId = await createModel(gql.diagnostician, { model: 'ZF 8HP70 essai rapport', constructorName: 'ZF', startYear: 2014 });
    const outageId = await createOutage(gql.diagnostician, modelId, {
      component: 'Mécatronique',
      outageType: 'Usure',
      description: 'Tiroir de régulation grippé, pression de ligne instable.',
    });
    const procedureIds: string[] = [];
    for (const [p, name] of procedureNames.entries()) {
      const procedure = {
        name,
        description: 'Procédure constructeur, boîte à 80 °C, véhicule sur pont.',
        steps: ['Vidanger la boîte', 'Déposer le carter', 'Déposer le bloc hydraulique', 'Reposer et remplir', 'Essai routier'],
        checkpoints: checkpointNames[p]!.map((n) => ({ name: n })),
      };
      procedureIds.push(await createProcedure(gql.diagnostician, modelId, procedure));
    }
    const orderId = await createOrder(gql.diagnostician, {
      number: 'OR-2026-0777',
      gearboxModelId: modelId,
      vehicleBrand: 'Peugeot',
      vehicleModel: '508 SW',
      mileage,
    });
    const reference = ok(
      await gql('diagnostician', M.insertGearboxDocument, {
        o: {
          gearboxModelId: modelId,
          fileId: await upload('reference.csv', REFERENCE_CSV, 'documents'),
          category: 'reference_curve',
          title: 'Pression de ligne',
        },
      }),
    ).insertGearboxDocument;
    for (const s of ['Sifflement', 'À-coup au passage de rapport'])
      ok(
        await gql('diagnostician', M.insertOrderSymptom, {
          o: orderId,
          s: { symptom: s, temporality: 'during', comment: 'Constaté par le client et confirmé à l\u2019essai.' },
        }),
      );
    ok(await gql('diagnostician', M.setFaultCodeReading, { o: orderId, c: false }));
    ok(
      await gql('diagnostician', M.chooseOrderOutages, {
        o: orderId,
        ids: [outageId],
      }),
    );
    ok(
      await gql('diagnostician', M.chooseOrderProcedures, {
        o: orderId,
        p: procedureIds.map((procedureId) => ({ procedureId, outageId })),
      }),
    );
    ok(await gql('diagnostician', M.markProceduresVisualised, { o: orderId }));
    ok(await gql('diagnostician', M.validateDiagnostic, { o: orderId }));
    ok(await gql('diagnostician', M.setMeasuresDone, { o: orderId, d: true }));
    for (const [i, name] of measureNames.entries())
      ok(
        await gql('diagnostician', M.insertOrderMeasure, {
          o: orderId,
          m: { name, unit: 'bar', minimum: 4, maximum: 6, measuredValue: 3.5 + (i % 4) * 0.8, comment: i % 3 ? '' : 'Mesuré moteur chaud' },
        }),
      );
    for (const [i, description] of curveNames.entries()) {
      const curveId = ok(
        await gql('diagnostician', M.insertOrderCurve, {
          o: orderId,
          c: { description, result: i ? 'Dans la bande' : 'Hors bande vers 2 000 tr/min', comment: 'Huile à 80 °C', referenceDocumentId: reference },
        }),
      ).insertOrderCurve;
      ok(
        await gql('diagnostician', M.insertOrderFile, {
          o: orderId,
          f: { fileId: await upload(`releve-${i + 1}.csv`, CSV('pression_bar', i * 0.5), 'measure'), kind: 'curve', curveId },
        }),
      );
    }
    const { repairOrder } = ok(
      await gql('mechanic', 'query($id: uuid!) { repairOrder(id: $id) { procedures { checkpoints { id version } } } }', { id: orderId }),
    );
    const results = ['ok', 'ok', 'nok', 'high_tolerance', 'ok', 'low_tolerance', 'not_mesurable'] as const;
    let n = 0;
    for (const c of repairOrder.procedures.flatMap((p: { checkpoints: { id: string; version: number }[] }) => p.checkpoints)) {
      n += 1;
      await answerCheckpoint(gql.mechanic, c, {
        checkResult: results[n % results.length],
        measuredValue: `${(4 + (n % 5) * 0.3).toFixed(1).replace('.', ',')}`,
        comment: n % 2 ? 'Relevé après dix minutes de marche' : '',
      });
    }
    ok(
      await gql('mechanic', M.closeRepairOrder, {
        id: orderId,
        c: 'Essai routier concluant, client prévenu.',
      }),
    );
    order = { id: orderId, number: 'OR-2026-0777' };

    cookie = await sessionCookie(t, demoEmails.mechanic);
    const res = await fetch(`${t.url}/repair-order/${orderId}/report.pdf`, { headers: { cookie } });
    expect(res.status).toBe(200);
    drawnBytes = new Uint8Array(await res.arrayBuffer());
    // The print page as «Imprimer» prints it: the page's own paper and margins.
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const context = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Europe/Paris' });
      const [name, value] = cookie.split('=') as [string, string];
      await context.addCookies([{ name, value, url: t.url }]);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${t.url}/repair-order/${orderId}/report`);
      expect(errors).toEqual([]);
      printedBytes = new Uint8Array(await page.pdf({ preferCSSPageSize: true }));
      // The page as it shows on a desk screen and on a portrait tablet, for the eye.
      const shots = process.env.REPORT_SHOTS && path.join(process.env.REPORT_SHOTS, `points-${checkpoints.join('-')}`);
      if (shots) {
        mkdirSync(shots, { recursive: true });
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.screenshot({ path: path.join(shots, 'report-page-1280x800.png') });
        const tablet = await browser.newContext({
          locale: 'fr-FR',
          timezoneId: 'Europe/Paris',
          viewport: { width: 768, height: 1024 },
          hasTouch: true,
          isMobile: true,
        });
        await tablet.addCookies([{ name, value, url: t.url }]);
        const onTablet = await tablet.newPage();
        await onTablet.goto(`${t.url}/repair-order/${orderId}/report`);
        await onTablet.screenshot({ path: path.join(shots, 'report-page-768x1024-touch.png'), fullPage: true });
      }
    } finally {
      await browser.close();
    }
    printed = await pagesOf(printedBytes);
    drawn = await pagesOf(drawnBytes);
  }, 180_000);
  afterAll(() => t?.close());

  const headings = () => [
    ...SECTIONS,
    'Codes défaut',
    'Symptômes',
    'Étapes',
    'Points de contrôle',
    "Commentaire de l'OR",
    'Commentaire de clôture',
    ...procedureNames.map((name, i) => `${i + 1}. ${name}`),
    ...curveNames,
  ];
  const TABLE_HEADS = ['Point de contrôle Résultat', 'Mesure Plage', 'Symptôme Code'];
  const isRow = (line: Line) => [...checkpointNames.flat(), ...measureNames].some((name) => line.text.startsWith(name.split(' ').slice(0, 2).join(' ')));
  const both = () =>
    [
      ['the print page', printed],
      ['the PDF', drawn],
    ] as const;

  it('makes three pages or more of both, with the same sections in the same order', () => {
    for (const [what, pages] of both()) {
      expect.soft(pages.length, what).toBeGreaterThanOrEqual(3);
      const found = SECTIONS.map((title) => pages.flatMap((p, n) => p.body.map((l, i) => ({ n, i, text: l.text }))).findIndex((l) => l.text === title));
      expect
        .soft(
          found.every((i) => i >= 0),
          `${what}: ${SECTIONS.filter((_, i) => found[i]! < 0).join(', ')}`,
        )
        .toBe(true);
      expect
        .soft(
          [...found].sort((a, b) => a - b),
          what,
        )
        .toEqual(found);
    }
  });

  it('names the order, its edition and «Page n / N» at the foot of every page', () => {
    for (const [what, pages] of both()) {
      pages.forEach((page, n) => {
        const footer = page.footer.map((l) => l.text).join(' ');
        expect
          .soft(footer, `${what}, page ${n + 1}`)
          .toMatch(new RegExp(`Rapport d'intervention · ${order.number} · Édité le \\d\\d/\\d\\d/\\d{4} à \\d\\d:\\d\\d`));
        expect.soft(footer, `${what}, page ${n + 1}`).toContain(`Page ${n + 1} / ${pages.length}`);
      });
    }
  });

  it('never leaves the signatures alone on a page, nor a heading or a table header at the foot of one', () => {
    for (const [what, pages] of both()) {
      const last = pages.findIndex((p) => p.body.some((l) => l.text === 'Signatures'));
      const before = pages[last]!.body.findIndex((l) => l.text === 'Signatures');
      expect.soft(before, `${what}: the signatures start page ${last + 1}`).toBeGreaterThan(0);
      pages.slice(0, -1).forEach((page, n) => {
        const foot = page.body.at(-1)!.text;
        expect.soft(headings(), `${what}, page ${n + 1} ends with «${foot}»`).not.toContain(foot);
        expect
          .soft(
            TABLE_HEADS.some((h) => foot.startsWith(h) || page.body.at(-2)!.text.startsWith(h)),
            `${what}, page ${n + 1} ends with a table header`,
          )
          .toBe(false);
      });
    }
  });

  it('repeats the header row of a table that goes on to the next page', () => {
    for (const [what, pages] of both()) {
      let continued = 0;
      pages.slice(1).forEach((page, n) => {
        const first = page.body[0]!;
        expect.soft(isRow(first), `${what}, page ${n + 2} starts with a row without its header: «${first.text}»`).toBe(false);
        if (TABLE_HEADS.some((h) => first.text.startsWith(h))) continued += 1;
      });
      // The order is long enough for a table to go on to another page.
      if (continues) expect.soft(continued, what).toBeGreaterThan(0);
    }
  });

  it('prints body text at 10 pt or more, chart axes and the footer at 8 pt or more', () => {
    for (const [what, pages] of both()) {
      const small: string[] = [];
      const tiny: string[] = [];
      for (const page of pages) {
        for (const line of page.body) {
          // Chart text: the ticks (lines of numbers alone), the axis label, the legend.
          const chart = line.items.every((i) => /^[\d\s,.\u202f\u00a0−-]+$/.test(i.str)) || /Regime \(tr\/min\)|\(bar\)$/.test(line.text);
          for (const item of line.items) {
            if (item.height < 7.9) tiny.push(`${item.str} (${item.height.toFixed(1)} pt)`);
            else if (!chart && item.height < 9.9) small.push(`${item.str} (${item.height.toFixed(1)} pt)`);
          }
        }
        for (const item of page.footer.flatMap((l) => l.items)) if (item.height < 7.9) tiny.push(`${item.str} (${item.height.toFixed(1)} pt)`);
      }
      expect.soft(small, `${what}: body text under 10 pt`).toEqual([]);
      expect.soft(tiny, `${what}: text under 8 pt`).toEqual([]);
    }
  });

  /** Each table's columns, as their header cells name them. */
  const TABLES = [
    ['Symptôme', 'Code', "Conditions d'apparition", 'Commentaire'],
    ['Point de contrôle', 'Résultat', 'Valeur mesurée', 'Commentaire', 'Renseigné par'],
    ['Mesure', 'Plage attendue', 'Valeur mesurée', 'Résultat', 'Commentaire'],
  ];

  it('keeps every cell of a table inside its column: headers, badges and values', () => {
    for (const [what, pages] of both()) {
      const overflows: string[] = [];
      let cells = 0;
      pages.forEach((page, n) => {
        page.body.forEach((head, h) => {
          const columns = TABLES.find((names) => head.text.startsWith(`${names[0]} ${names[1]!.split(' ')[0]}`));
          if (!columns) return;
          // Where each column's text starts, from its header cell.
          const starts: number[] = [];
          for (const name of columns) {
            const cell = head.items.find((i) => i.str.startsWith(name.split(' ')[0]!) && i.x > (starts.at(-1) ?? -1));
            if (cell) starts.push(cell.x);
          }
          expect.soft(starts.length, `${what}, page ${n + 1}: the columns of «${head.text}»`).toBe(columns.length);
          // The table's lines (the header's own, then the rows) start at its first column or right of it;
          // each text, a header word or a badge, ends a cell's padding short of the next column.
          for (const line of page.body.slice(h)) {
            if (line !== head && Math.min(...line.items.map((i) => i.x)) < starts[0]! - 1.5) break;
            for (const item of line.items) {
              const column = starts.findLastIndex((x) => x <= item.x + 0.5);
              const next = starts[column + 1];
              cells += 1;
              if (next !== undefined && item.x + item.width > next - 7)
                overflows.push(
                  `page ${n + 1}: «${item.str}» (${columns[column]}) ends ${(item.x + item.width - next).toFixed(1)} pt from «${columns[column + 1]}»`,
                );
            }
          }
        });
      });
      expect.soft(cells, what).toBeGreaterThan(100);
      expect.soft(overflows, `${what}: text past its column`).toEqual([]);
    }
  });

  it('prints the order number of the general data whole, on one line', () => {
    for (const [what, pages] of both()) {
      const lines = pages[0]!.body.map((l) => l.text);
      expect
        .soft(
          lines.find((l) => l.startsWith("N° d'OR")),
          what,
        )
        .toContain(order.number);
      // Labels may wrap («Date» / «d'ouverture»), values that are words of one piece not («OR-2026-» / «0777»).
      expect
        .soft(
          lines.filter((l) => /-$/.test(l)),
          what,
        )
        .toEqual([]);
    }
  });

  it(`prints its mileage band with its number whole, and its unit with it («${whole}»)`, () => {
    for (const [what, pages] of both()) {
      const lines = pages[0]!.body.map((l) => l.text.replace(/\u00a0/g, ' '));
      // Words may wrap («100 000 à» / «150 000 km»), a number not, nor a number and its unit.
      expect.soft(lines.join('\n'), what).toContain(whole);
    }
  });

  it('fills every page but the last to 70 % or more', () => {
    for (const [what, pages] of both()) {
      // The body runs from the top margin (12 mm printed, 40 pt drawn) to the footer (20 mm from the foot).
      const [top, foot] = [808, 57];
      const empty = pages.slice(0, -1).map((page) => (Math.min(...page.body.map((l) => l.y)) - foot) / (top - foot));
      expect
        .soft(
          empty.map((e, n) => `page ${n + 1}: ${Math.round(e * 100)} % empty`).filter((_, n) => empty[n]! > 0.3),
          what,
        )
        .toEqual([]);
    }
  });

  it('keeps «Commentaires» with its comments, the closing comment with its heading', () => {
    for (const [what, pages] of both()) {
      const pageOf = (text: string) => pages.findIndex((p) => p.body.some((l) => l.text.startsWith(text)));
      const section = pageOf('Commentaires');
      expect.soft(section, what).toBeGreaterThanOrEqual(0);
      for (const text of ["Commentaire de l'OR", 'Commentaire de clôture', 'Essai routier concluant, client prévenu.', 'Clôturé par'])
        expect.soft(pageOf(text), `${what}: «${text}»`).toBe(section);
    }
  });

  it('looks the same both ways (pages side by side, for the eye)', () => {
    if (!process.env.REPORT_SHOTS) return;
    const dir = path.join(process.env.REPORT_SHOTS, `points-${checkpoints.join('-')}`);
    mkdirSync(dir, { recursive: true });
    const work = mkdtempSync(path.join(tmpdir(), 'report-'));
    try {
      writeFileSync(path.join(work, 'print.pdf'), printedBytes);
      writeFileSync(path.join(work, 'app.pdf'), drawnBytes);
      execFileSync('pdftoppm', ['-r', '60', '-png', path.join(work, 'print.pdf'), path.join(work, 'print')]);
      execFileSync('pdftoppm', ['-r', '60', '-png', path.join(work, 'app.pdf'), path.join(work, 'app')]);
      const pngs = readdirSync(work)
        .filter((f) => f.endsWith('.png'))
        .sort();
      const pageCount = Math.max(printed.length, drawn.length);
      for (let n = 1; n <= pageCount; n++) {
        const pair = ['print', 'app']
          .map((kind) => pngs.find((f) => f.startsWith(kind) && Number(f.match(/-(\d+)\.png$/)![1]) === n))
          .filter((f): f is string => !!f);
        execFileSync('convert', [...pair.map((f) => path.join(work, f)), '+append', path.join(dir, `page-${n}-print-left-app-right.png`)]);
      }
      execFileSync('convert', [...pngs.filter((f) => f.startsWith('print')).map((f) => path.join(work, f)), '+append', path.join(dir, 'print-page-all.png')]);
      execFileSync('convert', [...pngs.filter((f) => f.startsWith('app')).map((f) => path.join(work, f)), '+append', path.join(dir, 'app-pdf-all.png')]);
      writeFileSync(path.join(dir, 'print.pdf'), printedBytes);
      writeFileSync(path.join(dir, 'app.pdf'), drawnBytes);
    } finally {
      rmSync(work, { recursive: true, force: true });
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
    cookie = await sessionCookie(t, demoEmails.diagnostician);
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

  it("keeps its gearbox model's name and constructor on its page, print page, PDF and the list when the dossier renames them (decision 045)", async () => {
    const list = (await gql('diagnostician', '{ repairOrders(limit: 100) { id number status model { id } } }')).data.repairOrders as {
      id: string;
      number: string;
      status: string;
      model: { id: string };
    }[];
    const closed = list.find((o) => o.status === 'CLOSED')!;
    const MODEL =
      'query($id: uuid!) { gearboxModel(id: $id) { model bvaId type constructorName doctorCode businessName startYear endYear gears arrangement propulsion optionalPropulsion parentId } }';
    const before = (await gql('diagnostician', MODEL, { id: closed.model.id })).data.gearboxModel;
    // An order in progress on the same model follows the dossier.
    const open = await createOrder(gql.diagnostician, { number: 'OR-RECORD-MODEL', gearboxModelId: closed.model.id });
    ok(
      await gql('diagnostician', M.updateGearboxModel, {
        id: closed.model.id,
        o: { ...before, model: 'Modèle renommé', constructorName: 'Constructeur renommé' },
      }),
    );
    const shown = async (id: string) =>
      (await gql('mechanic', 'query($id: uuid!) { repairOrder(id: $id) { model { model constructorName } } }', { id })).data.repairOrder.model;
    expect(await shown(closed.id)).toEqual({ model: before.model, constructorName: before.constructorName });
    expect(await shown(open)).toEqual({ model: 'Modèle renommé', constructorName: 'Constructeur renommé' });
    for (const text of [await page(`/repair-order/${closed.id}`), await page(`/repair-order/${closed.id}/report`), await pdf(closed.id)]) {
      expect(text).toContain(before.model);
      expect(text).toContain(before.constructorName);
      expect(text).not.toContain('renommé');
    }
    // The list names it so too.
    const listed = (await gql('mechanic', 'query($s: String) { repairOrders(search: $s) { model { model constructorName } } }', { s: closed.number })).data
      .repairOrders;
    expect(listed).toEqual([{ model: { model: before.model, constructorName: before.constructorName } }]);
  });

  it('keeps the outages it closed with on its print page when the dossier rewrites them', async () => {
    const list = (await gql('diagnostician', '{ repairOrders(limit: 100) { id status } }')).data.repairOrders as { id: string; status: string }[];
    const OUTAGES = 'query($id: uuid!) { repairOrder(id: $id) { chosenOutages { id description } } }';
    let closed: { id: string; outage: { id: string; description: string } } | undefined;
    for (const o of list.filter((r) => r.status === 'CLOSED')) {
      const [outage] = (await gql('diagnostician', OUTAGES, { id: o.id })).data.repairOrder.chosenOutages;
      if (outage?.description) {
        closed = { id: o.id, outage };
        break;
      }
    }
    expect(closed).toBeDefined();
    await t.database.db.execute(sql`update outages set description = 'Panne réécrite' where id = ${closed!.outage.id}`);
    const text = await page(`/repair-order/${closed!.id}/report`);
    expect(text).toContain(closed!.outage.description);
    expect(text).not.toContain('Panne réécrite');
  });

  it('prints each procedure with its own checkpoints, once', async () => {
    const modelId = await createModel(gql.diagnostician, { model: 'Essai deux procédures' });
    const orderId = await createOrder(gql.diagnostician, { number: 'OR-DEUX-PROC', gearboxModelId: modelId });
    const outageId = await createOutage(gql.diagnostician, modelId);
    const first = await createProcedure(gql.diagnostician, modelId, { name: 'Procédure Une', checkpoints: [{ name: 'Contrôle Un' }] });
    const second = await createProcedure(gql.diagnostician, modelId, { name: 'Procédure Deux', checkpoints: [{ name: 'Contrôle Deux' }] });
    ok(await gql('diagnostician', M.chooseOrderOutages, { o: orderId, ids: [outageId] }));
    ok(
      await gql('diagnostician', M.chooseOrderProcedures, {
        o: orderId,
        p: [
          { procedureId: first, outageId },
          { procedureId: second, outageId },
        ],
      }),
    );
    ok(await gql('diagnostician', M.markProceduresVisualised, { o: orderId }));
    await finishDiagnostic(gql.diagnostician, orderId);
    const text = await page(`/repair-order/${orderId}/report`);
    const at = (name: string) => text.indexOf(name);
    expect(at('Procédure Une')).toBeGreaterThan(-1);
    expect([at('Procédure Une'), at('Contrôle Un'), at('Procédure Deux'), at('Contrôle Deux')]).toEqual(
      [at('Procédure Une'), at('Contrôle Un'), at('Procédure Deux'), at('Contrôle Deux')].sort((x, y) => x - y),
    );
    for (const name of ['Contrôle Un', 'Contrôle Deux']) expect(text.split(name).length - 1, name).toBe(1);
  });

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
    const open = await createOrder(gql.diagnostician, {
      number: 'OR-RECORD-1',
      gearboxModelId: await createModel(gql.diagnostician, { model: 'Essai record' }),
    });
    ok(
      await gql('diagnostician', M.insertOrderSymptom, {
        o: open,
        s: { symptom: symptom.name, action },
      }),
    );

    const rename = async (id: string, name: string) => ok(await gql('diagnostician', M.updateBaseItem, { id, n: name }));
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
    ok(await gql('app_admin', M.reopenRepairOrder, { id: closed!.id, c: 'Reprise' }));
    expect((await gql('diagnostician', SYMPTOMS, { id: closed!.id })).data.repairOrder.symptoms).toContainEqual({
      symptom: { id: symptom.id, name: `${symptom.name} (renommé)` },
      action: `${phase.name} (renommée)`,
    });
  });
});
