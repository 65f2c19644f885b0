// A stored curve file read for drawing, shared by the diagnostic's curves tab and the order's
// report: which files are CSVs, and a CSV read as a curve or why it cannot be drawn.
import { MAX_CURVE_BYTES, MAX_CURVE_ROWS, readCurve, type CurveReading, type StoredFileInfo } from './curves.ts';
import { formatNumber } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';

export const isCsv = (file: StoredFileInfo) => file.mimeType === 'text/csv';

/** A stored CSV read as a curve, or why it cannot be drawn (the curves tab and the report). */
export async function readingOf(locals: App.Locals, file: StoredFileInfo): Promise<CurveReading> {
  if (file.size > MAX_CURVE_BYTES) return { curve: null, error: t('curves.tooLong', { max: formatNumber(MAX_CURVE_ROWS) }) };
  const text = await locals.services.files.readText(file.id, MAX_CURVE_BYTES);
  return text === null ? { curve: null, error: t('curves.notText') } : readCurve(text);
}
