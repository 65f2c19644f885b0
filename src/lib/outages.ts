// Outages of a gearbox model (SPEC §3): component and outage type picked from the base.
import { z } from 'zod';
import { formatNumber } from './format.ts';
import { option, optionalRecordId, recordId, recordPageFields, recordPageValues } from './page-query.ts';
import { t } from './i18n.ts';
import { required } from './validation.ts';

export type Outage = {
  id: string;
  component: { id: string; name: string };
  outageType: { id: string; name: string };
  description: string;
  occurrenceRate: number | null;
  averageMileage: number | null;
  /** From the orders: validated diagnostics that retained it, and their average mileage. */
  orderCount?: number;
  ordersAverageMileage?: number | null;
};
/** "Mécatronique — Usure": how the workshop names an outage. */
export const outageLabel = (o: { component: { name: string }; outageType: { name: string } }) => `${o.component.name} — ${o.outageType.name}`;

export const OUTAGE_STATS_SELECTION = 'occurrenceRate averageMileage orderCount ordersAverageMileage';

/**
 * SPEC §3: the rate as "n % (n / total OR)" counted from the model's orders; before any order
 * retained it, the dossier's own estimate, said to be one.
 */
export function outageRate(outage: Outage, totalOrders: number): string {
  if (outage.orderCount && totalOrders) return `${formatNumber((100 * outage.orderCount) / totalOrders, { maximumFractionDigits: 0 })} % (${outage.orderCount} / ${totalOrders} OR)`;
  return outage.occurrenceRate === null ? '—' : `${formatNumber(outage.occurrenceRate)} % (${t('gearboxes.estimate')})`;
}

export function outageMileage(outage: Outage): string {
  if (outage.orderCount && outage.ordersAverageMileage != null) return `${formatNumber(outage.ordersAverageMileage)} km`;
  return outage.averageMileage === null ? '—' : `${formatNumber(outage.averageMileage)} km (${t('gearboxes.estimate')})`;
}

const optionalInt = (min: number, max: number) =>
  z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? undefined : typeof v === 'string' ? Number(v.replace(/\s/g, '').replace(',', '.')) : v),
    z
      .number({ error: t('validation.number') })
      .refine(Number.isFinite, t('validation.number'))
      .refine(Number.isInteger, t('validation.integer'))
      .refine((n) => n >= min, t('validation.min', { min }))
      .refine((n) => n <= max, t('validation.number'))
      .optional(),
  );

/** One schema for the outage form and the API; the names are resolved against the base. */
/** `/gearbox/{uuid}/outage/{uuid}` (or the creation form without the outage): path and query. */
export const outagePageSchema = z
  .object({ gearboxUuid: recordId(), outageUuid: optionalRecordId(), onglet: option(['general', 'procedures'] as const, 'general'), ...recordPageFields })
  .transform((q) => ({ gearboxId: q.gearboxUuid, outageId: q.outageUuid, tab: q.outageUuid ? q.onglet : 'general', ...recordPageValues(q) }));

export const outageSchema = z.object({
  component: required().max(120, t('validation.required')),
  outageType: required().max(120, t('validation.required')),
  description: z.string().trim().max(2000).optional().default(''),
  occurrenceRate: optionalInt(0, 100),
  averageMileage: optionalInt(0, 2_000_000),
  /** Add a component or outage type missing from the base (admins and diagnosticians). */
  addMissing: z.preprocess((v) => v === true || v === 'on' || v === 'true', z.boolean()).optional().default(false),
});
export type OutageInput = z.infer<typeof outageSchema>;
