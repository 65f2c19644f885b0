// SPEC §2.7: the intervention report as a PDF, streamed as it is written. Guarded by the route
// table like the page (every signed-in role); an unknown order is a short French 404.
import { Readable } from 'node:stream';
import type { APIRoute } from 'astro';
import { t } from '../../../lib/i18n.ts';
import { renderReportPdf } from '../../../lib/report-pdf.tsx';
import { loadReport, reportFileName } from '../../../lib/report.server.ts';

export const GET: APIRoute = async ({ params, locals }) => {
  const report = await loadReport(locals, params.uuid);
  if (!report) return new Response(t('report.notFound'), { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  const pdf = await renderReportPdf(report);
  return new Response(Readable.toWeb(pdf as Readable) as ReadableStream<Uint8Array>, {
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Disposition': `inline; filename="${reportFileName(report.number)}"`,
    },
  });
};
