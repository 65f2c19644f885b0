// Measures and checks of a repair order (SPEC §3 measure): copied from the model's dossier or
// typed, with the value measured and its check result, which the bounds propose.
import { z } from 'zod';
import { t } from './i18n.ts';
import { measureSchema } from './measures.ts';
import { number } from './validation.ts';

export const checkResults = ['ok', 'nok', 'not_mesurable', 'high_tolerance', 'low_tolerance'] as const;
export type CheckResult = (typeof checkResults)[number];

export const checkResultLabels: Record<CheckResult, string> = {
  ok: t('orderMeasures.results.ok'),
  nok: t('orderMeasures.results.nok'),
  not_mesurable: t('orderMeasures.results.not_mesurable'),
  high_tolerance: t('orderMeasures.results.high_tolerance'),
  low_tolerance: t('orderMeasures.results.low_tolerance'),
};

/** The badge of a result: colour and text together, never colour alone. */
export const checkResultTones: Record<CheckResult, string> = {
  ok: 'bg-success-soft text-success',
  nok: 'bg-danger-soft text-danger',
  not_mesurable: 'bg-readonly text-muted',
  high_tolerance: 'bg-amber-100 text-amber-900',
  low_tolerance: 'bg-amber-100 text-amber-900',
};

/** How far outside the bounds a value still counts as a tolerance, as a share of the range. */
export const TOLERANCE = 0.05;
// Decimal values such as 4.55 - 4.5 come out a hair above 0.05 in binary.
const EPSILON = 1e-9;

/**
 * The result the bounds propose for a value: inside → ok; just outside (5 % of max − min, or of
 * the bound itself when the range is a single value or one-sided) → a tolerance; further → nok.
 * Nothing to propose without a value or without any bound.
 */
export function proposeCheckResult(value: number | null | undefined, min: number | null | undefined, max: number | null | undefined): CheckResult | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const low = min ?? null;
  const high = max ?? null;
  if (low === null && high === null) return null;
  const range = low !== null && high !== null && high > low ? high - low : null;
  if (high !== null && value > high) {
    const span = range ?? Math.abs(high);
    return value - high <= span * TOLERANCE + EPSILON ? 'high_tolerance' : 'nok';
  }
  if (low !== null && value < low) {
    const span = range ?? Math.abs(low);
    return low - value <= span * TOLERANCE + EPSILON ? 'low_tolerance' : 'nok';
  }
  return 'ok';
}

/** A measured value: any number (a temperature may be negative), a French comma accepted. */
const measuredValue = () =>
  z.preprocess(
    (v) => (v === null || v === undefined || (typeof v === 'string' && v.trim() === '') ? undefined : v),
    number()
      .refine((n) => Math.abs(n) < 1e9, t('validation.number'))
      .optional(),
  );

/**
 * One schema for the measure form and the API: the dossier measure's fields (same bounds rules),
 * the value and the result; no result means "automatic" (the bounds' proposal is stored).
 */
export const orderMeasureSchema = measureSchema.safeExtend({
  gearboxMeasureId: z.uuid().optional(),
  measuredValue: measuredValue(),
  checkResult: z.preprocess((v) => (v === '' || v === 'auto' ? undefined : v), z.enum(checkResults, { error: t('orderMeasures.unknownResult') }).optional()),
  comment: z.string().trim().max(1000, t('validation.maxLength', { max: 1000 })).optional().default(''),
});
export type OrderMeasureInput = z.infer<typeof orderMeasureSchema>;
export const ORDER_MEASURE_FIELDS = ['name', 'description', 'unit', 'minimum', 'maximum', 'measuredValue', 'checkResult', 'comment'] as const;

export type OrderMeasureFile = { id: string; comment: string; createdAt: string; fileId: string; name: string; mimeType: string; size: number };
export type OrderMeasure = {
  id: string;
  gearboxMeasureId: string | null;
  name: string;
  description: string;
  unit: string;
  minimum: number | null;
  maximum: number | null;
  measuredValue: number | null;
  checkResult: CheckResult | null;
  comment: string;
  files: OrderMeasureFile[];
};
export const ORDER_MEASURE_SELECTION = 'id gearboxMeasureId name description unit minimum maximum measuredValue checkResult comment files { id comment createdAt fileId name mimeType size }';

/** A number as a form field shows it: "3,5". */
export const numberField = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n).replace('.', ','));
