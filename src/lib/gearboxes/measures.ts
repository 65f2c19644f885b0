// Measures of a gearbox model (SPEC §3): what to measure and within which bounds.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { optionalText, required } from '#lib/validation.ts';

export type Measure = { id: string; name: string; description: string; unit: string; minimum: number | null; maximum: number | null };

/** A bound: a number of zero or more ('Nombre invalide' otherwise); empty when there is none. */
const bound = () =>
  z.preprocess(
    (v) =>
      v === '' || v === null || v === undefined
        ? undefined
        : typeof v === 'string'
          ? /^\s*-?[\d\s]*[.,]?\d*\s*$/.test(v)
            ? Number(v.replace(/\s/g, '').replace(',', '.'))
            : Number.NaN
          : v,
    z
      .number({ error: t('validation.number') })
      .refine((n) => Number.isFinite(n) && n >= 0 && n < 1e9, t('validation.number'))
      .optional(),
  );

/** One schema for the measure form and the API. */
export const measureSchema = z
  .object({
    name: required().max(120, t('validation.maxLength', { max: 120 })),
    description: optionalText(2000),
    unit: optionalText(20),
    minimum: bound(),
    maximum: bound(),
  })
  .refine((v) => v.minimum === undefined || v.maximum === undefined || v.minimum <= v.maximum, {
    path: ['maximum'],
    message: t('measures.minAboveMax'),
    when: (payload) => {
      const value = payload.value as { minimum?: unknown; maximum?: unknown };
      // A bound typed wrong is NaN here: its own 'Nombre invalide' says enough.
      return Number.isFinite(value?.minimum) && Number.isFinite(value?.maximum);
    },
  });
export type MeasureInput = z.infer<typeof measureSchema>;

/** "2,5 – 4 bar", "≥ 2,5 bar", "≤ 4 bar" or "—". */
export function boundsText(measure: Pick<Measure, 'minimum' | 'maximum' | 'unit'>, format: (n: number) => string): string {
  const unit = measure.unit ? ` ${measure.unit}` : '';
  if (measure.minimum !== null && measure.maximum !== null) return `${format(measure.minimum)} – ${format(measure.maximum)}${unit}`;
  if (measure.minimum !== null) return `≥ ${format(measure.minimum)}${unit}`;
  if (measure.maximum !== null) return `≤ ${format(measure.maximum)}${unit}`;
  return '—';
}
