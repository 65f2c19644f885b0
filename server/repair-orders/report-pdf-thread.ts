// The intervention report's PDF in a thread of its own (decision 080), as the embedded database is
// (decision 074): @react-pdf/renderer lays a report out in 200–300 ms of CPU, during which the
// server's thread answered nothing, /healthz included. Here the server's thread sends the report
// (plain data) and serves other requests meanwhile; report-pdf-worker.ts draws it and sends the
// bytes back as pdfkit writes them. One thread (the PDFs take turns), started at the first PDF.
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { PageOutOfTime } from '#lib/page-budget.ts';
import type { Report } from './report-pdf.ts';
import type { OutageSheet } from './outage-sheet-pdf.ts';

/** A document the thread draws: the intervention report, or the customer's outage sheet (decision 090). */
type Drawing = { op: 'render'; report: Report } | { op: 'sheet'; sheet: OutageSheet };
export type Request = ({ id: number } & Drawing) | { id: number; op: 'close' };
/** A piece of the PDF, its end, or why it could not be drawn. */
export type Reply = { id: number; chunk?: Uint8Array; end?: true; error?: { message: string } };

/**
 * PDFs beyond this many waiting their turn are refused with the busy page: at 200–300 ms each,
 * the last would wait longer than a page's time budget (5 s).
 */
export const MAX_WAITING = 16;

type Job = { id: number; drawing: Drawing; resolve: (pdf: Readable) => void; reject: (error: Error) => void; pdf?: Readable };

export class ReportPdfThread {
  readonly #maxWaiting: number;
  readonly #onLost?: (error: Error) => void;
  #worker: Worker | null = null;
  readonly #waiting: Job[] = [];
  #current: Job | null = null;
  #next = 1;
  #closing = false;
  /** Settles when the PDF being drawn is done (its last byte sent, or its failure). */
  #idle: Promise<void> = Promise.resolve();
  #settle: () => void = () => undefined;

  /** `onLost`: the thread ended without being closed (the PDF it drew fails; the next starts a new one). */
  constructor(options: { maxWaiting?: number; onLost?: (error: Error) => void } = {}) {
    this.#maxWaiting = options.maxWaiting ?? MAX_WAITING;
    this.#onLost = options.onLost;
  }

  /**
   * The report as PDF bytes, once its layout is done and its first bytes came; refused with
   * PageOutOfTime (the busy page) when too many wait, with an Error when the thread failed.
   */
  render(report: Report): Promise<Readable> {
    return this.#draw({ op: 'render', report });
  }

  /** The customer's outage sheet as PDF bytes, in the same thread and queue as the reports. */
  renderSheet(sheet: OutageSheet): Promise<Readable> {
    return this.#draw({ op: 'sheet', sheet });
  }

  #draw(drawing: Drawing): Promise<Readable> {
    if (this.#closing) return Promise.reject(new PageOutOfTime('the server is stopping'));
    if (this.#waiting.length >= this.#maxWaiting) return Promise.reject(new PageOutOfTime('too many report PDFs waiting'));
    return new Promise<Readable>((resolve, reject) => {
      this.#waiting.push({ id: this.#next++, drawing, resolve, reject });
      this.#pump();
    });
  }

  /** The thread's id while it runs (tests: the PDF was drawn there), null before the first PDF or after a loss. */
  get threadId(): number | null {
    return this.#worker?.threadId ?? null;
  }

  #pump(): void {
    if (this.#current || this.#closing) return;
    const job = this.#waiting.shift();
    if (!job) return;
    this.#current = job;
    this.#idle = new Promise((resolve) => (this.#settle = resolve));
    const worker = (this.#worker ??= this.#start());
    worker.ref();
    try {
      worker.postMessage({ id: job.id, ...job.drawing } satisfies Request);
    } catch (error) {
      // A report structured clone refuses (it never holds a function): this PDF fails, the next goes on.
      this.#finish(job, error as Error);
    }
  }

  /** Ends the current job: its stream ends (or fails), and the next PDF's turn comes. */
  #finish(job: Job, error?: Error): void {
    if (this.#current !== job) return;
    this.#current = null;
    if (error) {
      if (job.pdf) job.pdf.destroy(error);
      else job.reject(error);
    } else {
      if (!job.pdf) job.resolve((job.pdf = new Readable({ read() {} })));
      job.pdf.push(null);
    }
    // Idle, the thread keeps the process alive no more than the main thread's render did.
    if (!this.#waiting.length) this.#worker?.unref();
    this.#settle();
    this.#pump();
  }

  #start(): Worker {
    const worker = new Worker(new URL('./report-pdf-worker.ts', import.meta.url));
    worker.on('message', (reply: Reply) => {
      const job = this.#current;
      if (!job || reply.id !== job.id) return;
      if (reply.error) return this.#finish(job, new Error(reply.error.message));
      if (reply.chunk) {
        if (!job.pdf) job.resolve((job.pdf = new Readable({ read() {} })));
        job.pdf.push(Buffer.from(reply.chunk.buffer, reply.chunk.byteOffset, reply.chunk.byteLength));
      }
      if (reply.end) this.#finish(job);
    });
    const lost = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      // Not asked for (out of memory, a crash in the renderer): the PDF it drew fails, the next
      // one starts a new thread.
      if (!this.#closing) this.#onLost?.(error);
      if (this.#current) this.#finish(this.#current, error);
    };
    worker.on('error', (error) => lost(new Error(`the report PDF's thread stopped: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => lost(new Error(`the report PDF's thread stopped (exit code ${code})`)));
    return worker;
  }

  /**
   * After the server's drain: the PDFs still waiting are refused, the one being drawn (its client
   * gone, or the drain's deadline passed) is finished, at most `graceMs`, then the thread ends.
   */
  async close(graceMs = 10_000): Promise<void> {
    this.#closing = true;
    for (const job of this.#waiting.splice(0)) job.reject(new PageOutOfTime('the server is stopping'));
    const worker = this.#worker;
    if (!worker) return;
    worker.ref();
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
    const drawn = await Promise.race([this.#idle.then(() => 'drawn' as const), late]);
    clearTimeout(timer);
    // Drawn: the thread ends by itself once told; still drawing past the grace: ended now.
    if (drawn === 'drawn' && this.#worker === worker) worker.postMessage({ id: 0, op: 'close' } satisfies Request);
    else void worker.terminate();
    const stuck = setTimeout(() => void worker.terminate(), 5_000);
    await exited;
    clearTimeout(stuck);
  }
}
