// The gearbox stock (SPEC §2.9, §3, §4): conditions, the list's URL, and one schema per form
// (add, move, change condition, remove), shared by the pages and the API.
import { z } from 'zod';
import type { GearboxType } from '#lib/gearboxes/gearboxes.ts';
import { t } from '#lib/i18n.ts';
import { optionalText, pastDate, required } from '#lib/validation.ts';
import { fr } from '#lib/i18n/fr.ts';

export const gearboxConditions = ['new', 'used', 'refurbished', 'old_material', 'out_of_order'] as const;
export type GearboxCondition = (typeof gearboxConditions)[number];
export const conditionLabels: Record<GearboxCondition, string> = fr.labels.gearboxCondition;

export const movementKinds = ['added', 'moved', 'condition', 'removed'] as const;
export type MovementKind = (typeof movementKinds)[number];

export const STOCK_PAGE_SIZE = 25;
export const MAX_QUANTITY = 100;

export type StockView = 'stock' | 'historique' | 'codes';
export type StockQuery = {
  view: StockView;
  search: string;
  modelId: string | null;
  type: GearboxType | null;
  condition: GearboxCondition | null;
  rack: string | null;
  page: number;
};

export function stockHref(query: Partial<StockQuery> & { item?: string; format?: 'csv' }): string {
  const params = new URLSearchParams();
  if (query.view && query.view !== 'stock') params.set('onglet', query.view);
  if (query.search?.trim()) params.set('recherche', query.search.trim());
  if (query.modelId) params.set('modele', query.modelId);
  if (query.type) params.set('type', query.type);
  if (query.condition) params.set('etat', query.condition);
  if (query.rack) params.set('rayon', query.rack);
  if (query.page && query.page > 1) params.set('page', String(query.page));
  if (query.item) params.set('article', query.item);
  if (query.format) params.set('format', query.format);
  const text = params.toString();
  return text ? `/stock?${text}` : '/stock';
}

/** Racks are written as the workshop paints them: capitals, no spaces ("b" → "B", "a 12" → "A12"). */
export function normaliseRack(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}

const rack = () =>
  required()
    .transform(normaliseRack)
    .pipe(z.string().regex(/^[A-Z0-9-]{1,10}$/, t('stock.invalidRack')));
const level = () =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : Number(v.trim())) : v),
    z
      .number({ error: (issue) => (issue.input === undefined ? t('validation.required') : t('validation.number')) })
      .int(t('validation.integer'))
      .min(1, t('validation.min', { min: 1 }))
      .max(99, t('validation.number')),
  );
const comment = () => optionalText(1000);

/** A box of the stock, as its forms and the API check it: each form picks its fields. */
export const stockItemSchema = z.object({
  gearboxModelId: z.uuid({ error: t('validation.required') }),
  /** `d:{doctor code id}` or `g:{gearbox code id}`; empty when the box carries none. */
  code: z
    .string()
    .optional()
    .default('')
    .refine((v) => v === '' || /^[dg]:[0-9a-f-]{36}$/i.test(v), t('stock.codeOfAnotherModel')),
  condition: z.enum(gearboxConditions, { error: t('validation.required') }),
  rack: rack(),
  level: level(),
  addedOn: pastDate(),
  comment: comment(),
  outOn: pastDate(),
  outReason: required().max(300, t('validation.maxLength', { max: 300 })),
});

/** Adding one or several identical gearboxes to a rack and level. */
export const addStockSchema = stockItemSchema
  .pick({ gearboxModelId: true, code: true, condition: true, rack: true, level: true, addedOn: true, comment: true })
  .extend({
    quantity: z.preprocess(
      (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : Number(v.trim())) : v),
      z
        .number({ error: (issue) => (issue.input === undefined ? t('validation.required') : t('validation.number')) })
        .int(t('validation.integer'))
        .refine((n) => n >= 1 && n <= MAX_QUANTITY, t('stock.quantityRange', { max: MAX_QUANTITY })),
    ),
  });
export type AddStockInput = z.infer<typeof addStockSchema>;

export const moveStockSchema = stockItemSchema.pick({ rack: true, level: true });
export const conditionStockSchema = stockItemSchema.pick({ condition: true });
export const removeStockSchema = stockItemSchema.pick({ outOn: true, outReason: true });

/** "A-3": rack and level as painted on the shelves. */
export const placeOf = (item: { rack: string; level: number }) => `${item.rack}-${item.level}`;
