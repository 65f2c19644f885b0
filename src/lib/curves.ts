// Curves (SPEC §3): a CSV whose first column is the abscissa (time, engine speed…) and the next
// ones either a value, or the low and high limits of a reference band. Drawn on the server as
// SVG, so reading a curve needs no JavaScript.

export type Curve = {
  xLabel: string;
  /** One series per value column; a band when the file gives low and high limits. */
  series: { label: string; points: [number, number][] }[];
  band?: { label: string; points: [number, number, number][] };
};

const MAX_POINTS = 2000;

const toNumber = (cell: string) => {
  const text = cell.trim().replace(/\s/g, '');
  return /^-?\d+(?:[.,]\d+)?(?:e-?\d+)?$/i.test(text) ? Number(text.replace(',', '.')) : Number.NaN;
};

/** The curve of a CSV (`;`, tab or `,` separated, decimal comma accepted), or null when unreadable. */
export function parseCurve(csv: string): Curve | null {
  const lines = csv.replace(/^\uFEFF/, '').split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length < 2) return null;
  const separator = lines[0]!.includes(';') ? ';' : lines[0]!.includes('\t') ? '\t' : ',';
  const split = (line: string) => line.split(separator).map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
  const first = split(lines[0]!);
  const hasHeader = first.some((cell) => Number.isNaN(toNumber(cell)));
  const header = hasHeader ? first : first.map((_, i) => (i === 0 ? 'x' : `y${i}`));
  const rows = (hasHeader ? lines.slice(1) : lines)
    .slice(0, MAX_POINTS)
    .map((line) => split(line).map(toNumber))
    .filter((row) => row.length >= 2 && row.slice(0, header.length).every(Number.isFinite));
  if (rows.length < 2 || header.length < 2) return null;
  const lower = header.map((h) => h.toLowerCase());
  const low = lower.findIndex((h, i) => i > 0 && /min|bas|low/.test(h));
  const high = lower.findIndex((h, i) => i > 0 && /max|haut|high/.test(h));
  const curve: Curve = { xLabel: header[0]!, series: [] };
  if (low > 0 && high > 0) curve.band = { label: `${header[low]} – ${header[high]}`, points: rows.map((r) => [r[0]!, r[low]!, r[high]!]) };
  for (let i = 1; i < header.length; i++) {
    if (i === low || i === high) continue;
    curve.series.push({ label: header[i]!, points: rows.map((r) => [r[0]!, r[i]!]) });
  }
  return curve.series.length || curve.band ? curve : null;
}

/** Round tick steps (1, 2, 5 × 10^n) covering [min, max] in about `count` steps. */
export function ticks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step / 1e6; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

/** The extent of everything drawn, padded a little vertically. */
export function extent(curves: Curve[]): { x: [number, number]; y: [number, number] } | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const curve of curves) {
    for (const s of curve.series) for (const [x, y] of s.points) xs.push(x), ys.push(y);
    for (const [x, lo, hi] of curve.band?.points ?? []) xs.push(x), ys.push(lo, hi);
  }
  if (xs.length === 0) return null;
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const pad = (y1 - y0 || Math.abs(y1) || 1) * 0.05;
  y0 -= pad;
  y1 += pad;
  return { x: [Math.min(...xs), Math.max(...xs)], y: [y0, y1] };
}
