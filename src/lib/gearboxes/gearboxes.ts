// Gearbox models (SPEC §3, §2.8): enumerations, labels, the list's URL and the model form.
import { recordId } from '#lib/page-query.ts';
import { isUuid } from '#lib/ids.ts';
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { workshopToday } from '#lib/format.ts';
import { optionalText, required } from '#lib/validation.ts';
import { fr } from '#lib/i18n/fr.ts';

export const gearboxTypes = ['robotic', 'automatic', 'double_clutch', 'variator'] as const;
export type GearboxType = (typeof gearboxTypes)[number];
export const gearboxTypeLabels: Record<GearboxType, string> = fr.labels.gearboxType;

export type GearboxModel = {
  id: string;
  model: string;
  bvaId: string;
  type: GearboxType;
  constructorName: string;
  doctorCode: string;
  businessName: string;
  startYear: number;
  endYear: number | null;
  gears: number | null;
  arrangement: string;
  propulsion: string;
  optionalPropulsion: string;
  /** The automatic-gearbox model this one derives from (SPEC §3, "parent BVA model"). */
  parentId: string | null;
};

export const GEARBOXES_PAGE_SIZE = 20;

/** `/repair-order?modele=` and `/add-stock?modele=`: a creation form opened from a dossier starts with its model. */
export const modelPrefillSchema = z.object({ modele: recordId() }).transform((q) => ({ modelId: q.modele ?? '' }));

export function gearboxesHref(query: { search: string; type: GearboxType | null; modelId: string | null; year: number | null; page: number }): string {
  const params = new URLSearchParams();
  if (query.search) params.set('recherche', query.search);
  if (query.type) params.set('type', query.type);
  if (query.modelId) params.set('modele', query.modelId);
  if (query.year) params.set('annee', String(query.year));
  if (query.page > 1) params.set('page', String(query.page));
  const text = params.toString();
  return text ? `/gearboxes?${text}` : '/gearboxes';
}

/** "2008 – 2016", or "depuis 2019" while still produced. */
export function yearsCovered(model: Pick<GearboxModel, 'startYear' | 'endYear'>): string {
  return model.endYear ? `${model.startYear} – ${model.endYear}` : `depuis ${model.startYear}`;
}

const yearField = () =>
  z.preprocess(
    (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : v),
    z
      .string()
      .regex(/^\d{4}$/, t('validation.year'))
      .transform(Number)
      .refine((y) => y >= 1950 && y <= 2100, t('validation.year')),
  );

/** One schema for the creation form, the edit form and the API. */
export const gearboxModelSchema = z
  .object({
    model: required().max(60, t('validation.maxLength', { max: 60 })),
    bvaId: optionalText(120),
    type: z.enum(gearboxTypes, { error: t('validation.required') }),
    constructorName: required().max(60, t('validation.maxLength', { max: 60 })),
    doctorCode: optionalText(120),
    businessName: optionalText(120),
    // A model fitted from a year to come is a typo, as for an order's construction year (walk31 W4).
    startYear: yearField().refine((y) => y <= Number(workshopToday().slice(0, 4)) + 1, t('validation.year')),
    endYear: z.preprocess((v) => (v === '' || v === null ? undefined : v), yearField().optional()),
    gears: z.preprocess(
      (v) => (v === '' || v === null || v === undefined ? undefined : Number(v)),
      z
        .number({ error: t('validation.number') })
        .int(t('validation.number'))
        .min(1, t('validation.min', { min: 1 }))
        .max(12, t('validation.number'))
        .optional(),
    ),
    arrangement: optionalText(120),
    propulsion: optionalText(120),
    optionalPropulsion: optionalText(120),
    parentId: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.string().refine(isUuid, t('errors.itemUnknown')).optional()),
  })
  .refine((v) => v.endYear === undefined || v.endYear >= v.startYear, {
    path: ['endYear'],
    message: t('validation.year'),
    // Also when another field failed: an end before the start is shown with the rest.
    when: (payload) => {
      const value = payload.value as { startYear?: unknown; endYear?: unknown };
      return typeof value?.startYear === 'number' && typeof value?.endYear === 'number';
    },
  });
export type GearboxModelInput = z.infer<typeof gearboxModelSchema>;

export type GearboxCode = { id: string; code: string };
export type DoctorCode = { id: string; code: string; businessName: string; tvsCode: string; engine: string; gearboxCodes: GearboxCode[] };

export const doctorCodeSchema = z.object({
  code: required().max(40, t('validation.maxLength', { max: 40 })),
  businessName: optionalText(120),
  tvsCode: optionalText(120),
  engine: optionalText(120),
});
export const gearboxCodeSchema = z.object({ code: required().max(40, t('validation.maxLength', { max: 40 })) });

export type ErrorCode = { id: string; code: string; description: string };
/** A fault code as a reader shows it: P0730, U0100, or a maker's own (letters, digits, dashes). */
export const errorCodeSchema = z.object({
  code: required()
    .max(20, t('validation.maxLength', { max: 20 }))
    .regex(/^[A-Za-z0-9-]+$/, t('validation.invalidCode'))
    .transform((v) => v.toUpperCase()),
  description: required().max(300, t('validation.maxLength', { max: 300 })),
});
