// Symptoms recorded on a repair order (SPEC §2.7, §3): one of the base's, the fault code read
// with it if any, and the conditions it appeared in.
import type { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { optionalText, required } from '#lib/validation.ts';
import { conditionsSchema, withCondition } from './conditions.ts';

/** A symptom of the base and its conditions; at least one condition is requested (SPEC §5). */
export const symptomSchema = withCondition(
  conditionsSchema.extend({
    symptom: required().max(120, t('validation.maxLength', { max: 120 })),
    errorCode: optionalText(20)
      .refine((v) => /^[A-Za-z0-9-]*$/.test(v), t('validation.invalidCode'))
      .transform((v) => v.toUpperCase()),
  }),
);
export type SymptomInput = z.infer<typeof symptomSchema>;
export const SYMPTOM_FIELDS = ['symptom', 'errorCode', 'temporality', 'acceleratorLoad', 'bvaMode', 'gear', 'action', 'otherCondition', 'comment'] as const;
