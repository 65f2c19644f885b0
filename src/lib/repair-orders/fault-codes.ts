// Fault codes read on a repair order's gearbox (SPEC §2.7, §3): the code is the dossier's, or a
// new one with its description, and the conditions it appeared in.
import type { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { optionalText, required } from '#lib/validation.ts';
import { conditionsSchema, withCondition } from './conditions.ts';

/** A fault code and the conditions it appeared in: the code is the dossier's, or a new one with its description. */
export const faultCodeSchema = withCondition(
  conditionsSchema.extend({
    code: required()
      .max(20, t('validation.maxLength', { max: 20 }))
      .regex(/^[A-Za-z0-9-]+$/, t('validation.invalidCode'))
      .transform((v) => v.toUpperCase()),
    description: optionalText(300),
  }),
);
export type FaultCodeInput = z.infer<typeof faultCodeSchema>;
export const FAULT_CODE_FIELDS = ['code', 'description', 'temporality', 'acceleratorLoad', 'bvaMode', 'gear', 'action', 'otherCondition', 'comment'] as const;
