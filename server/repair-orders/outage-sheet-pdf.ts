// The customer's outage sheet as a PDF (issue 32, decision 090): the same content, in the same
// order, as its printable page, drawn in the report's thread (decision 080) with its fonts and
// styles (report-pdf.ts). Plain TypeScript for the thread: `h` where a .tsx file would write JSX.
import { createElement as h, type ReactElement } from 'react';
import { Document, type DocumentProps, Page, Path, Rect, Svg, Text, View } from '@react-pdf/renderer';
import { t } from '#lib/i18n.ts';
import { Fields, H3, LINE, Muted, MUTED, type ReportField, renderDocumentPdf, s } from './report-pdf.ts';

/** One ranked outage, its figures already worded for the customer. */
export type SheetOutageText = { id: string; rank: number; label: string; chosen: boolean; lines: string[] };

export type OutageSheet = {
  id: string;
  number: string;
  /** The order's page, which the QR code opens. */
  url: string;
  qr: { d: string; size: number };
  /** «Imprimée le DD/MM/YYYY à HH:mm» (Paris time), under the title and in every page's footer. */
  printedOn: string;
  order: ReportField[];
  vehicle: ReportField[];
  gearbox: ReportField[];
  /** Why there are no codes, when the gearbox cannot be read. */
  faultCodesNote: string | null;
  faultCodes: { id: string; code: string; description: string }[];
  symptoms: { id: string; name: string; code: string }[];
  /** What the ranking rests on, or why there is none (no history yet). */
  rankingNotes: string[];
  outages: SheetOutageText[];
  /** «Et 3 autres pannes, moins probables…» when the history saw more than the sheet lists. */
  more: string | null;
  /** `notes`: why a retained outage is not in the ranked list (unseen, or its rank past the five), with its figures. */
  chosen: { id: string; label: string; description: string; notes: string[] }[];
  proceduresTitle: string;
  procedures: { id: string; name: string; description: string }[];
};

const box = { borderWidth: 0.75, borderColor: LINE, borderRadius: 6, paddingVertical: 4, paddingHorizontal: 8, marginBottom: 3 };
/** Tighter than the report's: a usual sheet holds on one A4 page. */
const h2 = { ...s.h2, marginTop: 10 };
const page = { ...s.page, paddingBottom: 50 };
const h3 = { ...s.h3, marginTop: 2 };

export function OutageSheetDocument({ sheet }: { sheet: OutageSheet }) {
  return h(
    Document,
    {
      title: `${t('outageSheet.title')} ${sheet.number}`,
      author: t('outageSheet.workshop'),
      creator: t('outageSheet.workshop'),
      producer: t('outageSheet.workshop'),
      language: 'fr',
    },
    h(
      Page,
      { size: 'A4', style: page },
      h(
        View,
        { style: s.header },
        h(
          View,
          { style: { flex: 1, paddingRight: 12 } },
          h(Text, { style: s.workshop }, t('outageSheet.workshop')),
          h(Text, { style: s.title }, t('outageSheet.title')),
          h(Text, { style: s.number }, sheet.number),
          h(Text, { style: s.muted }, sheet.printedOn),
          h(Text, { style: { marginTop: 4 } }, t('outageSheet.intro')),
        ),
        h(
          View,
          { style: { width: 96, alignItems: 'center' } },
          h(
            Svg,
            { width: 72, height: 72, viewBox: `0 0 ${sheet.qr.size} ${sheet.qr.size}` },
            h(Rect, { x: 0, y: 0, width: sheet.qr.size, height: sheet.qr.size, fill: '#ffffff' }),
            h(Path, { d: sheet.qr.d, fill: '#000000' }),
          ),
          h(Text, { style: { fontSize: 7, color: MUTED, textAlign: 'center' } }, t('outageSheet.qrHint')),
        ),
      ),
      h(
        View,
        { style: s.blocks },
        h(Fields, { title: t('outageSheet.order'), fields: sheet.order }),
        h(Fields, { title: t('outageSheet.vehicle'), fields: sheet.vehicle }),
        h(Fields, { title: t('outageSheet.gearbox'), fields: sheet.gearbox }),
      ),
      h(Text, { style: h2, wrap: false, minPresenceAhead: 70 }, t('outageSheet.signs')),
      h(
        View,
        { style: s.blocks },
        h(
          View,
          { style: s.block },
          h(Text, { style: h3 }, t('outageSheet.faultCodes')),
          sheet.faultCodes.length === 0
            ? h(Muted, null, sheet.faultCodesNote ?? t('outageSheet.noFaultCodes'))
            : sheet.faultCodes.map((c) => h(Text, { key: c.id }, h(Text, { style: s.bold }, c.code), c.description ? ` : ${c.description}` : '')),
        ),
        h(
          View,
          { style: s.block },
          h(Text, { style: h3 }, t('outageSheet.symptoms')),
          sheet.symptoms.length === 0
            ? h(Muted, null, t('outageSheet.noSymptoms'))
            : sheet.symptoms.map((x) => h(Text, { key: x.id }, h(Text, { style: s.bold }, x.name), x.code ? ` (code ${x.code})` : '')),
        ),
      ),
      h(Text, { style: h2, wrap: false, minPresenceAhead: 70 }, t('outageSheet.ranked')),
      sheet.rankingNotes.map((note) => h(Text, { key: note, style: { ...s.muted, marginBottom: 4 } }, note)),
      sheet.outages.map((o) =>
        h(
          View,
          { key: o.id, style: box, wrap: false },
          h(
            Text,
            { style: { ...s.bold, fontSize: 11 } },
            `${o.rank}. ${o.label}`,
            o.chosen ? h(Text, { style: { color: '#15803d' } }, `  · ${t('outageSheet.retained')}`) : null,
          ),
          o.lines.map((line) => h(Text, { key: line, style: { marginTop: 1 } }, line)),
        ),
      ),
      sheet.more && h(Muted, null, sheet.more),
      h(
        View,
        null,
        h(Text, { style: h2, wrap: false, minPresenceAhead: 70 }, t('outageSheet.diagnosis')),
        h(H3, null, t('outageSheet.chosen')),
        sheet.chosen.length === 0
          ? h(Muted, null, t('outageSheet.noChosen'))
          : sheet.chosen.map((o) =>
              h(
                View,
                { key: o.id, style: { marginBottom: 3 }, wrap: false },
                h(Text, { style: s.bold }, o.label),
                o.description ? h(Muted, null, o.description) : null,
                o.notes.map((note) => h(Text, { key: note }, note)),
              ),
            ),
        h(H3, null, sheet.proceduresTitle),
        sheet.procedures.length === 0
          ? h(Muted, null, t('outageSheet.noProcedures'))
          : sheet.procedures.map((p) =>
              h(
                View,
                { key: p.id, style: { marginBottom: 3 }, wrap: false },
                h(Text, { style: s.bold }, p.name),
                p.description ? h(Text, null, p.description) : null,
              ),
            ),
      ),
      h(Text, { style: { ...s.muted, marginTop: 6, fontSize: 9 } }, t('outageSheet.disclaimer')),
      h(
        View,
        { style: s.footer, fixed: true },
        h(Text, null, t('outageSheet.footer', { number: sheet.number, printed: sheet.printedOn })),
        h(Text, { render: ({ pageNumber, totalPages }) => t('print.page', { page: pageNumber, pages: totalPages ?? pageNumber }) }),
      ),
    ),
  );
}

/** The sheet as a PDF byte stream (in the report's thread: report-pdf-worker.ts). */
export const renderOutageSheetPdf = (sheet: OutageSheet) => renderDocumentPdf(h(OutageSheetDocument, { sheet }) as ReactElement<DocumentProps>);
