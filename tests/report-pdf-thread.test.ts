// The intervention report's PDF is drawn in a thread of its own (decision 080): the server's thread
// only asks and streams the bytes, so it answers other requests meanwhile. A thread that dies
// costs its PDF a French error page, not a hang, and the next PDF works; too many waiting get the
// busy page; the server's shutdown lets the PDF being drawn finish.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PageOutOfTime } from '#lib/page-budget.ts';
import type { Report } from '#server/repair-orders/report-pdf.ts';
import { ReportPdfThread } from '#server/repair-orders/report-pdf-thread.ts';
import { browser, htmlText } from './support/browser.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { demoEmails, graphqlAs, signInAll } from './kit/index.ts';

/** Every thread started, with what it runs; `crashNext`: the next PDF asked of a thread ends it as a crash would. */
const threads = vi.hoisted(() => ({ started: [] as { worker: import('node:worker_threads').Worker; file: string }[], crashNext: false }));
vi.mock('node:worker_threads', async (original) => {
  const real = await original<typeof import('node:worker_threads')>();
  class Worker extends real.Worker {
    constructor(...args: ConstructorParameters<typeof real.Worker>) {
      super(...args);
      threads.started.push({ worker: this, file: String(args[0]) });
    }
    override postMessage(value: unknown, transfer?: Parameters<InstanceType<typeof real.Worker>['postMessage']>[1]) {
      super.postMessage(value, transfer);
      if (threads.crashNext && (value as { op?: string }).op === 'render') {
        threads.crashNext = false;
        void this.terminate();
      }
    }
  }
  return { ...real, Worker, default: { ...real, Worker } };
});

const pdfThreads = () => threads.started.filter((s) => s.file.endsWith('/server/repair-orders/report-pdf-worker.ts'));
const textOf = async (bytes: ArrayBuffer) => (await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true })).text.replace(/\s+/g, ' ');

const report = (number: string): Report => ({
  id: '3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f',
  number,
  url: 'http://atelier.test/repair-order/3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f',
  qr: { d: 'M0 0h1v1h-1z', size: 21 },
  editedOn: 'Édité le 22/11/2026 à 10:00',
  order: [{ label: 'Statut', value: 'Clôturé' }],
  vehicle: [],
  gearbox: [],
  history: [],
  faultCodesNote: null,
  faultCodes: [],
  symptoms: [],
  outages: [],
  validatedOn: null,
  procedures: [],
  measures: [],
  curves: [],
  comment: '',
  closing: null,
});

async function bytesOf(pdf: AsyncIterable<unknown>): Promise<ArrayBuffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of pdf) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
}

describe('the report PDF asked of the application', () => {
  let t: TestApp;
  let mechanic: ReturnType<typeof browser>;
  let order: { id: string; number: string };

  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    mechanic = browser(t.url);
    await mechanic.signIn(demoEmails.mechanic);
    const gql = graphqlAs(t, await signInAll(t));
    const list = await gql('mechanic', '{ repairOrders(limit: 100) { id number status } }');
    order = list.data.repairOrders.find((o: { status: string }) => o.status === 'CLOSED');
  });
  afterAll(() => t?.close());

  it('is drawn in a thread of its own, started at the first PDF and kept for the next; the pages hold no PDF renderer', async () => {
    expect(pdfThreads()).toHaveLength(0);
    for (let i = 0; i < 2; i++) {
      const res = await mechanic.request(`/repair-order/${order.id}/report.pdf`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(await textOf(await res.arrayBuffer())).toContain(order.number);
    }
    expect(pdfThreads()).toHaveLength(1);
    expect(t.app.services.reportPdf.threadId).toBe(pdfThreads()[0]!.worker.threadId);
    // The built pages, which run in the server's thread, cannot draw a PDF there.
    const built = fileURLToPath(new URL('../dist/server/', import.meta.url));
    const files = readdirSync(built, { recursive: true, encoding: 'utf8' }).filter((f) => /\.m?js$/.test(f));
    expect(files.filter((f) => /@react-pdf|pdfkit/.test(readFileSync(path.join(built, f), 'utf8')))).toEqual([]);
  });

  it('answers a French error page when its thread dies while drawing, and draws the next PDF in a new thread', async () => {
    const before = pdfThreads().length;
    threads.crashNext = true;
    const res = await mechanic.request(`/repair-order/${order.id}/report.pdf`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(htmlText(await res.text())).toContain('Une erreur est survenue');
    const next = await mechanic.request(`/repair-order/${order.id}/report.pdf`);
    expect(next.status).toBe(200);
    expect(await textOf(await next.arrayBuffer())).toContain(order.number);
    expect(pdfThreads()).toHaveLength(before + 1);
  });

  it('answers the busy page (503, Retry-After) when too many PDFs wait', async () => {
    const thread = t.app.services.reportPdf;
    const render = thread.render;
    // As the thread refuses once MAX_WAITING wait: from the services' copy of the error, which the pages' build does not share.
    thread.render = () => Promise.reject(new PageOutOfTime('too many report PDFs waiting'));
    try {
      const res = await mechanic.request(`/repair-order/${order.id}/report.pdf`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(htmlText(await res.text())).toContain('Application très sollicitée');
    } finally {
      thread.render = render;
    }
  });
});

describe('the report PDF thread', () => {
  it('prints every letter of a PDF drawn after another: none is lost to the glyphs the previous one left in the fonts (react-pdf#3404)', async () => {
    // A fresh thread, as after a start: the first PDF (an «É», no plain «E») left the «E» read
    // by id, without its character; the next one lost every capital E and broke lines inside words.
    const thread = new ReportPdfThread();
    await bytesOf(await thread.render(report('OR-1')));
    const detail = 'Embrayage de pontage du convertisseur : performances ou bloqué ouvert';
    const faultCodes = [
      { id: 'f', name: 'P0741', detail, conditions: [{ label: 'Phase de fonctionnement', value: 'En décélération' }], comment: 'Essai routier' },
    ];
    const text = await textOf(await bytesOf(await thread.render({ ...report('OR-2'), faultCodes })));
    await thread.close();
    for (const words of [detail, 'En décélération', 'Essai routier']) expect(text).toContain(words);
  });

  it('refuses a PDF beyond those waiting their turn, and draws the others one after the other', async () => {
    const thread = new ReportPdfThread({ maxWaiting: 1 });
    const [first, second, third] = ['OR-1', 'OR-2', 'OR-3'].map((n) => thread.render(report(n)));
    await expect(third).rejects.toBeInstanceOf(PageOutOfTime);
    expect(await textOf(await bytesOf(await first!))).toContain('OR-1');
    expect(await textOf(await bytesOf(await second!))).toContain('OR-2');
    await thread.close();
  });

  it('says once that its thread was lost, fails the PDF it drew, and starts a new thread for the next', async () => {
    const lost: string[] = [];
    const thread = new ReportPdfThread({ onLost: (error) => lost.push(error.message) });
    await bytesOf(await thread.render(report('OR-1')));
    const first = thread.threadId;
    threads.crashNext = true;
    await expect(thread.render(report('OR-2'))).rejects.toThrow(/^the report PDF's thread stopped/);
    expect(lost).toEqual([expect.stringMatching(/^the report PDF's thread stopped/)]);
    expect(await textOf(await bytesOf(await thread.render(report('OR-3'))))).toContain('OR-3');
    expect(thread.threadId).not.toBe(first);
    await thread.close();
    expect(lost).toHaveLength(1);
  });

  it('lets the PDF being drawn finish when closed, refuses those waiting, and ends its thread without terminating it', async () => {
    const thread = new ReportPdfThread();
    await bytesOf(await thread.render(report('OR-0')));
    const worker = pdfThreads().at(-1)!.worker;
    const exit = new Promise<number>((resolve) => worker.once('exit', resolve));
    const drawing = thread.render(report('OR-1'));
    const waiting = thread.render(report('OR-2'));
    const closed = thread.close();
    await expect(waiting).rejects.toBeInstanceOf(PageOutOfTime);
    expect(await textOf(await bytesOf(await drawing))).toContain('OR-1');
    await closed;
    // 0: it ended by itself once told; terminate() would give 1.
    expect(await exit).toBe(0);
    await expect(thread.render(report('OR-3'))).rejects.toBeInstanceOf(PageOutOfTime);
  });
});
