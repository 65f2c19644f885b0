// SPEC §2.7: the intervention report as a PDF, streamed as it is written. Guarded by the route
// table like the page (every signed-in role); an unknown order gets the French 404 page, as a
// browser following a stale link shows it.
import { Readable } from 'node:stream';
import type { APIRoute } from 'astro';
import { contentDisposition } from '#lib/storage/files.ts';
import * as screen from './_report.screen.ts';

export const GET: APIRoute = async ({ params, url, locals, rewrite }) => {
  // A download by default (named after the order); `?ouvrir` shows it in the browser instead.
  const query = screen.read({ params, url });
  const report = await screen.load(locals, query);
  // The report page says it in the application's words (a French 404 at this same URL).
  if (!report) return rewrite(`/repair-order/${encodeURIComponent(params.orderId ?? '')}/report`);
  // Drawn in the PDF's thread (decision 080): this thread serves other requests meanwhile. Too
  // many waiting: the busy page (503); the thread failing: the error page, the next PDF works.
  const pdf = await locals.services.reportPdf.render(await screen.withPhotoBytes(locals, report));
  return new Response(Readable.toWeb(pdf) as ReadableStream<Uint8Array>, {
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition(query.open ? 'inline' : 'attachment', screen.reportFileName(report.number)),
    },
  });
};
