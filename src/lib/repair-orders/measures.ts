// Measures and checks of a repair order (SPEC §3 measure): copied from the model's dossier or
// typed, with the value measured and its check result, which the bounds propose.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { measureSchema } from '#lib/gearboxes/measures.ts';
import { number, optionalText } from '#lib/validation.ts';

export { checkResults, proposeCheckResult, type CheckResult } from './check-results.ts';
import { checkResults, type CheckResult } from './check-results.ts';
import { fr } from '#lib/i18n/fr.ts';

export const checkResultLabels: Record<CheckResult, string> = fr.orderMeasures.results;

/** The badge of a result: colour and text together, never colour alone. */
export const checkResultTones: Record<CheckResult, string> = {
  ok: 'bg-success-soft text-success',
  nok: 'bg-danger-soft text-danger',
  not_mesurable: 'bg-readonly text-muted',
  high_tolerance: 'bg-amber-100 text-amber-900',
  low_tolerance: 'bg-amber-100 text-amber-900',
};

/** A measured value: any number (a temperature may be negative), a French comma accepted. */
/** A value measured on a gearbox (also a checkpoint's): a French comma accepted, empty for none. */
export const measuredValue = () =>
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
  comment: optionalText(1000),
});
export type OrderMeasureInput = z.infer<typeof orderMeasureSchema>;
export const ORDER_MEASURE_FIELDS = ['name', 'description', 'unit', 'minimum', 'maximum', 'measuredValue', 'checkResult', 'comment'] as const;
