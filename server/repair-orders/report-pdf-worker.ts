// The intervention report's own thread (decision 080): draws one PDF at a time and sends its bytes
// to the server's thread as pdfkit writes them. Spoken to only by report-pdf-thread.ts.
import { parentPort } from 'node:worker_threads';
import { renderReportPdf } from './report-pdf.ts';
import { renderOutageSheetPdf } from './outage-sheet-pdf.ts';
import type { Reply, Request } from './report-pdf-thread.ts';

const port = parentPort!;
/** pdfkit writes many small pieces: sent in messages of about this size rather than one each. */
const BATCH_BYTES = 64 * 1024;

const reply = (message: Reply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

async function render(request: Exclude<Request, { op: 'close' }>): Promise<void> {
  const { id } = request;
  const pdf = await (request.op === 'sheet' ? renderOutageSheetPdf(request.sheet) : renderReportPdf(request.report));
  let batch: Buffer[] = [];
  let size = 0;
  const send = () => {
    // A copy of its own, moved to the other thread (pdfkit's buffers may share a pool).
    const bytes = new Uint8Array(Buffer.concat(batch, size));
    reply({ id, chunk: bytes }, [bytes.buffer]);
    batch = [];
    size = 0;
  };
  for await (const chunk of pdf) {
    const piece = Buffer.from(chunk as Buffer);
    batch.push(piece);
    size += piece.length;
    if (size >= BATCH_BYTES) send();
  }
  if (size) send();
  reply({ id, end: true });
}

port.on('message', (request: Request) => {
  // Told after its last PDF: nothing more to draw, the thread ends.
  if (request.op === 'close') return port.close();
  render(request).catch((error: unknown) => reply({ id: request.id, error: { message: error instanceof Error ? error.message : String(error) } }));
});
