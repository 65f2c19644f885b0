// The intervention report as a PDF (ARCHITECTURE.md: @react-pdf/renderer): the same content, in
// the same order, as the printable page. Drawn in a thread of its own (report-pdf-worker.ts,
// decision 080), which Node loads as it is: plain TypeScript, so `h` (React's createElement)
// where a .tsx file would write JSX, which Node does not read.
import { createRequire } from 'node:module';
import { createElement as h, Fragment, type ReactElement, type ReactNode } from 'react';
import { Document, type DocumentProps, Font, Image, Line, Page, Path, pdf, Polygon, Polyline, Rect, StyleSheet, Svg, Text, View } from '@react-pdf/renderer';
import { extent, ticks, type Curve } from '#lib/repair-orders/curves.ts';
import { formatNumber } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import type { CheckResult } from '#lib/repair-orders/measures.ts';

/** A label and its value; `whole` for a number or a date, which never wraps (labels and words may). */
export type ReportField = { label: string; value: string; whole?: boolean };
/**
 * A photo of a checkpoint or a measure (decision 088): the page links its thumbnail and the full
 * photo; the PDF embeds the thumbnail's JPEG bytes (`bytes`, read only for the PDF).
 */
export type ReportPhoto = { id: string; name: string; href: string; thumbnail: string; thumbnailId: string; bytes?: Uint8Array };
export type ReportCheckpoint = {
  id: string;
  name: string;
  description: string;
  result: CheckResult | null;
  resultLabel: string;
  value: string;
  comment: string;
  answered: string;
  photos: ReportPhoto[];
};
export type ReportProcedure = { id: string; name: string; description: string; steps: string[]; checkpoints: ReportCheckpoint[] };
export type ReportMeasure = {
  id: string;
  name: string;
  bounds: string;
  value: string;
  result: CheckResult | null;
  resultLabel: string;
  comment: string;
  photos: ReportPhoto[];
};
export type ReportChart = { title: string; reference: Curve | null; measured: Curve | null };
export type ReportCurve = { id: string; description: string; result: string; comment: string; charts: ReportChart[]; problems: string[] };
export type ReportCondition = { id: string; name: string; detail: string; conditions: ReportField[]; comment: string };

export type Report = {
  id: string;
  number: string;
  /** The order's page, which the QR code opens. */
  url: string;
  qr: { d: string; size: number };
  /** «Édité le DD/MM/YYYY à HH:mm», under the title and in every page's footer. */
  editedOn: string;
  order: ReportField[];
  vehicle: ReportField[];
  gearbox: ReportField[];
  /** What was done on the gearbox before this order (the order's intervention history), mileage already printed. */
  history: { id: string; mileage: string; intervention: string }[];
  /** Why there are no codes, when the gearbox cannot be read. */
  faultCodesNote: string | null;
  faultCodes: ReportCondition[];
  symptoms: ReportCondition[];
  outages: { id: string; label: string; description: string }[];
  validatedOn: string | null;
  procedures: ReportProcedure[];
  measures: ReportMeasure[];
  curves: ReportCurve[];
  comment: string;
  closing: { comment: string; by: string } | null;
};

// A TrueType font shipped by an npm package and embedded (subset) in every PDF: accents, ' « »
// and the narrow spaces of French numbers print the same on any server, whatever it has installed.
const fontFile = (name: string) => createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${name}`);
const FONT = 'DejaVu Sans';
Font.register({ family: FONT, fonts: [{ src: fontFile('DejaVuSans.ttf') }, { src: fontFile('DejaVuSans-Bold.ttf'), fontWeight: 'bold' }] });
// French is not hyphenated with English rules: words wrap whole.
Font.registerHyphenationCallback((word) => [word]);

/**
 * Each PDF opens the fonts anew: fontkit keeps the glyphs pdfkit read by id while writing a
 * previous PDF, without their characters, and a later layout drops such a glyph from its text (a
 * capital E lost, lines broken inside words: diegomura/react-pdf#3404). `Font.reset()` forgets the
 * font but not that it was loaded, so it would never load again: both are forgotten here.
 */
function freshFonts() {
  for (const source of Font.getRegisteredFonts()[FONT]!.sources) {
    // @react-pdf/font's own field: an upgrade that renames it must fail here, not print wrong PDFs.
    if (!('loadResultPromise' in source)) throw new Error('@react-pdf/font: FontSource.loadResultPromise is gone; see freshFonts');
    source.data = null;
    (source as unknown as { loadResultPromise: Promise<void> | null }).loadResultPromise = null;
  }
}

const INK = '#0f172a';
export const MUTED = '#475569';
export const LINE = '#cbd5e1';
const CANVAS = '#f4f6f9';
const DANGER = '#b91c1c';
/** The page's badge tones (measures.ts), as colours. */
const tones: Record<CheckResult, { backgroundColor: string; color: string }> = {
  ok: { backgroundColor: '#dcfce7', color: '#15803d' },
  nok: { backgroundColor: '#fee2e2', color: DANGER },
  not_mesurable: { backgroundColor: '#f1f5f9', color: MUTED },
  high_tolerance: { backgroundColor: '#fef3c7', color: '#78350f' },
  low_tolerance: { backgroundColor: '#fef3c7', color: '#78350f' },
};

const MARGIN = 40;
/** Body text, as the print page's (10.5 pt): read at arm's length on the shop floor. */
const BODY = 10;
/** Chart ticks and legends, the smallest text of the report. */
const SMALL = 8;
const CONTENT_WIDTH = 595.28 - 2 * MARGIN;

/** The report's styles, shared with the outage sheet's PDF (outage-sheet-pdf.ts). */
export const s = StyleSheet.create({
  page: { fontFamily: FONT, fontSize: BODY, color: INK, paddingTop: MARGIN, paddingBottom: MARGIN + 20, paddingHorizontal: MARGIN },
  header: {
    flexDirection: 'row',
    justifyContent: 'space-between',
    alignItems: 'flex-start',
    borderBottomWidth: 1.5,
    borderBottomColor: INK,
    paddingBottom: 10,
    marginBottom: 12,
  },
  workshop: { color: MUTED, fontWeight: 'bold' },
  title: { fontSize: 18, fontWeight: 'bold', marginVertical: 2 },
  number: { fontSize: 13, fontWeight: 'bold' },
  muted: { color: MUTED },
  h2: { fontSize: 12.5, fontWeight: 'bold', borderBottomWidth: 0.75, borderBottomColor: LINE, paddingBottom: 2, marginTop: 14, marginBottom: 6 },
  h3: { fontSize: 11, fontWeight: 'bold', marginTop: 8, marginBottom: 4 },
  h4: { fontWeight: 'bold', marginTop: 4, marginBottom: 2 },
  bold: { fontWeight: 'bold' },
  blocks: { flexDirection: 'row', gap: 12 },
  block: { flex: 1 },
  field: { flexDirection: 'row', marginBottom: 1.5 },
  fieldLabel: { color: MUTED, width: '45%', paddingRight: 4 },
  fieldValue: { fontWeight: 'bold', width: '55%' },
  row: { flexDirection: 'row' },
  // The table's outer lines belong to its cells: a table split across pages draws no line past its last row.
  headRow: { flexDirection: 'row', backgroundColor: CANVAS, borderTopWidth: 0.75, borderColor: LINE },
  cell: { borderRightWidth: 0.75, borderBottomWidth: 0.75, borderColor: LINE, paddingVertical: 3, paddingHorizontal: 4 },
  badge: { alignSelf: 'flex-start', borderRadius: 6, paddingVertical: 1, paddingHorizontal: 5, fontWeight: 'bold' },
  footer: {
    position: 'absolute',
    bottom: 24,
    left: MARGIN,
    right: MARGIN,
    flexDirection: 'row',
    justifyContent: 'space-between',
    fontSize: 9,
    color: MUTED,
    borderTopWidth: 0.75,
    borderTopColor: LINE,
    paddingTop: 4,
  },
  signatures: { flexDirection: 'row', gap: 16 },
  signature: { flex: 1, borderWidth: 0.75, borderColor: LINE, borderRadius: 6, padding: 8, gap: 8 },
  signatureLine: { borderBottomWidth: 0.75, borderBottomColor: MUTED, paddingBottom: 2 },
});

/**
 * A section title. Never alone at the foot of a page: `minPresenceAhead` moves it on when less
 * than a table's header and first row would follow it there; before a block that never splits
 * (a chart, the signatures), the title goes inside that block instead (react-pdf does not look
 * past a block it cannot split). A heading never splits (`wrap={false}`): one that fits but for
 * its bottom margin would otherwise leave its line at the foot of the page and its margin on the next.
 */
export const H2 = ({ children }: { children: string }) => h(Text, { style: s.h2, wrap: false, minPresenceAhead: 70 }, children);
export const H3 = ({ children }: { children: ReactNode }) => h(Text, { style: s.h3, wrap: false, minPresenceAhead: 60 }, children);
export const Muted = ({ children }: { children: string }) => h(Text, { style: s.muted }, children);

export function Fields({ title, fields }: { title: string; fields: ReportField[] }) {
  return h(
    View,
    { style: s.block, wrap: false },
    h(Text, { style: { ...s.h2, marginTop: 0 } }, title),
    fields.map((f) => h(View, { key: f.label, style: s.field }, h(Text, { style: s.fieldLabel }, f.label), h(Text, { style: s.fieldValue }, f.value))),
  );
}

function Badge({ result, label }: { result: CheckResult | null; label: string }) {
  if (!result) return h(Text, { style: s.muted }, label);
  return h(Text, { style: { ...s.badge, ...tones[result] } }, label);
}

type Cell = string | ReactNode;
/** The rows of photos an A4 page holds with room to spare (a row is about 94 pt). */
const PHOTO_ROWS_A_PAGE = 6;

/**
 * Photos as a grid of thumbnails, four to a row, under a caption naming what they show (decision
 * 088). A grid that fits a page moves on whole, so its caption never stays alone at a page's foot;
 * a longer one runs on, row by row, its caption repeated on every page (`fixed`). A photo whose
 * bytes could not be read is left out.
 */
function PhotoRow({ photos, of }: { photos: ReportPhoto[]; of: string }) {
  const shown = photos.filter((p) => p.bytes);
  if (!shown.length) return null;
  const rows = Array.from({ length: Math.ceil(shown.length / 4) }, (_, i) => shown.slice(i * 4, i * 4 + 4));
  return h(
    View,
    {
      style: { padding: 2, borderLeftWidth: 0.75, borderRightWidth: 0.75, borderBottomWidth: 0.75, borderColor: LINE },
      // A grid that fits a page moves on whole: its caption is never left alone at a page's foot.
      wrap: rows.length > PHOTO_ROWS_A_PAGE,
    },
    h(Text, { fixed: true, style: { ...s.muted, paddingHorizontal: 2 } }, t('orderPhotos.reportTitle'), ' : ', of),
    rows.map((row) =>
      h(
        View,
        { key: row[0]!.id, style: { flexDirection: 'row' }, wrap: false },
        row.map((p) =>
          h(
            View,
            { key: p.id, style: { width: '25%', padding: 2 } },
            h(Image, { src: { data: Buffer.from(p.bytes!), format: 'jpg' }, style: { height: 90, objectFit: 'contain' } }),
          ),
        ),
      ),
    ),
  );
}

/**
 * A table whose rows never split across pages, its header row repeated at the top of every page
 * it continues on (`fixed` inside the table's View); widths are shares of the content width.
 */
function Table({ head, widths, rows, after }: { head: string[]; widths: number[]; rows: Cell[][]; after?: (row: number) => ReactNode }) {
  const cell = (content: Cell, i: number, bold = false) =>
    h(
      View,
      { key: i, style: { ...s.cell, width: `${widths[i]}%`, ...(i === 0 ? { borderLeftWidth: 0.75 } : {}) } },
      typeof content === 'string' ? h(Text, { style: bold ? s.bold : {} }, content) : content,
    );
  return h(
    View,
    null,
    // Never alone at a page's foot: the header moves on when its first row would not follow it.
    h(
      View,
      { style: s.headRow, wrap: false, fixed: true, minPresenceAhead: 40 },
      head.map((title, i) => cell(title, i, true)),
    ),
    rows.map((row, r) =>
      h(
        Fragment,
        { key: r },
        h(
          View,
          { style: s.row, wrap: false },
          row.map((content, i) => cell(content, i, i === 0)),
        ),
        // Under the row, across the table: what belongs to it (a checkpoint's photos).
        after?.(r),
      ),
    ),
  );
}

const conditionRows = (items: ReportCondition[]): Cell[][] =>
  items.map((item) => [
    item.name,
    item.detail || '—',
    item.conditions.length
      ? h(
          View,
          null,
          item.conditions.map((c) => h(Text, { key: c.label }, c.label, ' : ', c.value)),
        )
      : h(Muted, null, t('report.noConditions')),
    item.comment,
  ]);

const colours = ['#1e3a8a', DANGER, '#047857', '#7c3aed'];

/** The page's CurveChart drawn with the PDF's own vector primitives: band, series, axes, ticks. */
function Chart({ chart }: { chart: ReportChart }) {
  const { reference, measured } = chart;
  const curves = [reference, measured].filter((c): c is Curve => !!c);
  const box = extent(curves);
  if (!box) return null;
  const [W, H] = [CONTENT_WIDTH, 150];
  const pad = { left: 44, right: 8, top: 8, bottom: 32 };
  const sx = (x: number) => pad.left + ((x - box.x[0]) / (box.x[1] - box.x[0] || 1)) * (W - pad.left - pad.right);
  const sy = (y: number) => H - pad.bottom - ((y - box.y[0]) / (box.y[1] - box.y[0] || 1)) * (H - pad.top - pad.bottom);
  const points = (list: [number, number][]) => list.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
  const band = reference?.band
    ? [
        ...reference.band.points.map(([x, lo]) => [x, lo] as [number, number]),
        ...[...reference.band.points].reverse().map(([x, , hi]) => [x, hi] as [number, number]),
      ]
    : null;
  const yTicks = ticks(box.y[0], box.y[1]);
  const xTicks = ticks(box.x[0], box.x[1], 8);
  const legend = [
    ...(reference?.band ? [{ label: `${t('report.reference')} : ${reference.band.label}`, colour: 'band', dashed: false }] : []),
    ...(reference?.series ?? []).map((series, i) => ({
      label: `${t('report.reference')} : ${series.label}`,
      colour: colours[i % colours.length]!,
      dashed: true,
    })),
    ...(measured?.series ?? []).map((series, i) => ({ label: series.label, colour: colours[(i + 1) % colours.length]!, dashed: false })),
  ];
  return h(
    View,
    { wrap: false, style: { marginVertical: 4 } },
    h(Text, { style: { ...s.muted, marginBottom: 2 } }, chart.title),
    h(
      View,
      { style: { width: W, height: H, position: 'relative' } },
      h(
        Svg,
        { width: W, height: H, viewBox: `0 0 ${W} ${H}`, style: { position: 'absolute', top: 0, left: 0 } },
        h(Rect, { x: 0, y: 0, width: W, height: H, fill: '#ffffff', stroke: LINE, strokeWidth: 0.75 }),
        yTicks.map((v) => h(Line, { key: `y${v}`, x1: pad.left, x2: W - pad.right, y1: sy(v), y2: sy(v), stroke: '#e5e7eb', strokeWidth: 0.5 })),
        band && h(Polygon, { points: points(band), fill: '#bfdbfe', fillOpacity: 0.6, stroke: '#60a5fa', strokeWidth: 0.75 }),
        reference?.series.map((series, i) =>
          h(Polyline, {
            key: `r${i}`,
            points: points(series.points),
            fill: 'none',
            stroke: colours[i % colours.length],
            strokeWidth: 1,
            strokeDasharray: '4 3',
          }),
        ),
        measured?.series.map((series, i) =>
          h(Polyline, { key: `m${i}`, points: points(series.points), fill: 'none', stroke: colours[(i + 1) % colours.length], strokeWidth: 1.4 }),
        ),
        h(Line, { x1: pad.left, x2: pad.left, y1: pad.top, y2: H - pad.bottom, stroke: '#9ca3af', strokeWidth: 0.75 }),
        h(Line, { x1: pad.left, x2: W - pad.right, y1: H - pad.bottom, y2: H - pad.bottom, stroke: '#9ca3af', strokeWidth: 0.75 }),
        xTicks.map((v) => h(Line, { key: `x${v}`, x1: sx(v), x2: sx(v), y1: H - pad.bottom, y2: H - pad.bottom + 3, stroke: '#9ca3af', strokeWidth: 0.75 })),
      ),
      // Tick labels as text of the page, in the embedded font.
      yTicks.map((v) =>
        h(
          Text,
          { key: `ty${v}`, style: { position: 'absolute', left: 0, width: pad.left - 4, top: sy(v) - 5, fontSize: SMALL, textAlign: 'right', color: MUTED } },
          formatNumber(v),
        ),
      ),
      xTicks.map((v) =>
        h(
          Text,
          {
            key: `tx${v}`,
            style: { position: 'absolute', left: sx(v) - 25, width: 50, top: H - pad.bottom + 4, fontSize: SMALL, textAlign: 'center', color: MUTED },
          },
          formatNumber(v),
        ),
      ),
      h(
        Text,
        { style: { position: 'absolute', left: pad.left, right: pad.right, bottom: 2, fontSize: 9, textAlign: 'center' } },
        (measured ?? reference)!.xLabel,
      ),
    ),
    h(
      View,
      { style: { flexDirection: 'row', flexWrap: 'wrap', gap: 10, marginTop: 3 } },
      legend.map((item) =>
        h(
          View,
          { key: item.label, style: { flexDirection: 'row', alignItems: 'center', gap: 4 } },
          h(
            Svg,
            { width: 16, height: 8, viewBox: '0 0 16 8' },
            item.colour === 'band'
              ? h(Rect, { x: 0, y: 0, width: 16, height: 8, fill: '#bfdbfe', stroke: '#60a5fa', strokeWidth: 0.75 })
              : h(Line, { x1: 0, x2: 16, y1: 4, y2: 4, stroke: item.colour, strokeWidth: 2, strokeDasharray: item.dashed ? '4 2' : undefined }),
          ),
          h(Text, { style: { fontSize: SMALL, color: MUTED } }, item.label),
        ),
      ),
    ),
  );
}

/** The most comment lines that still leave the comments and the signatures room on one page. */
const COMMENT_LINES = 30;
/** About how many lines the comments take at the body size (90 characters a line across the page). */
const commentLines = (report: Report) =>
  [report.comment, report.closing?.comment ?? '']
    .flatMap((comment) => comment.split('\n'))
    .reduce((lines, line) => lines + Math.max(1, Math.ceil(line.length / 90)), 0);

export function ReportDocument({ report }: { report: Report }) {
  return h(
    Document,
    {
      title: `${t('report.title')} ${report.number}`,
      author: t('report.workshop'),
      creator: t('report.workshop'),
      producer: t('report.workshop'),
      language: 'fr',
    },
    h(
      Page,
      { size: 'A4', style: s.page },
      h(
        View,
        { style: s.header },
        h(
          View,
          null,
          h(Text, { style: s.workshop }, t('report.workshop')),
          h(Text, { style: s.title }, t('report.title')),
          h(Text, { style: s.number }, report.number),
          h(Text, { style: s.muted }, report.editedOn),
        ),
        h(
          Svg,
          { width: 72, height: 72, viewBox: `0 0 ${report.qr.size} ${report.qr.size}` },
          h(Rect, { x: 0, y: 0, width: report.qr.size, height: report.qr.size, fill: '#ffffff' }),
          h(Path, { d: report.qr.d, fill: '#000000' }),
        ),
      ),
      h(
        View,
        { style: s.blocks },
        h(Fields, { title: t('report.order'), fields: report.order }),
        h(Fields, { title: t('report.vehicle'), fields: report.vehicle }),
        h(Fields, { title: t('report.gearbox'), fields: report.gearbox }),
      ),
      // Said only when known, as on the page.
      report.history.length > 0 && h(H2, null, t('report.history')),
      report.history.length > 0 &&
        h(Table, {
          head: [t('report.mileage'), t('report.intervention')],
          widths: [22, 78],
          rows: report.history.map((e) => [e.mileage, e.intervention]),
        }),
      h(H2, null, t('report.diagnostic')),
      h(H3, null, t('report.faultCodes')),
      report.faultCodes.length === 0
        ? h(Muted, null, report.faultCodesNote ?? t('report.noFaultCodes'))
        : h(Table, {
            head: [t('report.code'), t('report.description'), t('report.conditions'), t('report.comment')],
            widths: [14, 30, 34, 22],
            rows: conditionRows(report.faultCodes),
          }),
      h(H3, null, t('report.symptoms')),
      report.symptoms.length === 0
        ? h(Muted, null, t('report.noSymptoms'))
        : h(Table, {
            head: [t('report.symptom'), t('report.code'), t('report.conditions'), t('report.comment')],
            widths: [30, 12, 36, 22],
            rows: conditionRows(report.symptoms),
          }),
      h(H2, null, t('report.outages')),
      report.outages.length === 0 && h(Muted, null, t('report.noOutages')),
      report.outages.map((o) =>
        h(
          View,
          { key: o.id, wrap: false, style: { marginBottom: 3 } },
          h(Text, { style: s.bold }, o.label),
          o.description ? h(Muted, null, o.description) : null,
        ),
      ),
      h(H2, null, t('report.procedures')),
      report.validatedOn && h(Muted, null, t('report.validatedOn', { date: report.validatedOn })),
      report.procedures.length === 0 && h(Muted, null, t('report.noProcedures')),
      report.procedures.map((p, i) =>
        h(
          View,
          { key: p.id },
          h(H3, null, i + 1, '. ', p.name),
          p.description ? h(Text, { style: { marginBottom: 2 } }, p.description) : null,
          h(Text, { style: s.h4, wrap: false, minPresenceAhead: 20 }, t('report.steps')),
          p.steps.map((step, n) =>
            h(
              View,
              { key: n, style: { flexDirection: 'row', marginLeft: 8 }, wrap: false },
              h(Text, { style: { width: 16 } }, n + 1, '.'),
              h(Text, { style: { flex: 1 } }, step),
            ),
          ),
          h(Text, { style: s.h4, wrap: false, minPresenceAhead: 90 }, t('report.checkpoints')),
          p.checkpoints.length === 0
            ? h(Muted, null, t('report.noCheckpoints'))
            : h(Table, {
                head: [t('report.checkpoint'), t('report.result'), t('report.value'), t('report.comment'), t('report.answeredBy')],
                widths: [28, 22, 11, 18, 21],
                rows: p.checkpoints.map((c) => [
                  h(View, null, h(Text, { style: s.bold }, c.name), c.description ? h(Muted, null, c.description) : null),
                  h(Badge, { result: c.result, label: c.resultLabel }),
                  c.value,
                  c.comment,
                  c.answered,
                ]),
                after: (r) => h(PhotoRow, { photos: p.checkpoints[r]!.photos, of: p.checkpoints[r]!.name }),
              }),
        ),
      ),
      h(H2, null, t('report.measures')),
      report.measures.length === 0
        ? h(Muted, null, t('report.noMeasures'))
        : h(Table, {
            head: [t('report.measure'), t('report.bounds'), t('report.value'), t('report.result'), t('report.comment')],
            widths: [28, 15, 14, 20, 23],
            rows: report.measures.map((m) => [m.name, m.bounds, m.value, h(Badge, { result: m.result, label: m.resultLabel }), m.comment]),
            after: (r) => h(PhotoRow, { photos: report.measures[r]!.photos, of: report.measures[r]!.name }),
          }),
      report.curves.length === 0 && h(View, { wrap: false }, h(H2, null, t('report.curves')), h(Muted, null, t('report.noCurves'))),
      report.curves.map((curve, i) =>
        h(
          View,
          { key: curve.id },
          // The curve's title (and the section's, first) go to the next page with its first chart rather than alone.
          h(
            View,
            { wrap: false },
            i === 0 && h(H2, null, t('report.curves')),
            h(H3, null, curve.description),
            curve.result ? h(Text, null, h(Text, { style: s.muted }, t('report.result'), ' : '), curve.result) : null,
            curve.comment ? h(Text, null, curve.comment) : null,
            curve.problems.map((problem) => h(Text, { key: problem, style: { color: DANGER } }, problem)),
            curve.charts[0] && h(Chart, { chart: curve.charts[0] }),
          ),
          curve.charts.slice(1).map((chart) => h(Chart, { key: chart.title, chart })),
        ),
      ),
      // The comments and the signatures in one block: «Commentaires» never leaves its comments, the
      // closing comment never leaves its heading, and the signatures never stand alone. Comments
      // too long for that block to fit a page flow instead (their headings still keep a first line).
      h(
        View,
        { wrap: commentLines(report) > COMMENT_LINES },
        h(H2, null, t('report.comments')),
        h(H3, null, t('report.orderComment')),
        h(Text, { style: report.comment ? {} : s.muted }, report.comment || t('report.noComment')),
        report.closing &&
          h(
            Fragment,
            null,
            h(H3, null, t('report.closingComment')),
            h(Text, { style: report.closing.comment ? {} : s.muted }, report.closing.comment || t('report.noComment')),
          ),
        // When the comments flow, the signatures still take the closing's author line with them.
        h(
          View,
          { wrap: false },
          report.closing && h(Muted, null, report.closing.by),
          h(H2, null, t('report.signatures')),
          h(
            View,
            { style: s.signatures },
            [t('report.technician'), t('report.customer')].map((who) =>
              h(
                View,
                { key: who, style: s.signature },
                h(Text, { style: s.bold }, who),
                h(Text, { style: s.signatureLine }, t('report.name'), ' :'),
                h(Text, { style: s.signatureLine }, t('report.date'), ' :'),
                h(Text, null, t('report.signature'), ' :'),
                h(View, { style: { height: 40 } }),
              ),
            ),
          ),
        ),
      ),
      h(
        View,
        { style: s.footer, fixed: true },
        h(Text, null, t('report.footer', { number: report.number, edited: report.editedOn })),
        h(Text, { render: ({ pageNumber, totalPages }) => t('print.page', { page: pageNumber, pages: totalPages ?? pageNumber }) }),
      ),
    ),
  );
}

/**
 * The report as a PDF byte stream, ready for a Response: renderToStream, less its leak. Its React
 * root stays listed in the reconciler for good, holding the document and its layout (about
 * 0.2 MB a report); emptied here once the layout is done (pdfkit then only writes the stream).
 */
export async function renderReportPdf(report: Report): Promise<NodeJS.ReadableStream> {
  // The element is the Document that ReportDocument returns (JSX typed it as such).
  return renderDocumentPdf(h(ReportDocument, { report }) as ReactElement<DocumentProps>);
}

/** Any of the thread's documents (the report, the outage sheet) as a PDF byte stream, as renderReportPdf says. */
export async function renderDocumentPdf(document: ReactElement<DocumentProps>): Promise<NodeJS.ReadableStream> {
  freshFonts();
  const instance = pdf(document);
  try {
    // Despite its name, toBuffer answers the stream renderToStream would.
    return await instance.toBuffer();
  } finally {
    // Twice: the root keeps the tree of the previous commit as well as the current one.
    instance.updateContainer(null as never);
    instance.updateContainer(null as never);
    instance.container.document = null;
  }
}
