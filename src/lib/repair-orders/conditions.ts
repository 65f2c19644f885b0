// The conditions a fault code or a symptom appeared in (SPEC §3, §5): when, under which load,
// mode and gear, doing what; at least one is asked for.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { fr } from '#lib/i18n/fr.ts';
import { optionalText } from '#lib/validation.ts';

export const temporalities = ['pre', 'during', 'post'] as const;
export type Temporality = (typeof temporalities)[number];
export const temporalityLabels: Record<Temporality, string> = fr.labels.temporality;

/**
 * The values of the accelerator load, BVA mode and gear (decision 043): closed lists, like the
 * base's conditions that the operating phase and the other condition name; anything else is
 * refused with SPEC §8's «Cet item ne fait pas partie de la base de donnée». The service checks
 * them with the base's names, so that every made-up value of a save is said at once, each on its
 * field (decision 045).
 */
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

/** The value of `values` that `value` names in any case, as the list writes it; '' for none given, undefined for none of the list. */
export const listValueOf = (values: readonly string[], value: string) => (value === '' ? '' : values.find((x) => x.toLowerCase() === value.toLowerCase()));

/** The closed lists' values and the base's conditions (operating phase, other condition) are looked up by the service. */
export const conditionsSchema = z.object({
  temporality: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(temporalities, { error: t('validation.required') }).optional()),
  acceleratorLoad: optionalText(60),
  bvaMode: optionalText(60),
  gear: optionalText(60),
  action: optionalText(120),
  otherCondition: optionalText(120),
  comment: optionalText(1000),
});

export type ConditionsInput = z.infer<typeof conditionsSchema>;
/** The condition columns of a fault code read or a symptom, the base's conditions found by the service. */
export const conditionValues = (input: ConditionsInput, base: { actionId: string | null; otherConditionId: string | null }) => ({
  temporality: input.temporality ?? null,
  acceleratorLoad: input.acceleratorLoad,
  bvaMode: input.bvaMode,
  gear: input.gear,
  actionId: base.actionId,
  otherConditionId: base.otherConditionId,
  comment: input.comment,
});

/** The condition fields of a saved fault code read or symptom, as its form shows them (the service's rows hold the temporality as text). */
export const conditionFormValues = (saved: Omit<AppearanceConditions, 'temporality'> & { temporality: string | null }) => ({
  temporality: saved.temporality ?? '',
  acceleratorLoad: saved.acceleratorLoad,
  bvaMode: saved.bvaMode,
  gear: saved.gear,
  action: saved.action,
  otherCondition: saved.otherCondition,
  comment: saved.comment,
});

/** The fields that count as an appearance condition (the comment does not). */
export const CONDITION_FIELDS = ['temporality', 'acceleratorLoad', 'bvaMode', 'gear', 'action', 'otherCondition'] as const;

/** At least one condition (SPEC §5): said under `conditions`, with every other problem at once. */
export const withCondition = <S extends z.ZodType<Partial<Record<(typeof CONDITION_FIELDS)[number], unknown>>>>(schema: S) =>
  schema.refine((v) => CONDITION_FIELDS.some((k) => !!v[k]), {
    path: ['conditions'],
    message: t('symptoms.conditionRequired'),
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  });

/** The conditions given, labelled, in the form's order (lists, the report). */
export function conditionsOf(c: AppearanceConditions): { label: string; value: string }[] {
  const labels = {
    temporality: t('conditions.temporality'),
    acceleratorLoad: t('conditions.acceleratorLoad'),
    bvaMode: t('conditions.bvaMode'),
    gear: t('conditions.gear'),
    action: t('conditions.action'),
    otherCondition: t('conditions.otherCondition'),
  };
  return CONDITION_FIELDS.flatMap((key) => {
    const value = key === 'temporality' ? (c.temporality ? temporalityLabels[c.temporality] : '') : c[key];
    return value ? [{ label: labels[key], value }] : [];
  });
}
