// SPEC §2.7: the intervention report as a PDF, streamed as it is written. Guarded by the route
// table like the page (every signed-in role); an unknown order gets the French 404 page, as a
// browser following a stale link shows it.
import { Readable } from 'node:stream';
import type { APIRoute } from 'astro';
import { renderReportPdf } from '#lib/repair-orders/report-pdf.server.tsx';
import { contentDisposition } from '#lib/storage/files.ts';
import * as screen from './_report.screen.ts';

export const GET: APIRoute = async ({ params, url, locals, rewrite }) => {
  // A download by default (named after the order); `?ouvrir` shows it in the browser instead.
  const query = screen.read({ params, url });
  const report = await screen.load(locals, query);
  // The report page says it in the application's words (a French 404 at this same URL).
  if (!report) return rewrite(`/repair-order/${encodeURIComponent(params.orderId ?? '')}/report`);
  const pdf = await renderReportPdf(report);
  return new Response(Readable.toWeb(pdf as Readable) as ReadableStream<Uint8Array>, {
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition(query.open ? 'inline' : 'attachment', screen.reportFileName(report.number)),
    },
  });
};
