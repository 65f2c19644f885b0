// What the services record (decision 034): the readable label of each kind of thing, the
// fields a person recognises, and the order or dossier it belongs to. Kept here so that each
// service gains one `record(...)` call per write and nothing else.
import { eq, inArray } from 'drizzle-orm';
import { t } from '#lib/i18n.ts';
import { formatDate, formatNumber, labelOf } from '#lib/format.ts';
import { fr } from '#lib/i18n/fr.ts';
import { roleLabels, isRole } from '#lib/roles.ts';
import type { Db } from '#server/db/client.ts';
import { alias } from 'drizzle-orm/pg-core';
import { baseItems, errorCodes, files, gearboxModels, outages, repairOrders, repairProcedures, users } from '#server/db/schema/index.ts';
import type { AuditChange } from '#lib/audit/audit.ts';
import { changesOf, type AuditRef, type Field } from './record.ts';

type Executor = Pick<Db, 'select'>;
const f = (key: keyof typeof fr.audit.fields) => t(`audit.fields.${key}`);

export const orderRef = (order: { id: string; number: string }): AuditRef => ({ kind: 'repair_order', id: order.id, label: order.number });
export const gearboxModelRef = (model: { id: string; model: string }): AuditRef => ({ kind: 'gearbox_model', id: model.id, label: model.model });
export const userRef = (user: { id: string; displayName: string; email: string | null }): AuditRef => ({
  kind: 'user',
  id: user.id,
  label: user.displayName ? `${user.displayName} <${user.email ?? ''}>` : (user.email ?? ''),
});

/** The gearbox model an id names, as it is now (inside the caller's transaction). */
export async function gearboxModelRefOf(tx: Executor, modelId: string): Promise<AuditRef> {
  const [m] = await tx.select({ id: gearboxModels.id, model: gearboxModels.model }).from(gearboxModels).where(eq(gearboxModels.id, modelId));
  return gearboxModelRef(m ?? { id: modelId, model: '' });
}

type OrderRow = {
  number: string;
  openedOn: string;
  interventionCategory: string;
  modelId: string;
  gearboxCode: string;
  referentId: string | null;
  vehicleBrand: string;
  vehicleModel: string;
  energy: string | null;
  engineSize: string | null;
  mileage: string | null;
  constructionYear: number | null;
  comment: string;
  interventions: string[];
  outageParts: string[];
};
type History = { mileage: number; intervention: string }[];

const orderFields: Field<OrderRow>[] = [
  [f('number'), (o) => o.number],
  [f('openedOn'), (o) => formatDate(o.openedOn)],
  [f('category'), (o) => labelOf(fr.labels.interventionCategory, o.interventionCategory)],
  [f('model'), (o) => o.modelId],
  [f('gearboxCode'), (o) => o.gearboxCode],
  [f('referent'), (o) => o.referentId],
  [f('vehicleBrand'), (o) => o.vehicleBrand],
  [f('vehicleModel'), (o) => o.vehicleModel],
  [f('energy'), (o) => o.energy && labelOf(fr.labels.energy, o.energy)],
  [f('engineSize'), (o) => o.engineSize && labelOf(fr.labels.engineSize, o.engineSize)],
  [f('mileage'), (o) => o.mileage && labelOf(fr.labels.mileageBand, o.mileage)],
  [f('constructionYear'), (o) => (o.constructionYear === null ? '' : String(o.constructionYear))],
  [f('comment'), (o) => o.comment],
  [f('interventions'), (o) => o.interventions],
  [f('outageParts'), (o) => o.outageParts],
];

/** An order's fields that changed; the model and the referent by their names, not their ids. */
export async function orderChanges(tx: Executor, before: (OrderRow & { history?: History }) | null, after: OrderRow & { history?: History }) {
  const changes = changesOf(before, after, orderFields);
  const ids = [...new Set(changes.flatMap((c) => (c.field === f('model') || c.field === f('referent') ? [c.before, c.after] : [])).filter(Boolean))];
  if (ids.length) {
    const models = await tx.select({ id: gearboxModels.id, name: gearboxModels.model }).from(gearboxModels).where(inArray(gearboxModels.id, ids));
    const people = await tx.select({ id: users.id, name: users.displayName }).from(users).where(inArray(users.id, ids));
    const names = new Map([...models, ...people].map((r) => [r.id, r.name]));
    for (const c of changes) {
      c.before = names.get(c.before) ?? c.before;
      c.after = names.get(c.after) ?? c.after;
    }
  }
  const history = (h?: History) => (h ?? []).map((e) => `${formatNumber(e.mileage)} km : ${e.intervention}`).join(', ');
  if (after.history && history(before?.history) !== history(after.history)) {
    changes.push({ field: f('history'), before: history(before?.history), after: history(after.history) });
  }
  return changes;
}

/** A user's fields as the users screen shows them; never the password nor any secret. */
export function userChanges(
  before: { displayName: string; email: string | null; defaultRole: string; disabled: boolean } | null,
  after: { displayName: string; email: string | null; defaultRole: string; disabled: boolean },
): AuditChange[] {
  return changesOf(before, after, [
    [f('name'), (u) => u.displayName],
    [f('email'), (u) => u.email],
    [f('role'), (u) => (isRole(u.defaultRole) ? roleLabels[u.defaultRole] : u.defaultRole)],
    [f('disabled'), (u) => u.disabled],
  ]);
}

export { f as fieldLabel };

/** The order an id names, by its number (inside the caller's transaction). */
export async function orderOf(tx: Executor, orderId: string): Promise<AuditRef> {
  const [o] = await tx.select({ id: repairOrders.id, number: repairOrders.number }).from(repairOrders).where(eq(repairOrders.id, orderId));
  return orderRef(o ?? { id: orderId, number: '' });
}

/** A stored file's name, for the event of its link or its removal. */
export async function fileNameOf(tx: Executor, fileId: string): Promise<string> {
  const [file] = await tx.select({ name: files.name }).from(files).where(eq(files.id, fileId));
  return file?.name ?? '';
}

type MeasureRow = {
  name: string;
  description: string;
  unit: string;
  minimum: number | null;
  maximum: number | null;
  measuredValue?: number | null;
  checkResult?: string | null;
  comment?: string;
};
export const measureFields: Field<MeasureRow>[] = [
  [f('name'), (m) => m.name],
  [f('description'), (m) => m.description],
  [t('measures.unit'), (m) => m.unit],
  [t('measures.minimum'), (m) => m.minimum],
  [t('measures.maximum'), (m) => m.maximum],
  [f('measuredValue'), (m) => m.measuredValue],
  [f('result'), (m) => m.checkResult && labelOf(fr.orderMeasures.results, m.checkResult)],
  [f('comment'), (m) => m.comment],
];

type Conditions = {
  temporality: string | null;
  acceleratorLoad: string;
  bvaMode: string;
  gear: string;
  action: string;
  otherCondition: string;
  comment: string;
};
/** The appearance conditions of a symptom or a fault code read on an order. */
export const conditionFields: Field<Conditions>[] = [
  [t('conditions.temporality'), (c) => c.temporality && labelOf(fr.labels.temporality, c.temporality)],
  [t('conditions.acceleratorLoad'), (c) => c.acceleratorLoad],
  [t('conditions.bvaMode'), (c) => c.bvaMode],
  [t('conditions.gear'), (c) => c.gear],
  [t('conditions.action'), (c) => c.action],
  [t('conditions.otherCondition'), (c) => c.otherCondition],
  [t('conditions.comment'), (c) => c.comment],
];

/** A base item's name (a symptom), for the label of what uses it. */
export async function baseNameOf(tx: Executor, id: string): Promise<string> {
  const [item] = await tx.select({ name: baseItems.name }).from(baseItems).where(eq(baseItems.id, id));
  return item?.name ?? '';
}

/** An error code's text, for the label of a fault code read on an order. */
export async function errorCodeOf(tx: Executor, id: string): Promise<string> {
  const [code] = await tx.select({ code: errorCodes.code }).from(errorCodes).where(eq(errorCodes.id, id));
  return code?.code ?? '';
}

/** Outages by their component and type, as the dossier lists them. */
export async function outageLabels(tx: Executor, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const component = alias(baseItems, 'component');
  const kind = alias(baseItems, 'kind');
  const rows = await tx
    .select({ id: outages.id, component: component.name, kind: kind.name })
    .from(outages)
    .innerJoin(component, eq(component.id, outages.componentId))
    .innerJoin(kind, eq(kind.id, outages.outageTypeId))
    .where(inArray(outages.id, ids));
  const names = new Map(rows.map((r) => [r.id, `${r.component} — ${r.kind}`]));
  return ids.map((id) => names.get(id) ?? '');
}

/** Procedures by their names, in the order given. */
export async function procedureNames(tx: Executor, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await tx.select({ id: repairProcedures.id, name: repairProcedures.name }).from(repairProcedures).where(inArray(repairProcedures.id, ids));
  const names = new Map(rows.map((r) => [r.id, r.name]));
  return ids.map((id) => names.get(id) ?? '');
}

type ModelRow = {
  model: string;
  bvaId: string;
  type: string;
  constructorName: string;
  doctorCode: string;
  businessName: string;
  parentId: string | null;
  startYear: number;
  endYear: number | null;
  gears: number | null;
  arrangement: string;
  propulsion: string;
  optionalPropulsion: string;
};
const year = (v: number | null) => (v === null ? '' : String(v));
export const modelFields: Field<ModelRow>[] = [
  [t('gearboxes.model'), (m) => m.model],
  [t('gearboxes.bvaId'), (m) => m.bvaId],
  [f('type'), (m) => labelOf(fr.labels.gearboxType, m.type)],
  [t('gearboxes.constructorName'), (m) => m.constructorName],
  [t('gearboxes.doctorCode'), (m) => m.doctorCode],
  [t('gearboxes.businessName'), (m) => m.businessName],
  [t('gearboxes.parent'), (m) => m.parentId],
  [t('gearboxes.startYear'), (m) => year(m.startYear)],
  [t('gearboxes.endYear'), (m) => year(m.endYear)],
  [t('gearboxes.gears'), (m) => m.gears],
  [t('gearboxes.arrangement'), (m) => m.arrangement],
  [t('gearboxes.propulsion'), (m) => m.propulsion],
  [t('gearboxes.optionalPropulsion'), (m) => m.optionalPropulsion],
];

/** A model's changes, its parent by name. */
export async function modelChanges(tx: Executor, before: ModelRow | null, after: ModelRow) {
  const changes = changesOf(before, after, modelFields);
  const parent = changes.find((c) => c.field === t('gearboxes.parent'));
  if (parent) {
    const ids = [parent.before, parent.after].filter(Boolean);
    const rows = ids.length
      ? await tx.select({ id: gearboxModels.id, model: gearboxModels.model }).from(gearboxModels).where(inArray(gearboxModels.id, ids))
      : [];
    const names = new Map(rows.map((r) => [r.id, r.model]));
    parent.before = names.get(parent.before) ?? parent.before;
    parent.after = names.get(parent.after) ?? parent.after;
  }
  return changes;
}

type OutageRow = { componentId: string; outageTypeId: string; description: string; occurrenceRate: number | null; averageMileage: number | null };
/** An outage's label (component — type) and its changes, names from the base. */
export async function outageEvent(tx: Executor, id: string, before: OutageRow | null, after: OutageRow) {
  const name = async (o: OutageRow) => `${await baseNameOf(tx, o.componentId)} — ${await baseNameOf(tx, o.outageTypeId)}`;
  const label = await name(after);
  const changes = changesOf(before, after, [
    [f('description'), (o) => o.description],
    [t('gearboxes.occurrenceRate'), (o) => o.occurrenceRate],
    [t('gearboxes.averageMileage'), (o) => o.averageMileage],
  ]);
  const old = before ? await name(before) : '';
  if (old !== label) changes.unshift({ field: f('name'), before: old, after: label });
  return { entity: { kind: 'outage' as const, id, label }, changes };
}
