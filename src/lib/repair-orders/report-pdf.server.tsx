// The intervention report as a PDF (ARCHITECTURE.md: @react-pdf/renderer, rendered on the server
// as a stream): the same content, in the same order, as the printable page. Server only: the
// report.pdf endpoint is its one importer, so no client bundle ever sees it.
import { createRequire } from 'node:module';
import type { ReactNode } from 'react';
import { Document, Font, Line, Page, Path, pdf, Polygon, Polyline, Rect, StyleSheet, Svg, Text, View } from '@react-pdf/renderer';
import { extent, ticks, type Curve } from './curves.ts';
import { formatNumber } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import type { CheckResult } from './measures.ts';

/** A label and its value; `whole` for a number or a date, which never wraps (labels and words may). */
export type ReportField = { label: string; value: string; whole?: boolean };
export type ReportCheckpoint = {
  id: string;
  name: string;
  description: string;
  result: CheckResult | null;
  resultLabel: string;
  value: string;
  comment: string;
  answered: string;
};
export type ReportProcedure = { id: string; name: string; description: string; steps: string[]; checkpoints: ReportCheckpoint[] };
export type ReportMeasure = { id: string; name: string; bounds: string; value: string; result: CheckResult | null; resultLabel: string; comment: string };
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

const INK = '#0f172a';
const MUTED = '#475569';
const LINE = '#cbd5e1';
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

const s = StyleSheet.create({
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
const H2 = ({ children }: { children: string }) => (
  <Text style={s.h2} wrap={false} minPresenceAhead={70}>
    {children}
  </Text>
);
const H3 = ({ children }: { children: ReactNode }) => (
  <Text style={s.h3} wrap={false} minPresenceAhead={60}>
    {children}
  </Text>
);
const Muted = ({ children }: { children: string }) => <Text style={s.muted}>{children}</Text>;

function Fields({ title, fields }: { title: string; fields: ReportField[] }) {
  return (
    <View style={s.block} wrap={false}>
      <Text style={{ ...s.h2, marginTop: 0 }}>{title}</Text>
      {fields.map((f) => (
        <View key={f.label} style={s.field}>
          <Text style={s.fieldLabel}>{f.label}</Text>
          <Text style={s.fieldValue}>{f.value}</Text>
        </View>
      ))}
    </View>
  );
}

function Badge({ result, label }: { result: CheckResult | null; label: string }) {
  if (!result) return <Text style={s.muted}>{label}</Text>;
  return <Text style={{ ...s.badge, ...tones[result] }}>{label}</Text>;
}

type Cell = string | ReactNode;
/**
 * A table whose rows never split across pages, its header row repeated at the top of every page
 * it continues on (`fixed` inside the table's View); widths are shares of the content width.
 */
function Table({ head, widths, rows }: { head: string[]; widths: number[]; rows: Cell[][] }) {
  const cell = (content: Cell, i: number, bold = false) => (
    <View key={i} style={{ ...s.cell, width: `${widths[i]}%`, ...(i === 0 ? { borderLeftWidth: 0.75 } : {}) }}>
      {typeof content === 'string' ? <Text style={bold ? s.bold : {}}>{content}</Text> : content}
    </View>
  );
  return (
    <View>
      {/* Never alone at a page's foot: the header moves on when its first row would not follow it. */}
      <View style={s.headRow} wrap={false} fixed minPresenceAhead={40}>
        {head.map((h, i) => cell(h, i, true))}
      </View>
      {rows.map((row, r) => (
        <View key={r} style={s.row} wrap={false}>
          {row.map((content, i) => cell(content, i, i === 0))}
        </View>
      ))}
    </View>
  );
}

const conditionRows = (items: ReportCondition[]): Cell[][] =>
  items.map((item) => [
    item.name,
    item.detail || '—',
    item.conditions.length ? (
      <View>
        {item.conditions.map((c) => (
          <Text key={c.label}>
            {c.label} : {c.value}
          </Text>
        ))}
      </View>
    ) : (
      <Muted>{t('report.noConditions')}</Muted>
    ),
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
  return (
    <View wrap={false} style={{ marginVertical: 4 }}>
      <Text style={{ ...s.muted, marginBottom: 2 }}>{chart.title}</Text>
      <View style={{ width: W, height: H, position: 'relative' }}>
        <Svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} style={{ position: 'absolute', top: 0, left: 0 }}>
          <Rect x={0} y={0} width={W} height={H} fill="#ffffff" stroke={LINE} strokeWidth={0.75} />
          {yTicks.map((v) => (
            <Line key={`y${v}`} x1={pad.left} x2={W - pad.right} y1={sy(v)} y2={sy(v)} stroke="#e5e7eb" strokeWidth={0.5} />
          ))}
          {band && <Polygon points={points(band)} fill="#bfdbfe" fillOpacity={0.6} stroke="#60a5fa" strokeWidth={0.75} />}
          {reference?.series.map((series, i) => (
            <Polyline key={`r${i}`} points={points(series.points)} fill="none" stroke={colours[i % colours.length]} strokeWidth={1} strokeDasharray="4 3" />
          ))}
          {measured?.series.map((series, i) => (
            <Polyline key={`m${i}`} points={points(series.points)} fill="none" stroke={colours[(i + 1) % colours.length]} strokeWidth={1.4} />
          ))}
          <Line x1={pad.left} x2={pad.left} y1={pad.top} y2={H - pad.bottom} stroke="#9ca3af" strokeWidth={0.75} />
          <Line x1={pad.left} x2={W - pad.right} y1={H - pad.bottom} y2={H - pad.bottom} stroke="#9ca3af" strokeWidth={0.75} />
          {xTicks.map((v) => (
            <Line key={`x${v}`} x1={sx(v)} x2={sx(v)} y1={H - pad.bottom} y2={H - pad.bottom + 3} stroke="#9ca3af" strokeWidth={0.75} />
          ))}
        </Svg>
        {/* Tick labels as text of the page, in the embedded font. */}
        {yTicks.map((v) => (
          <Text
            key={`ty${v}`}
            style={{ position: 'absolute', left: 0, width: pad.left - 4, top: sy(v) - 5, fontSize: SMALL, textAlign: 'right', color: MUTED }}
          >
            {formatNumber(v)}
          </Text>
        ))}
        {xTicks.map((v) => (
          <Text
            key={`tx${v}`}
            style={{ position: 'absolute', left: sx(v) - 25, width: 50, top: H - pad.bottom + 4, fontSize: SMALL, textAlign: 'center', color: MUTED }}
          >
            {formatNumber(v)}
          </Text>
        ))}
        <Text style={{ position: 'absolute', left: pad.left, right: pad.right, bottom: 2, fontSize: 9, textAlign: 'center' }}>
          {(measured ?? reference)!.xLabel}
        </Text>
      </View>
      <View style={{ flexDirection: 'row', flexWrap: 'wrap', gap: 10, marginTop: 3 }}>
        {legend.map((item) => (
          <View key={item.label} style={{ flexDirection: 'row', alignItems: 'center', gap: 4 }}>
            <Svg width={16} height={8} viewBox="0 0 16 8">
              {item.colour === 'band' ? (
                <Rect x={0} y={0} width={16} height={8} fill="#bfdbfe" stroke="#60a5fa" strokeWidth={0.75} />
              ) : (
                <Line x1={0} x2={16} y1={4} y2={4} stroke={item.colour} strokeWidth={2} strokeDasharray={item.dashed ? '4 2' : undefined} />
              )}
            </Svg>
            <Text style={{ fontSize: SMALL, color: MUTED }}>{item.label}</Text>
          </View>
        ))}
      </View>
    </View>
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
  return (
    <Document
      title={`${t('report.title')} ${report.number}`}
      author={t('report.workshop')}
      creator={t('report.workshop')}
      producer={t('report.workshop')}
      language="fr"
    >
      <Page size="A4" style={s.page}>
        <View style={s.header}>
          <View>
            <Text style={s.workshop}>{t('report.workshop')}</Text>
            <Text style={s.title}>{t('report.title')}</Text>
            <Text style={s.number}>{report.number}</Text>
            <Text style={s.muted}>{report.editedOn}</Text>
          </View>
          <Svg width={72} height={72} viewBox={`0 0 ${report.qr.size} ${report.qr.size}`}>
            <Rect x={0} y={0} width={report.qr.size} height={report.qr.size} fill="#ffffff" />
            <Path d={report.qr.d} fill="#000000" />
          </Svg>
        </View>

        <View style={s.blocks}>
          <Fields title={t('report.order')} fields={report.order} />
          <Fields title={t('report.vehicle')} fields={report.vehicle} />
          <Fields title={t('report.gearbox')} fields={report.gearbox} />
        </View>

        <H2>{t('report.diagnostic')}</H2>
        <H3>{t('report.faultCodes')}</H3>
        {report.faultCodes.length === 0 ? (
          <Muted>{report.faultCodesNote ?? t('report.noFaultCodes')}</Muted>
        ) : (
          <Table
            head={[t('report.code'), t('report.description'), t('report.conditions'), t('report.comment')]}
            widths={[14, 30, 34, 22]}
            rows={conditionRows(report.faultCodes)}
          />
        )}
        <H3>{t('report.symptoms')}</H3>
        {report.symptoms.length === 0 ? (
          <Muted>{t('report.noSymptoms')}</Muted>
        ) : (
          <Table
            head={[t('report.symptom'), t('report.code'), t('report.conditions'), t('report.comment')]}
            widths={[30, 12, 36, 22]}
            rows={conditionRows(report.symptoms)}
          />
        )}

        <H2>{t('report.outages')}</H2>
        {report.outages.length === 0 && <Muted>{t('report.noOutages')}</Muted>}
        {report.outages.map((o) => (
          <View key={o.id} wrap={false} style={{ marginBottom: 3 }}>
            <Text style={s.bold}>{o.label}</Text>
            {o.description ? <Muted>{o.description}</Muted> : null}
          </View>
        ))}

        <H2>{t('report.procedures')}</H2>
        {report.validatedOn && <Muted>{t('report.validatedOn', { date: report.validatedOn })}</Muted>}
        {report.procedures.length === 0 && <Muted>{t('report.noProcedures')}</Muted>}
        {report.procedures.map((p, i) => (
          <View key={p.id}>
            <H3>
              {i + 1}. {p.name}
            </H3>
            {p.description ? <Text style={{ marginBottom: 2 }}>{p.description}</Text> : null}
            <Text style={s.h4} wrap={false} minPresenceAhead={20}>
              {t('report.steps')}
            </Text>
            {p.steps.map((step, n) => (
              <View key={n} style={{ flexDirection: 'row', marginLeft: 8 }} wrap={false}>
                <Text style={{ width: 16 }}>{n + 1}.</Text>
                <Text style={{ flex: 1 }}>{step}</Text>
              </View>
            ))}
            <Text style={s.h4} wrap={false} minPresenceAhead={90}>
              {t('report.checkpoints')}
            </Text>
            {p.checkpoints.length === 0 ? (
              <Muted>{t('report.noCheckpoints')}</Muted>
            ) : (
              <Table
                head={[t('report.checkpoint'), t('report.result'), t('report.value'), t('report.comment'), t('report.answeredBy')]}
                widths={[28, 22, 11, 18, 21]}
                rows={p.checkpoints.map((c) => [
                  <View>
                    <Text style={s.bold}>{c.name}</Text>
                    {c.description ? <Muted>{c.description}</Muted> : null}
                  </View>,
                  <Badge result={c.result} label={c.resultLabel} />,
                  c.value,
                  c.comment,
                  c.answered,
                ])}
              />
            )}
          </View>
        ))}

        <H2>{t('report.measures')}</H2>
        {report.measures.length === 0 ? (
          <Muted>{t('report.noMeasures')}</Muted>
        ) : (
          <Table
            head={[t('report.measure'), t('report.bounds'), t('report.value'), t('report.result'), t('report.comment')]}
            widths={[28, 15, 14, 20, 23]}
            rows={report.measures.map((m) => [m.name, m.bounds, m.value, <Badge result={m.result} label={m.resultLabel} />, m.comment])}
          />
        )}

        {report.curves.length === 0 && (
          <View wrap={false}>
            <H2>{t('report.curves')}</H2>
            <Muted>{t('report.noCurves')}</Muted>
          </View>
        )}
        {report.curves.map((curve, i) => (
          <View key={curve.id}>
            {/* The curve's title (and the section's, first) go to the next page with its first chart rather than alone. */}
            <View wrap={false}>
              {i === 0 && <H2>{t('report.curves')}</H2>}
              <H3>{curve.description}</H3>
              {curve.result ? (
                <Text>
                  <Text style={s.muted}>{t('report.result')} : </Text>
                  {curve.result}
                </Text>
              ) : null}
              {curve.comment ? <Text>{curve.comment}</Text> : null}
              {curve.problems.map((problem) => (
                <Text key={problem} style={{ color: DANGER }}>
                  {problem}
                </Text>
              ))}
              {curve.charts[0] && <Chart chart={curve.charts[0]} />}
            </View>
            {curve.charts.slice(1).map((chart) => (
              <Chart key={chart.title} chart={chart} />
            ))}
          </View>
        ))}

        {/* The comments and the signatures in one block: «Commentaires» never leaves its comments, the
            closing comment never leaves its heading, and the signatures never stand alone. Comments
            too long for that block to fit a page flow instead (their headings still keep a first line). */}
        <View wrap={commentLines(report) > COMMENT_LINES}>
          <H2>{t('report.comments')}</H2>
          <H3>{t('report.orderComment')}</H3>
          <Text style={report.comment ? {} : s.muted}>{report.comment || t('report.noComment')}</Text>
          {report.closing && (
            <>
              <H3>{t('report.closingComment')}</H3>
              <Text style={report.closing.comment ? {} : s.muted}>{report.closing.comment || t('report.noComment')}</Text>
            </>
          )}
          {/* When the comments flow, the signatures still take the closing's author line with them. */}
          <View wrap={false}>
            {report.closing && <Muted>{report.closing.by}</Muted>}
            <H2>{t('report.signatures')}</H2>
            <View style={s.signatures}>
              {[t('report.technician'), t('report.customer')].map((who) => (
                <View key={who} style={s.signature}>
                  <Text style={s.bold}>{who}</Text>
                  <Text style={s.signatureLine}>{t('report.name')} :</Text>
                  <Text style={s.signatureLine}>{t('report.date')} :</Text>
                  <Text>{t('report.signature')} :</Text>
                  <View style={{ height: 40 }} />
                </View>
              ))}
            </View>
          </View>
        </View>

        <View style={s.footer} fixed>
          <Text>{t('report.footer', { number: report.number, edited: report.editedOn })}</Text>
          <Text render={({ pageNumber, totalPages }) => t('report.page', { page: pageNumber, pages: totalPages ?? pageNumber })} />
        </View>
      </Page>
    </Document>
  );
}

/**
 * The report as a PDF byte stream, ready for a Response: renderToStream, less its leak. Its React
 * root stays listed in the reconciler for good, holding the document and its layout (about
 * 0.2 MB a report); emptied here once the layout is done (pdfkit then only writes the stream).
 */
export async function renderReportPdf(report: Report): Promise<NodeJS.ReadableStream> {
  const instance = pdf(<ReportDocument report={report} />);
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
