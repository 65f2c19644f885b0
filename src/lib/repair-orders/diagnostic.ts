// The diagnostic of a repair order (SPEC §2.7, §3): fault codes read on the gearbox and the
// conditions they appeared in. Symptoms, measures and curves follow the same pattern.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { choice, optionalRecordId, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { required } from '#lib/validation.ts';
import { fr } from '#lib/i18n/fr.ts';
import { graphql } from '#lib/graphql.ts';

export const temporalities = ['pre', 'during', 'post'] as const;
export type Temporality = (typeof temporalities)[number];
export const temporalityLabels: Record<Temporality, string> = fr.labels.temporality;

/** Suggestions of the condition fields (free text: the workshop may word it otherwise). */
export const acceleratorLoads = ['Pied levé', 'Charge partielle', 'Mi-charge', 'Pleine charge', 'Kick-down'] as const;
export const bvaModes = ['P', 'R', 'N', 'D', 'S (sport)', 'M (manuel)', 'Neige', 'Secours'] as const;
export const gears = ['1', '2', '3', '4', '5', '6', '7', '8', 'R', 'N'] as const;

export type AppearanceConditions = {
  temporality: Temporality | null;
  acceleratorLoad: string;
  bvaMode: string;
  gear: string;
  action: string;
  otherCondition: string;
  comment: string;
};

export type OrderFaultCode = AppearanceConditions & { id: string; errorCode: { id: string; code: string; description: string } };

const text = (max: number) => z.string().trim().max(max, t('validation.maxLength', { max })).optional().default('');

export const conditionsSchema = z.object({
  temporality: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(temporalities, { error: t('validation.required') }).optional()),
  acceleratorLoad: text(60),
  bvaMode: text(40),
  gear: text(10),
  action: text(120),
  otherCondition: text(300),
  comment: text(1000),
});

export type ConditionsInput = z.infer<typeof conditionsSchema>;
/** The condition columns of a fault code read or a symptom, as the API stores them. */
export const conditionValues = (input: ConditionsInput) => ({
  temporality: input.temporality ?? null,
  acceleratorLoad: input.acceleratorLoad,
  bvaMode: input.bvaMode,
  gear: input.gear,
  action: input.action,
  otherCondition: input.otherCondition,
  comment: input.comment,
});

/** The fields that count as an appearance condition (the comment does not). */
export const CONDITION_FIELDS = ['temporality', 'acceleratorLoad', 'bvaMode', 'gear', 'action', 'otherCondition'] as const;

/** At least one condition (SPEC §5): said under `conditions`, with every other problem at once. */
const withCondition = <S extends z.ZodType<Partial<Record<(typeof CONDITION_FIELDS)[number], unknown>>>>(schema: S) =>
  schema.refine((v) => CONDITION_FIELDS.some((k) => !!v[k]), {
    path: ['conditions'],
    message: t('symptoms.conditionRequired'),
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  });

/** A fault code and the conditions it appeared in: the code is the dossier's, or a new one with its description. */
export const faultCodeSchema = withCondition(
  conditionsSchema.extend({
    code: required()
      .max(20, t('validation.maxLength', { max: 20 }))
      .regex(/^[A-Za-z0-9-]+$/, 'Code invalide')
      .transform((v) => v.toUpperCase()),
    description: text(300),
  }),
);
export type FaultCodeInput = z.infer<typeof faultCodeSchema>;
export const FAULT_CODE_FIELDS = ['code', 'description', 'temporality', 'acceleratorLoad', 'bvaMode', 'gear', 'action', 'otherCondition', 'comment'] as const;

/** `/repair-order/{uuid}/code-conditions/{uuid}` (or the creation form): path and query; `?depuis=diagnostic` leads back there. */
export const codeConditionsPageSchema = z
  .object({ orderId: recordId(), faultCodeId: optionalRecordId(), depuis: choice(['diagnostic'] as const), ...recordPageFields })
  .transform((q) => ({ orderId: q.orderId, codeId: q.faultCodeId, fromDiagnostic: q.depuis === 'diagnostic', ...recordPageValues(q) }));

/** `/repair-order/{uuid}/symptom-conditions/{uuid}` (or the creation form): path and query. */
export const symptomConditionsPageSchema = z
  .object({ orderId: recordId(), symptomId: optionalRecordId(), ...recordPageFields })
  .transform((q) => ({ orderId: q.orderId, symptomId: q.symptomId, ...recordPageValues(q) }));

export type OrderSymptom = AppearanceConditions & {
  id: string;
  symptom: { id: string; name: string };
  errorCode: { id: string; code: string; description: string } | null;
};
export const SymptomFields = graphql(`
  fragment SymptomFields on order_symptoms {
    id symptom { id name } errorCode { id code description } temporality acceleratorLoad bvaMode gear action otherCondition comment
  }
`);

/** A symptom of the base and its conditions; at least one condition is requested (SPEC §5). */
export const symptomSchema = withCondition(
  conditionsSchema.extend({
    symptom: required().max(120, t('validation.maxLength', { max: 120 })),
    errorCode: text(20)
      .refine((v) => /^[A-Za-z0-9-]*$/.test(v), 'Code invalide')
      .transform((v) => v.toUpperCase()),
  }),
);
export type SymptomInput = z.infer<typeof symptomSchema>;
export const SYMPTOM_FIELDS = ['symptom', 'errorCode', 'temporality', 'acceleratorLoad', 'bvaMode', 'gear', 'action', 'otherCondition', 'comment'] as const;

/** The conditions given, labelled, in the form's order (lists, the report). */
export function conditionsOf(c: AppearanceConditions): { label: string; value: string }[] {
  const labels = {
    temporality: t('diagnostic.temporality'),
    acceleratorLoad: t('diagnostic.acceleratorLoad'),
    bvaMode: t('diagnostic.bvaMode'),
    gear: t('diagnostic.gear'),
    action: t('diagnostic.action'),
    otherCondition: t('diagnostic.otherCondition'),
  };
  return CONDITION_FIELDS.flatMap((key) => {
    const value = key === 'temporality' ? (c.temporality ? temporalityLabels[c.temporality] : '') : c[key];
    return value ? [{ label: labels[key], value }] : [];
  });
}
