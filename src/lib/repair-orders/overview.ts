// The workshop at a glance (issue 32, decision 089): its period, its age buckets and the list
// address each figure links to, shared by the service that counts and the page that shows.
import { addDays, formatDate, workshopToday, zonedInstant } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import type { InterventionCategory, OrdersQuery } from './repair-orders.ts';
import { ordersHref } from './repair-orders.ts';

/** Days of the workshop, both included (`YYYY-MM-DD`). */
export type OverviewPeriod = { from: string; to: string };

/** `iso` moved by `months` months, the day kept where the month has it (31 March − 1 month = 28 or 29 February). */
function addMonths(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, last))).toISOString().slice(0, 10);
}

/** The Monday of a day's ISO week. */
export const mondayOf = (iso: string) => addDays(iso, -((new Date(`${iso}T00:00:00Z`).getUTCDay() + 6) % 7));

/** The last `n` ISO weeks to `end`, this one included: whole weeks, so the chart draws no partial week at its start. */
const lastWeeks = (end: string, n: number) => addDays(mondayOf(end), -7 * (n - 1));

/** The presets, each ending today: 4 weeks, 12 weeks (the default) from a Monday, 3 months, 12 months. */
export const overviewPresets = [
  { id: '4w', label: () => t('overview.preset4w'), from: (today: string) => lastWeeks(today, 4) },
  { id: '12w', label: () => t('overview.preset12w'), from: (today: string) => lastWeeks(today, 12) },
  { id: '3m', label: () => t('overview.preset3m'), from: (today: string) => addDays(addMonths(today, -3), 1) },
  { id: '12m', label: () => t('overview.preset12m'), from: (today: string) => addDays(addMonths(today, -12), 1) },
] as const;

/** The longest period the overview counts, in months: a week a row, so a century asked would draw 5,000 of them. */
export const OVERVIEW_MAX_MONTHS = 36;

/** Whether a period is longer than the overview counts (a period given backwards is not). */
export const overviewTooLong = (period: OverviewPeriod) => period.to > addMonths(period.from, OVERVIEW_MAX_MONTHS);

/** Why an asked period is not the one shown: longer than 3 years, or starting after today (nothing to count yet). */
export type IgnoredPeriod = OverviewPeriod & { why: 'tooLong' | 'future' };

/**
 * The period the URL asks, the default (the 12 ISO weeks to today) for what it leaves out. An end after
 * today is taken as today (`capped`: the end asked, for the page to say so): the days after have nothing
 * yet, and a manager asking «this year» expects this year's figures. A period longer than 3 years, or
 * starting after today, is ignored (`ignored`, for the page to say so) and the default shown.
 */
export function overviewPeriod(
  from: string | null,
  to: string | null,
  today: string = workshopToday(),
): OverviewPeriod & { ignored: IgnoredPeriod | null; capped: string | null } {
  const fallback = { from: lastWeeks(today, 12), to: today, capped: null };
  const end = to && to < today ? to : today;
  const asked = { from: from ?? lastWeeks(end, 12), to: end };
  if (from && from > today) return { ...fallback, ignored: { from, to: to ?? from, why: 'future' } };
  if (overviewTooLong(asked)) return { ...fallback, ignored: { from: asked.from, to: to ?? end, why: 'tooLong' } };
  return { ...asked, ignored: null, capped: to && to > today ? to : null };
}

/** A week of the overview, named by its ISO number and its first day inside the period, year included: a 12-month period has two «S48». */
export const weekLabel = (monday: string, period: OverviewPeriod) =>
  t('overview.weekLabel', { week: isoWeek(monday), day: formatDate(weekInPeriod(monday, period).from) });

export const overviewHref = (period: OverviewPeriod) => `/overview?du=${period.from}&au=${period.to}`;

/** The open orders' ages in days on the workshop's day: from `minDays` to the next bucket's, excluded. */
export const ageBuckets = [
  { id: 'under7', minDays: 0 },
  { id: 'under30', minDays: 7 },
  { id: 'under90', minDays: 30 },
  { id: 'over90', minDays: 90 },
] as const;
export type AgeBucket = (typeof ageBuckets)[number]['id'];

/** The open orders of an age bucket, as the list finds them: opened between two days. */
export function ageHref(bucket: AgeBucket, today: string): string {
  const index = ageBuckets.findIndex((b) => b.id === bucket);
  const next = ageBuckets[index + 1];
  return ordersHref({ status: 'IN_PROGRESS', from: next ? addDays(today, 1 - next.minDays) : null, to: addDays(today, -ageBuckets[index]!.minDays) });
}

/** The instants a period's reopenings fall between: its first day's midnight in the workshop's zone, to the day after its last. */
export function reopenedBounds(from: string, to: string): { from: Date; until: Date } {
  return { from: zonedInstant(from)!, until: zonedInstant(addDays(to, 1))! };
}

/** The days of an ISO week (its Monday) inside the period. */
export function weekInPeriod(monday: string, period: OverviewPeriod): OverviewPeriod {
  // ISO days compare as text.
  const [from, to] = [[monday, period.from].sort()[1]!, [addDays(monday, 6), period.to].sort()[0]!];
  return { from, to };
}

/** The ISO week number of a Monday ("S37"). */
export function isoWeek(monday: string): number {
  const thursday = new Date(`${addDays(monday, 3)}T00:00:00Z`);
  const firstDay = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  return Math.floor((thursday.getTime() - firstDay) / 86_400_000 / 7) + 1;
}

type Filter = Partial<OrdersQuery>;
/** The list address of each figure: the orders it counts. */
export const overviewLinks = {
  status: (status: OrdersQuery['status']) => ordersHref({ status }),
  referentOpen: (referent: string | null) => ordersHref({ status: 'IN_PROGRESS', referent: referent ?? 'aucun' }),
  referentOpened: (referent: string | null, period: OverviewPeriod) => ordersHref({ referent: referent ?? 'aucun', from: period.from, to: period.to }),
  openedIn: (period: OverviewPeriod) => ordersHref({ from: period.from, to: period.to }),
  closedIn: (period: OverviewPeriod, category?: InterventionCategory) =>
    ordersHref({ closedFrom: period.from, closedTo: period.to, category: category ?? null } satisfies Filter),
  reopenedIn: (period: OverviewPeriod) => ordersHref({ reopenedFrom: period.from, reopenedTo: period.to }),
  /** The model's closed orders that retained the outage: the dossier's k. */
  outage: (modelId: string, outageId: string) => ordersHref({ status: 'CLOSED', modelId, outageId }),
};
