// Curves (SPEC §3): a CSV whose first column is the abscissa (time, engine speed…) and the next
// ones either a value, or the low and high limits of a reference band. Drawn on the server as
// SVG, so reading a curve needs no JavaScript. A repair order's curves are read against one of
// its model's reference curves.
import { z } from 'zod';
import { formatNumber } from '#lib/format.ts';
import { fileKinds, type FileKind } from '#lib/storage/files.ts';
import { t } from '#lib/i18n.ts';
import { required, optionalText } from '#lib/validation.ts';

export type Curve = {
  xLabel: string;
  /** One series per value column; a band when the file gives low and high limits. */
  series: { label: string; points: [number, number][] }[];
  band?: { label: string; points: [number, number, number][] };
};

/** Rows of values read from a file: past it the file is refused before anything else is read. */
export const MAX_CURVE_ROWS = 20_000;
export const MAX_CURVE_COLUMNS = 16;
/** 20,000 rows of 16 columns fit well within it: a larger file is refused unread. */
export const MAX_CURVE_BYTES = 8 * 1024 * 1024;
/** No measure of a gearbox comes near it; past it a value is refused rather than drawn. */
export const MAX_CURVE_VALUE = 1e9;
/** A long series is drawn as this many slices, each keeping its lowest and highest point. */
const DRAWN_SLICES = 800;

const toNumber = (cell: string) => {
  const text = cell.trim().replace(/\s/g, '');
  return /^[-+]?\d+(?:[.,]\d+)?(?:e[-+]?\d+)?$/i.test(text) ? Number(text.replace(',', '.')) : Number.NaN;
};

// Diagnostic tools export machine names (`temps_s`, `course_min_mm`): charts and reports read
// them as words with the unit apart. A header already written for people is kept as it is.
const UNITS = new Set([
  's',
  'ms',
  'min',
  'h',
  'mm',
  'cm',
  'm',
  'bar',
  'mbar',
  'kpa',
  'pa',
  'psi',
  'nm',
  'n',
  'rpm',
  'hz',
  'v',
  'mv',
  'a',
  'ma',
  'w',
  'kw',
  'c',
  'degc',
  'pct',
  'kmh',
  'l',
  'ml',
]);
const UNIT_NAMES: Record<string, string> = {
  kpa: 'kPa',
  pa: 'Pa',
  nm: 'N·m',
  n: 'N',
  rpm: 'tr/min',
  hz: 'Hz',
  v: 'V',
  mv: 'mV',
  a: 'A',
  ma: 'mA',
  w: 'W',
  kw: 'kW',
  c: '°C',
  degc: '°C',
  pct: '%',
  kmh: 'km/h',
};
function labelParts(header: string): { words: string; unit?: string } | null {
  const parts = header.trim().split('_').filter(Boolean);
  if (!header.includes('_') || parts.length < 2) return null;
  // Engine speed is exported as `regime_tr_min`: its unit is two words.
  const perMinute = parts.length > 2 && parts.slice(-2).join('_').toLowerCase() === 'tr_min';
  const last = parts.at(-1)!.toLowerCase();
  const unit = perMinute ? 'tr/min' : UNITS.has(last) ? (UNIT_NAMES[last] ?? last) : undefined;
  const words = (perMinute ? parts.slice(0, -2) : unit ? parts.slice(0, -1) : parts).join(' ');
  return { words: words.charAt(0).toUpperCase() + words.slice(1), unit };
}
/** A column's header as a chart names it: `temps_s` reads «Temps (s)». */
export function columnLabel(header: string): string {
  const label = labelParts(header);
  if (!label) return header.trim();
  return label.unit ? `${label.words} (${label.unit})` : label.words;
}
/** A band's legend: `course_min_mm`, `course_max_mm` read «Course min – max (mm)». */
function bandLabel(low: string, high: string): string {
  const [a, b] = [labelParts(low), labelParts(high)];
  const [lw, hw] = [a?.words.split(' '), b?.words.split(' ')];
  if (a && b && a.unit === b.unit && lw && hw && lw.length === hw.length && lw.slice(0, -1).join(' ') === hw.slice(0, -1).join(' ')) {
    return `${a.words} – ${hw.at(-1)}${a.unit ? ` (${a.unit})` : ''}`;
  }
  return `${columnLabel(low)} – ${columnLabel(high)}`;
}

/** A curve, or the French reason it cannot be drawn (naming the line at fault). */
export type CurveReading = { curve: Curve; error?: undefined } | { curve: null; error: string };
const refused = (error: string): CurveReading => ({ curve: null, error });

/**
 * The non-empty lines with their line numbers, or null past `max` of them. Scans with indexOf
 * and stops early, so a file of millions of lines is refused without being split.
 */
function firstLines(text: string, max: number): { line: number; text: string }[] | null {
  const out: { line: number; text: string }[] = [];
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    // Blank lines count too, or a file of blank lines would be scanned to its end.
    if (line > max * 3) return null;
    const found = text.indexOf('\n', start);
    const end = found < 0 ? text.length : found;
    const raw = text.slice(start, end).replace(/\r$/, '');
    if (raw.trim() !== '') {
      if (out.length === max) return null;
      out.push({ line, text: raw });
    }
    start = end + 1;
  }
  return out;
}

const excerpt = (cell: string) => (cell.length > 40 ? `${cell.slice(0, 40)}…` : cell);

/** Keeps each slice's lowest and highest point: a spike out of the band stays visible. */
function thinSeries(points: [number, number][]): [number, number][] {
  if (points.length <= DRAWN_SLICES * 2) return points;
  const out: [number, number][] = [];
  const size = points.length / DRAWN_SLICES;
  for (let s = 0; s < DRAWN_SLICES; s++) {
    const [from, to] = [Math.floor(s * size), Math.floor((s + 1) * size)];
    let [lo, hi] = [from, from];
    for (let i = from + 1; i < to; i++) {
      if (points[i]![1] < points[lo]![1]) lo = i;
      if (points[i]![1] > points[hi]![1]) hi = i;
    }
    for (const i of lo === hi ? [lo] : [Math.min(lo, hi), Math.max(lo, hi)]) out.push(points[i]!);
  }
  return out;
}

/** A band is smooth: every nth point, and the last. */
function thinBand(points: [number, number, number][]): [number, number, number][] {
  if (points.length <= DRAWN_SLICES * 2) return points;
  const step = points.length / (DRAWN_SLICES * 2);
  const out = Array.from({ length: DRAWN_SLICES * 2 }, (_, i) => points[Math.floor(i * step)]!);
  out.push(points[points.length - 1]!);
  return out;
}

/**
 * Reads a CSV (`;`, tab or `,` separated, decimal comma accepted): the first line may name the
 * columns, every other line holds numbers. Refuses with a French reason rather than drawing part
 * of a file; what is drawn is thinned so the SVG stays light.
 */
export function readCurve(csv: string): CurveReading {
  const text = csv.charCodeAt(0) === 0xfeff ? csv.slice(1) : csv;
  const lines = firstLines(text, MAX_CURVE_ROWS + 1);
  if (!lines) return refused(t('curves.tooLong', { max: formatNumber(MAX_CURVE_ROWS) }));
  if (lines.length === 0) return refused(t('curves.empty'));
  const first = lines[0]!.text;
  const separator = first.includes(';') ? ';' : first.includes('\t') ? '\t' : ',';
  const split = (line: string) => line.split(separator).map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
  const firstCells = split(first);
  while (firstCells.length > 1 && firstCells[firstCells.length - 1] === '') firstCells.pop();
  const hasHeader = firstCells.some((cell) => Number.isNaN(toNumber(cell)));
  const header = hasHeader ? firstCells : firstCells.map((_, i) => (i === 0 ? 'x' : `y${i}`));
  if (header.length < 2) return refused(t('curves.oneColumn'));
  if (header.length > MAX_CURVE_COLUMNS) return refused(t('curves.tooManyColumns', { max: MAX_CURVE_COLUMNS }));
  const data = hasHeader ? lines.slice(1) : lines;
  if (data.length < 2) return refused(t('curves.tooShort'));
  const rows: number[][] = [];
  for (const { line, text: row } of data) {
    const cells = split(row);
    const values: number[] = [];
    for (let i = 0; i < header.length; i++) {
      const cell = cells[i] ?? '';
      const value = toNumber(cell);
      if (cell === '') return refused(t('curves.missingValue', { line, column: header[i]! }));
      if (Number.isNaN(value)) return refused(t('curves.notANumber', { line, value: excerpt(cell) }));
      // Beyond any measure (and where doubles lose the units): refused, never drawn.
      if (!Number.isFinite(value) || Math.abs(value) > MAX_CURVE_VALUE) return refused(t('curves.outOfRange', { line, value: excerpt(cell) }));
      values.push(value);
    }
    rows.push(values);
  }
  const lower = header.map((h) => h.toLowerCase());
  const low = lower.findIndex((h, i) => i > 0 && /min|bas|low/.test(h));
  const high = lower.findIndex((h, i) => i > 0 && /max|haut|high/.test(h));
  const curve: Curve = { xLabel: columnLabel(header[0]!), series: [] };
  if (low > 0 && high > 0) curve.band = { label: bandLabel(header[low]!, header[high]!), points: thinBand(rows.map((r) => [r[0]!, r[low]!, r[high]!])) };
  for (let i = 1; i < header.length; i++) {
    if (curve.band && (i === low || i === high)) continue;
    curve.series.push({ label: columnLabel(header[i]!), points: thinSeries(rows.map((r) => [r[0]!, r[i]!])) });
  }
  return { curve };
}

/** The curve of a CSV, or null when unreadable (readCurve says why). */
export function parseCurve(csv: string): Curve | null {
  return readCurve(csv).curve;
}

/** Round tick steps (1, 2, 5 × 10^n) covering [min, max] in about `count` steps. */
export function ticks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  if (!Number.isFinite(step) || step <= 0) return [min];
  const out: number[] = [];
  // Counted, not accumulated: a step below the doubles' resolution cannot loop forever.
  const first = Math.ceil(min / step);
  for (let k = first; k * step <= max + step / 1e6 && out.length <= count * 3; k++) out.push(Number((k * step).toFixed(10)));
  return out;
}

/** The extent of everything drawn, padded a little vertically. */
export function extent(curves: Curve[]): { x: [number, number]; y: [number, number] } | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const curve of curves) {
    for (const s of curve.series) {
      for (const [x, y] of s.points) {
        xs.push(x);
        ys.push(y);
      }
    }
    for (const [x, lo, hi] of curve.band?.points ?? []) {
      xs.push(x);
      ys.push(lo, hi);
    }
  }
  if (xs.length === 0) return null;
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const pad = (y1 - y0 || Math.abs(y1) || 1) * 0.05;
  y0 -= pad;
  y1 += pad;
  return { x: [Math.min(...xs), Math.max(...xs)], y: [y0, y1] };
}

/** Files a curve of an order may hold (issue 7): the CSV is drawn, the others are shown. */
export const curveFileKinds = ['csv', 'txt', 'pdf', 'png', 'jpg'] as const satisfies readonly FileKind[];
export const curveFileMimeTypes: readonly string[] = curveFileKinds.flatMap((kind) => fileKinds[kind].mimeTypes);
export const curveFileAccept = curveFileKinds.flatMap((kind) => fileKinds[kind].extensions.map((ext) => `.${ext}`)).join(',');
/** The storage bucket they go through; its other formats are refused when linking. */
export const CURVE_BUCKET = 'measure' as const;
export const IMPORT_BUCKET = 'diagnostic-import' as const;
export const isCurveFileName = (name: string) =>
  curveFileKinds.some((kind) => fileKinds[kind].extensions.some((ext) => name.toLowerCase().endsWith(`.${ext}`)));

/** A document chosen in a select: '' or absent is none. */
const documentId = z.preprocess((v) => (v === '' || v === null || v === undefined ? null : v), z.uuid(t('curves.unknownDocument')).nullable());

/** A curve or log recorded on an order (SPEC §3), read against a reference curve of its model. */
export const orderCurveSchema = z.object({
  description: required().max(300, t('validation.maxLength', { max: 300 })),
  result: optionalText(300),
  comment: optionalText(2000),
  referenceDocumentId: documentId,
  measureProcedureDocumentId: documentId,
});
export type OrderCurveInput = z.infer<typeof orderCurveSchema>;
export const ORDER_CURVE_FIELDS = ['description', 'result', 'comment', 'referenceDocumentId', 'measureProcedureDocumentId'] as const;

export type StoredFileInfo = { id: string; name: string; mimeType: string; size: number };
export type OrderFile = { id: string; kind: 'curve' | 'import'; curveId: string | null; comment: string; createdAt: string; file: StoredFileInfo };
export type LinkedDocument = { id: string; title: string; file: StoredFileInfo };
export type OrderCurve = {
  id: string;
  description: string;
  result: string;
  comment: string;
  createdAt: string;
  reference: LinkedDocument | null;
  measureProcedure: LinkedDocument | null;
  files: OrderFile[];
};
