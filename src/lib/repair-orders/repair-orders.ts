// Repair orders (SPEC §2.7, §3, §4): enumerations and labels, the list's URL, and one schema
// per form, shared by the pages and the API.
import { z } from 'zod';
import { gearboxTypes, type GearboxType } from '#lib/gearboxes/gearboxes.ts';
import { workshopToday } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import { can } from '#lib/permissions.ts';
import type { Role } from '#lib/roles.ts';
import { maxItems, optionalText, pastDate, required } from '#lib/validation.ts';
import { fr } from '#lib/i18n/fr.ts';

export const orderStatuses = ['IN_PROGRESS', 'CLOSED'] as const;
export type OrderStatus = (typeof orderStatuses)[number];
export const orderStatusLabels: Record<OrderStatus, string> = fr.labels.orderStatus;

export const interventionCategories = ['mechatronics_only', 'complete_car', 'gearbox_only'] as const;
export type InterventionCategory = (typeof interventionCategories)[number];
export const interventionCategoryLabels: Record<InterventionCategory, string> = fr.labels.interventionCategory;

export const energies = ['diesel', 'petrol', 'hybrid', 'electric'] as const;
export type Energy = (typeof energies)[number];
export const energyLabels: Record<Energy, string> = fr.labels.energy;

export const engineSizes = ['0.6L_to_1.6L', '1.8L_to_2.5L', '2.5L_to_7.0L', 'above_7.0L'] as const;
export type EngineSize = (typeof engineSizes)[number];
export const engineSizeLabels: Record<EngineSize, string> = fr.labels.engineSize;

export const mileageBands = ['0_to_50000', '50000_to_100000', '100000_to_150000', '150000_to_200000', 'above_200000'] as const;
export type MileageBand = (typeof mileageBands)[number];
export const mileageBandLabels: Record<MileageBand, string> = fr.labels.mileageBand;

export { gearboxTypes, type GearboxType };
export const ORDERS_PAGE_SIZE = 20;

export type InterventionHistoryEntry = { mileage: number; intervention: string };

export const orderSorts = ['numero', 'date', 'categorie', 'type', 'constructeur', 'modele', 'statut'] as const;
export type OrderSort = (typeof orderSorts)[number];

export type OrdersQuery = {
  search: string;
  from: string | null;
  to: string | null;
  category: InterventionCategory | null;
  type: GearboxType | null;
  modelId: string | null;
  sort: OrderSort;
  descending: boolean;
  page: number;
} & OverviewOrderFilters;

/** The overview's filters of the list (issue 32, decision 089): each figure's orders, as the list shows them. */
export type OverviewOrderFilters = {
  status?: OrderStatus | null;
  /** A referent's id, or 'aucun' for the orders without one. */
  referent?: string | null;
  closedFrom?: string | null;
  closedTo?: string | null;
  /** Days of the workshop a reopening fell on (its instant read in the workshop's zone). */
  reopenedFrom?: string | null;
  reopenedTo?: string | null;
  /** An outage the orders retained (the overview's outage figures). */
  outageId?: string | null;
};

/**
 * The tabs of an order (SPEC §2.7), on its creation screen too: there, only the general data is
 * open until the order exists. The diagnostic has its own page, for those who diagnose.
 */
export function orderTabList(orderId: string | null, role: Role | undefined) {
  const self = orderId ? `/repair-order/${orderId}` : '/repair-order';
  return [
    { id: 'general', label: t('repairOrders.general'), href: self },
    { id: 'codes-defaut', label: t('repairOrders.faultCodes'), href: `${self}?onglet=codes-defaut` },
    ...(can(role, 'manageOrders') ? [{ id: 'diagnostic', label: t('diagnostic.title'), href: `${self}/diagnostic` }] : []),
    { id: 'historique', label: t('repairOrders.history'), href: `${self}?onglet=historique` },
    { id: 'informations-techniques', label: t('repairOrders.technical'), href: `${self}?onglet=informations-techniques` },
    { id: 'procedure', label: t('repairOrders.procedureTab'), href: `${self}?onglet=procedure` },
    { id: 'rapport', label: t('orderProcedure.report'), href: `${self}?onglet=rapport` },
    // Decision 034: who changed what on the order, on its own page.
    { id: 'activite', label: t('audit.tab'), href: `${self}/activity` },
  ].map((tab) => ({ ...tab, disabled: !orderId && tab.id !== 'general' }));
}

export function ordersHref(query: Partial<OrdersQuery>): string {
  const params = new URLSearchParams();
  if (query.search?.trim()) params.set('recherche', query.search.trim());
  if (query.from) params.set('du', query.from);
  if (query.to) params.set('au', query.to);
  if (query.category) params.set('categorie', query.category);
  if (query.type) params.set('type', query.type);
  if (query.modelId) params.set('modele', query.modelId);
  if (query.status) params.set('statut', query.status);
  if (query.referent) params.set('referent', query.referent);
  if (query.closedFrom) params.set('cloture_du', query.closedFrom);
  if (query.closedTo) params.set('cloture_au', query.closedTo);
  if (query.reopenedFrom) params.set('reouverture_du', query.reopenedFrom);
  if (query.reopenedTo) params.set('reouverture_au', query.reopenedTo);
  if (query.outageId) params.set('panne', query.outageId);
  if (query.sort && query.sort !== 'date') params.set('tri', query.sort);
  if (query.sort && query.descending !== undefined && query.descending !== (query.sort === 'date')) params.set('ordre', query.descending ? 'desc' : 'asc');
  if (query.page && query.page > 1) params.set('page', String(query.page));
  const text = params.toString();
  return text ? `/repair-orders?${text}` : '/repair-orders';
}

const optionalEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(values, { error: t('validation.required') }).optional());
/** A line of a list typed one per line: its own length is told with its line number (walk14 F4). */
const LINE_MAX = 300;
const lines = (max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.split(/\r?\n/) : v),
    z
      .array(z.string().trim())
      .superRefine((list, ctx) => {
        const long = list.findIndex((line) => line.length > LINE_MAX);
        if (long >= 0) ctx.addIssue({ code: 'custom', message: t('validation.lineTooLong', { line: long + 1, max: LINE_MAX }) });
      })
      .transform((list) => list.filter(Boolean))
      .refine((list) => list.length <= max, t('validation.maxLines', { max })),
  );
const nonNegativeInt = () =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : /^-?\d[\d\s]*$/.test(v.trim()) ? Number(v.replace(/\s/g, '')) : Number.NaN) : v),
    z
      .number({ error: (issue) => (issue.input === undefined ? t('validation.required') : t('validation.number')) })
      .refine((n) => Number.isInteger(n) && n >= 0 && n <= 3_000_000, t('validation.number')),
  );

export const historyEntrySchema = z.object({ mileage: nonNegativeInt(), intervention: required().max(300, t('validation.maxLength', { max: 300 })) });

/** The order's comment, at most: the form's `maxlength` and the schema's bound. */
export const COMMENT_MAX = 2000;

/** One schema for the creation form, the general data tab and the API. */
export const repairOrderSchema = z.object({
  number: required()
    .max(40, t('validation.maxLength', { max: 40 }))
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ./_-]*$/, t('repairOrders.invalidNumber'))
    .transform((v) => v.toUpperCase()),
  openedOn: pastDate(),
  interventionCategory: z.enum(interventionCategories, { error: t('validation.required') }),
  gearboxModelId: z.uuid({ error: t('validation.required') }),
  gearboxCode: optionalText(40),
  referentId: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.uuid({ error: t('validation.required') }).optional()),
  vehicleBrand: optionalText(60),
  vehicleModel: optionalText(60),
  energy: optionalEnum(energies),
  engineSize: optionalEnum(engineSizes),
  mileage: optionalEnum(mileageBands),
  constructionYear: z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? undefined : typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : v),
    z
      .string()
      .regex(/^\d{4}$/, t('validation.year'))
      .transform(Number)
      .refine((y) => y >= 1950 && y <= Number(workshopToday().slice(0, 4)) + 1, t('validation.year'))
      .optional(),
  ),
  comment: optionalText(COMMENT_MAX),
  interventions: lines(30),
  outageParts: lines(30),
  history: z.array(historyEntrySchema).max(30, maxItems(30)).optional().default([]),
});
export type RepairOrderInput = z.infer<typeof repairOrderSchema>;

export const ORDER_FIELDS = [
  'number',
  'openedOn',
  'interventionCategory',
  'gearboxModelId',
  'gearboxCode',
  'referentId',
  'vehicleBrand',
  'vehicleModel',
  'energy',
  'engineSize',
  'mileage',
  'constructionYear',
  'comment',
  'interventions',
  'outageParts',
] as const;

/** What the order form posted, as typed, history rows included (blank rows dropped). */
export function readOrderForm(form: FormData): { values: Record<string, string>; history: { mileage: string; intervention: string }[] } {
  const values = Object.fromEntries(
    ORDER_FIELDS.map((k) => [k, String(form.get(k) ?? '').slice(0, k === 'comment' || k === 'interventions' || k === 'outageParts' ? 4000 : 200)]),
  );
  const mileages = form.getAll('historyMileage').map(String);
  const interventions = form.getAll('historyIntervention').map(String);
  const history = mileages
    .map((mileage, i) => ({ mileage: mileage.slice(0, 20), intervention: (interventions[i] ?? '').slice(0, 400) }))
    .filter((h) => h.mileage.trim() || h.intervention.trim());
  return { values, history };
}

/** Checks a posted form; errors keyed by field, history rows as `history.{i}.mileage`. */
export function checkOrderForm(posted: ReturnType<typeof readOrderForm>): { input?: RepairOrderInput; errors: Record<string, string> } {
  const parsed = repairOrderSchema.safeParse({ ...posted.values, history: posted.history });
  if (parsed.success) return { input: parsed.data, errors: {} };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) errors[issue.path.join('.')] ??= issue.message;
  return { errors };
}
