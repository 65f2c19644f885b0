// Repair orders: the list (search by number, gearbox code or model; filters; sort; pages) and
// the order's own writes. The gearbox model is locked once the diagnostic has begun.
import { and, asc, desc, eq, gte, ilike, inArray, isNull, lte, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import type { GearboxType } from '#lib/gearboxes/gearboxes.ts';
import type { InterventionCategory, OrderSort, OverviewOrderFilters, RepairOrderInput } from '#lib/repair-orders/repair-orders.ts';
import { addDays, zonedInstant } from '#lib/format.ts';
import { escapeLike } from '#lib/search.ts';
import { isListDay } from '#lib/page-query.ts';
import { prepared } from '#server/db/prepared.ts';
import { queryRows, type Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { gearboxModels, interventionHistory, orderFiles, repairOrderCounts, repairOrders, users } from '#server/db/schema/index.ts';
import type { FileStore } from '#server/storage/store.ts';
import { dropStoredRows, linkedFileIds, removeStoredFiles } from './order-files.ts';
import { shownModel } from './closed-names.ts';
import { CLOSED } from './open-order.ts';
import { versionOf } from './versions.ts';
import { DomainError, conflict, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { record } from '#server/audit/record.ts';
import { orderChanges, orderRef } from '#server/audit/refs.ts';

export type RepairOrdersService = ReturnType<typeof createRepairOrdersService>;
export type OrderFilter = {
  search?: string;
  from?: string | null;
  to?: string | null;
  category?: InterventionCategory | null;
  type?: GearboxType | null;
  modelId?: string | null;
} & OverviewOrderFilters;
/** Whether the filter names one of the overview's filters: the models' counts do not say those. */
const overviewFiltered = (f: OrderFilter) => !!(f.status || f.referent || f.closedFrom || f.closedTo || f.reopenedFrom || f.reopenedTo || f.outageId);
/** The filter, the sort and the page of the list. */
type ListFilter = OrderFilter & { sort: OrderSort; descending: boolean; limit: number; offset: number };

const listSelection = {
  id: repairOrders.id,
  number: repairOrders.number,
  openedOn: repairOrders.openedOn,
  status: repairOrders.status,
  interventionCategory: repairOrders.interventionCategory,
  gearboxCode: repairOrders.gearboxCode,
  closedOn: repairOrders.closedOn,
  diagnosticStep: repairOrders.diagnosticStep,
  validatedAt: repairOrders.validatedAt,
  // A closed order shows its model as it was named when it closed (decision 045).
  model: { id: gearboxModels.id, model: shownModel(gearboxModels).model, type: gearboxModels.type, constructorName: shownModel(gearboxModels).constructorName },
};

const sortColumns: Record<OrderSort, SQL | typeof repairOrders.number> = {
  numero: repairOrders.number,
  date: sql`${repairOrders.openedOn}`,
  categorie: sql`${repairOrders.interventionCategory}`,
  type: sql`${gearboxModels.type}`,
  constructeur: shownModel(gearboxModels).constructorName,
  modele: shownModel(gearboxModels).model,
  statut: sql`${repairOrders.status}`,
};

/** The diagnostic recorded on the order's row itself. */
const isStarted = (row: { canReadFaultCodes: boolean | null; measuresDone: boolean | null; diagnosticStep: number }) =>
  row.canReadFaultCodes !== null || row.measuresDone !== null || row.diagnosticStep > 0;
/** Whether an order (by its id, a value or a column) has a symptom, a curve or an imported file. */
const evidenceOf = (id: SQL | typeof repairOrders.id) =>
  sql`(exists (select 1 from order_symptoms where repair_order_id = ${id}) or exists (select 1 from order_curves where repair_order_id = ${id}) or exists (select 1 from order_files where repair_order_id = ${id}))`;
type HistoryRow = typeof interventionHistory.$inferSelect;

/** The search as the list runs it: its LIKE pattern and the ids of the models it names. */
type Search = { pattern: string; modelIds: string[] };
const textMatches = (pattern: string) => or(sql`upper(${repairOrders.number}) like ${pattern}`, sql`upper(${repairOrders.gearboxCode}) like ${pattern}`);

const numberTaken = (error: unknown): never => {
  if (pgCode(error) === '23505') throw invalid({ 'object.number': t('errors.orNumberTaken') });
  if (pgCode(error) === '23503') throw invalid({ 'object.gearboxModelId': t('stock.unknownModel') });
  throw error;
};

/** The filter as the list reads it: a search cut at 80 characters, days that exist. */
function checkedFilter<F extends OrderFilter>(filter: F): F {
  for (const key of ['from', 'to', 'closedFrom', 'closedTo', 'reopenedFrom', 'reopenedTo'] as const)
    if (filter[key] && !isListDay(filter[key]!)) throw invalid({ [key]: t('refusals.invalidDate') });
  return { ...filter, search: (filter.search ?? '').slice(0, 80) };
}

/** The two forms of an order's data: its general data, its intervention history. */
export type OrderPart = 'general' | 'history';
type OrderRow = typeof repairOrders.$inferSelect;
// What the general data's form edits, as the order's columns name it (toRow's keys).
const generalColumns = [
  'number',
  'openedOn',
  'interventionCategory',
  'modelId',
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
] as const satisfies readonly (keyof OrderRow)[];

/** The version of the part of the order a form saves (versions.ts): its general data, or its history. */
export const orderVersionOf = (order: OrderRow, history: readonly Pick<HistoryRow, 'mileage' | 'intervention'>[], part: OrderPart): string =>
  versionOf(part === 'general' ? generalColumns.map((column) => order[column]) : history.map((h) => [h.mileage, h.intervention]));

export function createRepairOrdersService(deps: { db: Db; files?: FileStore }) {
  const { db } = deps;

  /**
   * Number and gearbox code through their trigram indexes, a model's name through the models'
   * ids, found first: given as constants, the three branches of the OR become one bitmap of
   * three index scans (a sub-select in their place made the planner scan the table, or look
   * every match up again by its id: 38 ms for a model's 2,500 orders, 4 ms now).
   */
  async function searchOf(filter: OrderFilter): Promise<Search | null> {
    const text = filter.search?.trim().toUpperCase();
    if (!text) return null;
    const pattern = `%${escapeLike(text)}%`;
    const models = await db
      .select({ id: gearboxModels.id })
      .from(gearboxModels)
      .where(or(ilike(gearboxModels.model, pattern), ilike(gearboxModels.bvaId, pattern)));
    return { pattern, modelIds: models.map((m) => m.id) };
  }

  /** The filter's conditions, the search's model ids given (`searchOf`). */
  function whereOf(filter: OrderFilter, search: Search | null): SQL | undefined {
    const parts: (SQL | undefined)[] = [];
    if (search) parts.push(or(textMatches(search.pattern), search.modelIds.length ? inArray(repairOrders.modelId, search.modelIds) : undefined));
    if (filter.from) parts.push(gte(repairOrders.openedOn, filter.from));
    if (filter.to) parts.push(lte(repairOrders.openedOn, filter.to));
    if (filter.category) parts.push(eq(repairOrders.interventionCategory, filter.category));
    if (filter.type) parts.push(eq(gearboxModels.type, filter.type));
    if (filter.modelId) parts.push(eq(repairOrders.modelId, filter.modelId));
    if (filter.status) parts.push(eq(repairOrders.status, filter.status));
    if (filter.referent) parts.push(filter.referent === 'aucun' ? isNull(repairOrders.referentId) : eq(repairOrders.referentId, filter.referent));
    if (filter.closedFrom) parts.push(gte(repairOrders.closedOn, filter.closedFrom));
    if (filter.closedTo) parts.push(lte(repairOrders.closedOn, filter.closedTo));
    if (filter.reopenedFrom || filter.reopenedTo) {
      const from = filter.reopenedFrom ? sql` and e.at >= ${zonedInstant(filter.reopenedFrom)!.toISOString()}::timestamptz` : sql``;
      const until = filter.reopenedTo ? sql` and e.at < ${zonedInstant(addDays(filter.reopenedTo, 1))!.toISOString()}::timestamptz` : sql``;
      parts.push(sql`exists (select 1 from order_events e where e.repair_order_id = ${repairOrders.id} and e.kind = 'reopened'${from}${until})`);
    }
    if (filter.outageId)
      parts.push(sql`exists (select 1 from order_outages oo where oo.repair_order_id = ${repairOrders.id} and oo.outage_id = ${filter.outageId})`);
    return parts.length ? and(...parts) : undefined;
  }

  /**
   * The exact number of orders the filter selects, as a scalar sub-query. Without dates or a
   * category, the models' counts (migration 0028) say it: the orders of the models the search
   * names, plus those whose number or gearbox code matches, of other models (a few, through the
   * trigram indexes). Counting 100,000 rows took 26 ms on PGlite; 10,000 of a model's search 200.
   */
  function countOf(filter: OrderFilter, search: Search | null): SQL {
    // The model's table only when its type is asked (every order has a model), joined inside
    // the sub-query: its columns must not name the list's own row.
    const orders = filter.type ? sql`${repairOrders} join ${gearboxModels} on ${gearboxModels.id} = ${repairOrders.modelId}` : sql`${repairOrders}`;
    const where = (condition: SQL | undefined) => (condition ? sql` where ${condition}` : sql``);
    // A status alone (the overview's «OR par statut»): the counts keep the closed orders too (migration 0030).
    const statusOnly = !!filter.status && !search && !overviewFiltered({ ...filter, status: null });
    if (filter.from || filter.to || filter.category || (overviewFiltered(filter) && !statusOnly))
      return sql`(select count(*)::int from ${orders}${where(whereOf(filter, search))})`;
    const perModel =
      filter.status === 'CLOSED'
        ? repairOrderCounts.closed
        : filter.status === 'IN_PROGRESS'
          ? sql`${repairOrderCounts.n} - ${repairOrderCounts.closed}`
          : repairOrderCounts.n;
    const byType = filter.type ? eq(gearboxModels.type, filter.type) : undefined;
    const counts = filter.type
      ? sql`${repairOrderCounts} join ${gearboxModels} on ${gearboxModels.id} = ${repairOrderCounts.modelId}`
      : sql`${repairOrderCounts}`;
    const counted =
      search && !search.modelIds.length
        ? sql`0`
        : sql`(select coalesce(sum(${perModel}), 0)::int from ${counts}${where(
            and(
              search ? inArray(repairOrderCounts.modelId, search.modelIds) : undefined,
              filter.modelId ? eq(repairOrderCounts.modelId, filter.modelId) : undefined,
              byType,
            ),
          )})`;
    if (!search) return counted;
    const others = and(
      textMatches(search.pattern),
      search.modelIds.length ? notInArray(repairOrders.modelId, search.modelIds) : undefined,
      filter.modelId ? eq(repairOrders.modelId, filter.modelId) : undefined,
      byType,
    );
    return sql`(${counted} + (select count(*)::int from ${orders}${where(others)}))`;
  }

  /** Has the diagnostic begun? Then the model is kept (SPEC §4). */
  /** Any answer, symptom, curve, imported file or diagnostic step means the diagnostic has begun. */
  const diagnosticStarted = async (
    q: Pick<Db, 'execute'>,
    row: { id: string; canReadFaultCodes: boolean | null; measuresDone: boolean | null; diagnosticStep: number },
  ) => {
    if (isStarted(row)) return true;
    const [found] = await queryRows<{ started: boolean }>(q as Db, sql`select ${evidenceOf(sql`${row.id}`)} as started`);
    return found?.started === true;
  };

  /**
   * The order page's read (every tab of it, the diagnostic, the report): the order, its model and
   * referent, its history and whether anything of a diagnostic was recorded, in one query whose
   * SQL is built once, at the first read, and named (decision 082).
   */
  const orderById = prepared(() =>
    db
      .select({
        order: repairOrders,
        model: {
          id: gearboxModels.id,
          model: shownModel(gearboxModels).model,
          type: gearboxModels.type,
          constructorName: shownModel(gearboxModels).constructorName,
          bvaId: gearboxModels.bvaId,
        },
        referent: { id: users.id, displayName: users.displayName },
        history: sql<
          HistoryRow[]
        >`coalesce((select json_agg(json_build_object('id', h.id, 'orderId', h.repair_order_id, 'position', h.position, 'mileage', h.mileage, 'intervention', h.intervention) order by h.position) from ${interventionHistory} h where h.repair_order_id = ${repairOrders.id}), '[]'::json)`,
        started: sql<boolean>`${evidenceOf(repairOrders.id)}`,
      })
      .from(repairOrders)
      .innerJoin(gearboxModels, eq(gearboxModels.id, repairOrders.modelId))
      .leftJoin(users, eq(users.id, repairOrders.referentId))
      .where(eq(repairOrders.id, sql.placeholder('id')))
      .limit(1),
  );

  const toRow = (input: RepairOrderInput) => ({
    number: input.number,
    openedOn: input.openedOn,
    interventionCategory: input.interventionCategory,
    modelId: input.gearboxModelId,
    gearboxCode: input.gearboxCode,
    referentId: input.referentId ?? null,
    vehicleBrand: input.vehicleBrand,
    vehicleModel: input.vehicleModel,
    energy: input.energy ?? null,
    engineSize: input.engineSize ?? null,
    mileage: input.mileage ?? null,
    constructionYear: input.constructionYear ?? null,
    comment: input.comment,
    interventions: input.interventions,
    outageParts: input.outageParts,
  });

  type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
  /** The referent is an admin or a diagnostician (an unknown id would otherwise read as an unknown model). */
  async function checkReferent(tx: Tx, referentId: string | undefined) {
    if (!referentId) return;
    const [user] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, referentId), inArray(users.defaultRole, ['app_admin', 'diagnostician'])))
      .limit(1);
    if (!user) throw invalid({ 'object.referentId': t('refusals.referentUnknown') });
  }
  async function writeHistory(tx: Tx, orderId: string, input: RepairOrderInput) {
    await tx.delete(interventionHistory).where(eq(interventionHistory.orderId, orderId));
    if (input.history.length)
      await tx
        .insert(interventionHistory)
        .values(input.history.map((h, i) => ({ orderId, position: i + 1, mileage: h.mileage, intervention: h.intervention })));
  }

  const totalOf = async (filter: OrderFilter, search: Search | null) => (await queryRows<{ n: number }>(db, sql`select ${countOf(filter, search)} as n`))[0]!.n;

  /** One page of the list, with the filter's total on each row when asked. */
  function listQuery(filter: ListFilter, search: Search | null, withTotal: boolean) {
    const column = sortColumns[filter.sort];
    return db
      .select({ ...listSelection, total: withTotal ? sql`${countOf(filter, search)}`.mapWith(Number) : sql<null>`null` })
      .from(repairOrders)
      .innerJoin(gearboxModels, eq(gearboxModels.id, repairOrders.modelId))
      .where(whereOf(filter, search))
      .orderBy(filter.descending ? desc(column) : asc(column), desc(repairOrders.number))
      .limit(filter.limit)
      .offset(filter.offset);
  }

  const service = {
    list: async (_viewer: Viewer, given: ListFilter) => {
      const filter = checkedFilter(given);
      return (await listQuery(filter, await searchOf(filter), false)).map(({ total: _, ...row }) => row);
    },

    count: async (_viewer: Viewer, given: OrderFilter) => {
      const filter = checkedFilter(given);
      return await totalOf(filter, await searchOf(filter));
    },

    /**
     * A page of the list and the exact number of orders the filter selects, in one query (the
     * list's screen): its search's models looked up once. A page past the end counts alone.
     */
    page: async (_viewer: Viewer, given: ListFilter) => {
      const filter = checkedFilter(given);
      const search = await searchOf(filter);
      const rows = await listQuery(filter, search, true);
      const total = rows.length ? rows[0]!.total! : filter.offset ? await totalOf(filter, search) : 0;
      return { rows: rows.map(({ total: _, ...row }) => row), total };
    },

    /** The order with its model, referent and history, and whether its model is locked: one query. */
    get: async (_viewer: Viewer, id: string) => {
      const [row] = await orderById().execute({ id });
      if (!row) return undefined;
      const { order, model, referent, history, started } = row;
      return {
        ...order,
        model,
        referent: referent?.id ? referent : null,
        history,
        modelLocked: isStarted(order) || started,
        versions: { general: orderVersionOf(order, history, 'general'), history: orderVersionOf(order, history, 'history') },
      };
    },

    /** Admins and diagnosticians, who may be the diagnostic referent. */
    /** The users an order may name as referent; `also`, a list's filter, even when disabled or no longer one (it is still shown). */
    referents: (_viewer: Viewer, also?: string | null) =>
      db
        .select({ id: users.id, displayName: users.displayName })
        .from(users)
        .where(or(and(inArray(users.defaultRole, ['app_admin', 'diagnostician']), eq(users.disabled, false)), also ? eq(users.id, also) : undefined))
        .orderBy(asc(users.displayName)),

    insert: async (_viewer: Viewer, input: RepairOrderInput) =>
      db
        .transaction(async (tx) => {
          await checkReferent(tx, input.referentId);
          const [row] = await tx.insert(repairOrders).values(toRow(input)).returning({ id: repairOrders.id });
          await writeHistory(tx, row!.id, input);
          const id = row!.id;
          await record(tx, {
            action: 'created',
            entity: orderRef({ id, number: input.number }),
            changes: await orderChanges(tx, null, { ...toRow(input), history: input.history }),
          });
          return id;
        })
        .catch((error: unknown) => (error instanceof DomainError ? Promise.reject(error) : numberTaken(error))),

    /** `over`: the part a form saves and the version it was filled over (a page's form); the API's clients save as before. */
    update: async (_viewer: Viewer, id: string, input: RepairOrderInput, over?: { part: OrderPart; version: string }) =>
      db
        .transaction(async (tx) => {
          const [current] = await tx.select().from(repairOrders).where(eq(repairOrders.id, id)).for('update');
          if (!current) throw notFound(t('errors.repairOrderLoad'));
          if (current.status === 'CLOSED') throw conflict('closed', CLOSED);
          const history = await tx.select().from(interventionHistory).where(eq(interventionHistory.orderId, id)).orderBy(asc(interventionHistory.position));
          if (over && orderVersionOf(current, history, over.part) !== over.version) throw conflict('stale', t('repairOrders.changedMeanwhile'));
          if (current.modelId !== input.gearboxModelId && (await diagnosticStarted(tx, current))) {
            throw invalid({ 'object.gearboxModelId': t('repairOrders.modelLocked') }, 'model-locked');
          }
          // One already named keeps their place even if their role has changed since.
          if (input.referentId !== current.referentId) await checkReferent(tx, input.referentId);
          await tx
            .update(repairOrders)
            .set({ ...toRow(input), updatedAt: new Date() })
            .where(eq(repairOrders.id, id));
          await writeHistory(tx, id, input);
          const changes = await orderChanges(tx, { ...current, history }, { ...toRow(input), history: input.history });
          if (changes.length) await record(tx, { action: 'changed', entity: orderRef({ id, number: input.number }), changes });
          return id;
        })
        .catch((error: unknown) => (error instanceof DomainError ? Promise.reject(error) : numberTaken(error))),

    /** The order and all its diagnostic (by cascade), then its files' bytes once that is committed; never a closed order. */
    remove: async (_viewer: Viewer, id: string) => {
      const { row, fileIds } = await db.transaction(async (tx) => {
        // A closed order is a record (decision 043): it is reopened before anything else, deletion too.
        const [current] = await tx.select({ status: repairOrders.status }).from(repairOrders).where(eq(repairOrders.id, id)).for('update');
        if (current?.status === 'CLOSED') throw conflict('closed', t('refusals.orderClosedDelete'));
        const linked = await linkedFileIds(tx, eq(orderFiles.orderId, id));
        const [deleted] = await tx.delete(repairOrders).where(eq(repairOrders.id, id)).returning();
        if (!deleted) throw notFound(t('errors.repairOrderLoad'));
        await record(tx, { action: 'deleted', entity: orderRef(deleted) });
        await dropStoredRows(tx, linked);
        return { row: deleted, fileIds: linked };
      });
      await removeStoredFiles(deps.files, fileIds);
      return row;
    },
  };
  return service;
}

/** Who may call what (decision 061). Repair orders are read by every role, written by admins and diagnosticians (SPEC §2.7, §6). */
export const repairOrdersPermissions = {
  list: 'signedIn',
  count: 'signedIn',
  page: 'signedIn',
  get: 'signedIn',
  referents: 'signedIn',
  insert: 'manageOrders',
  update: 'manageOrders',
  remove: 'manageOrders',
} as const satisfies PermissionTable<RepairOrdersService>;
