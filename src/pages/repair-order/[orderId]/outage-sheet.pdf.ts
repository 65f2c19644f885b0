// Issue 32, decision 090: the customer's outage sheet as a PDF, drawn in the report's thread
// (decision 080) and streamed as it is written. Guarded like its page (route table and service);
// an unknown order gets the French 404 page.
import { Readable } from 'node:stream';
import type { APIRoute } from 'astro';
import { contentDisposition } from '#lib/storage/files.ts';
import * as screen from './_outage-sheet.screen.ts';

export const GET: APIRoute = async ({ params, url, locals, rewrite }) => {
  // A download by default (named after the order); `?ouvrir` shows it in the browser instead.
  const query = screen.read({ params, url });
  const sheet = await screen.load(locals, query);
  if (!sheet) return rewrite(`/repair-order/${encodeURIComponent(params.orderId ?? '')}/outage-sheet`);
  const pdf = await locals.services.reportPdf.renderSheet(sheet);
  return new Response(Readable.toWeb(pdf) as ReadableStream<Uint8Array>, {
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition(query.open ? 'inline' : 'attachment', screen.sheetFileName(sheet.number)),
    },
  });
};
