// Outages of a gearbox model (SPEC §3): component and outage type picked from the base.
import { z } from 'zod';
import { formatNumber } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import { optionalText, required } from '#lib/validation.ts';

export type Outage = {
  id: string;
  component: { id: string; name: string };
  outageType: { id: string; name: string };
  description: string;
  occurrenceRate: number | null;
  averageMileage: number | null;
  /** From the history (the model's closed orders): those that retained it, and their average mileage. */
  orderCount?: number;
  ordersAverageMileage?: number | null;
};
/** "Mécatronique — Usure": how the workshop names an outage. */
export const outageLabel = (o: { component: { name: string }; outageType: { name: string } }) => `${o.component.name} — ${o.outageType.name}`;

// The dossier's figures (SPEC §3, decision 018), one definition each, for the dossier, the outage
// page, the order's technical information and the diagnostic's ranking. The history is the model's
// closed orders (`orderCount` of the model); a rate is how many of them, out of all of them.

/** k of the history's N as a whole percent; null while the model has no history. */
export const historyRate = (count: number, history: number): number | null => (history > 0 ? Math.round((100 * count) / history) : null);

/** "43 % (3 / 7 OR)"; "— (0 / 0 OR)" without history. */
export function historyRateText(count: number, history: number): string {
  const rate = historyRate(count, history);
  return `${rate === null ? '—' : `${formatNumber(rate)} %`} (${count} / ${history} OR)`;
}

/** An outage's rate: from the history once the model has one (0 % included), else the dossier's estimate. */
export const outageRateValue = (outage: Outage, history: number): number | null => historyRate(outage.orderCount ?? 0, history) ?? outage.occurrenceRate;

export function outageRate(outage: Outage, history: number): string {
  if (history > 0) return historyRateText(outage.orderCount ?? 0, history);
  return outage.occurrenceRate === null ? '—' : `${formatNumber(outage.occurrenceRate)} % (${t('gearboxes.estimate')})`;
}

/** The average mileage of the closed orders that retained it; until one did, the dossier's estimate. */
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
      // A number out of range says its range, not that it is no number (walk31 F10: a rate of 150 %).
      .refine((n) => n >= min && n <= max, t('validation.between', { min: formatNumber(min), max: formatNumber(max) }))
      .optional(),
  );

/** One schema for the outage form and the API; the names are resolved against the base. */
export const outageSchema = z.object({
  component: required().max(120, t('validation.maxLength', { max: 120 })),
  outageType: required().max(120, t('validation.maxLength', { max: 120 })),
  description: optionalText(2000),
  occurrenceRate: optionalInt(0, 100),
  averageMileage: optionalInt(0, 2_000_000),
  /** Add a component or outage type missing from the base (admins and diagnosticians). */
  addMissing: z
    .preprocess((v) => v === true || v === 'on' || v === 'true', z.boolean())
    .optional()
    .default(false),
});
export type OutageInput = z.infer<typeof outageSchema>;
