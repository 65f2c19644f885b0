// Gearbox models: the list with its search and filters, and their writes.
import { and, asc, count, eq, gte, ilike, inArray, isNotNull, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { can } from '#lib/permissions.ts';
import type { GearboxModelInput, GearboxType } from '#lib/gearboxes/gearboxes.ts';
import { queryRows } from '#server/db/client.ts';
import { prepared, rawRead } from '#server/db/prepared.ts';
import {
  baseItems,
  doctorCodes,
  errorCodes,
  gearboxCodes,
  gearboxDocuments,
  gearboxMeasures,
  orderOutages,
  outages,
  repairOrders,
  repairProcedures,
  stockItems,
} from '#server/db/schema/index.ts';
import type { OutageInput } from '#lib/gearboxes/outages.ts';
import { alias } from 'drizzle-orm/pg-core';
import type { Database, Db } from '#server/db/client.ts';
import { createModelCatalogue } from './catalogue.ts';
import type { FileStore } from '#server/storage/store.ts';
import { gearboxModels } from '#server/db/schema/index.ts';
import { escapeLike } from '#lib/search.ts';
import { pgCode } from '#server/db/errors.ts';
import { DomainError, conflict, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { record } from '#server/audit/record.ts';
import { gearboxModelRefOf, gearboxModelRef, fieldLabel, modelChanges, outageEvent } from '#server/audit/refs.ts';

// The history every statistic of a dossier counts (decision 018): the model's closed repair
// orders, whose outage the repair confirmed. Orders in progress are hypotheses, not history.
const CLOSED = sql`r.status = 'CLOSED'`;
/** The middle of each mileage band of an order (SPEC §3 vehicle), for average mileages. */
const MILEAGE_MIDPOINT = sql`case mileage when '0_to_50000' then 25000 when '50000_to_100000' then 75000 when '100000_to_150000' then 125000 when '150000_to_200000' then 175000 when 'above_200000' then 225000 end`;
/** The orders that retained an outage (`oo`), each with its order (`r`): what an outage's count and mileage read, with CLOSED. */
const OUTAGE_ORDERS = sql`order_outages oo join repair_orders r on r.id = oo.repair_order_id`;

/** An outage of the overview's ranking: the dossier's count and mileage (decision 018), over its model's history. */
export type RankedOutage = {
  id: string;
  modelId: string;
  model: string;
  component: string;
  outageType: string;
  /** The closed orders that retained it (k), and the model's closed orders (N). */
  orderCount: number;
  history: number;
  ordersAverageMileage: number | null;
};

export type GearboxModelsService = ReturnType<typeof createGearboxModelsService>;
/** `modelId`: that model and the models derived from it (SPEC §2.8, filter by model). */
export type GearboxModelFilter = { search?: string; type?: GearboxType | null; year?: number | null; modelId?: string | null };

/** The filter as the list reads it: a search cut at 120 characters. */
function whereOf(filter: GearboxModelFilter): SQL | undefined {
  const parts: (SQL | undefined)[] = [];
  const text = filter.search?.slice(0, 120).trim();
  if (text) {
    const pattern = `%${escapeLike(text)}%`;
    // Its names, and the doctor and gearbox codes of its dossier: the code on a box's plate finds its model.
    parts.push(
      or(
        ilike(gearboxModels.model, pattern),
        ilike(gearboxModels.businessName, pattern),
        ilike(gearboxModels.constructorName, pattern),
        ilike(gearboxModels.bvaId, pattern),
        inArray(gearboxModels.id, sql`(select ${doctorCodes.modelId} from ${doctorCodes} where ${doctorCodes.code} ilike ${pattern})`),
        inArray(
          gearboxModels.id,
          sql`(select d.gearbox_model_id from ${gearboxCodes} g join ${doctorCodes} d on d.id = g.doctor_code_id where g.code ilike ${pattern})`,
        ),
      ),
    );
  }
  if (filter.type) parts.push(eq(gearboxModels.type, filter.type));
  if (filter.modelId) parts.push(or(eq(gearboxModels.id, filter.modelId), eq(gearboxModels.parentId, filter.modelId)));
  // "Years covered": produced during that year.
  if (filter.year) parts.push(lte(gearboxModels.startYear, filter.year), or(isNull(gearboxModels.endYear), gte(gearboxModels.endYear, filter.year)));
  return parts.length ? and(...parts) : undefined;
}

const toRow = (input: GearboxModelInput) => ({ ...input, endYear: input.endYear ?? null, gears: input.gears ?? null, parentId: input.parentId ?? null });

const componentItems = alias(baseItems, 'component_items');
const typeItems = alias(baseItems, 'type_items');

/** `watch`: the embedded database's LISTEN, for the catalogue it keeps (decision 076). */
export function createGearboxModelsService(deps: { db: Db; files: FileStore; watch?: Database['listen'] }) {
  const { db } = deps;
  const catalogue = createModelCatalogue(db, deps.watch);
  /** A committed write of models: the catalogue is read again (its notification does too, later or not at all if lost). */
  const changed = <T>(row: T) => {
    catalogue.invalidate();
    return row;
  };

  const outagesQuery = () =>
    db
      .select({
        id: outages.id,
        modelId: outages.modelId,
        component: { id: componentItems.id, name: componentItems.name },
        outageType: { id: typeItems.id, name: typeItems.name },
        description: outages.description,
        occurrenceRate: outages.occurrenceRate,
        averageMileage: outages.averageMileage,
        // Statistics from the history (SPEC §3): the closed orders that retained the outage.
        orderCount: sql<number>`(select count(*)::int from ${OUTAGE_ORDERS} where oo.outage_id = ${outages.id} and ${CLOSED})`,
        ordersAverageMileage: sql<
          number | null
        >`(select round(avg(${MILEAGE_MIDPOINT}))::int from ${OUTAGE_ORDERS} where oo.outage_id = ${outages.id} and ${CLOSED})`,
      })
      .from(outages)
      .innerJoin(componentItems, eq(componentItems.id, outages.componentId))
      .innerJoin(typeItems, eq(typeItems.id, outages.outageTypeId));

  // The diagnostic and the report read these on every page.
  const modelOutages = prepared(() =>
    outagesQuery()
      .where(eq(outages.modelId, sql.placeholder('modelId')))
      .orderBy(asc(componentItems.name), asc(typeItems.name)),
  );
  // Kept with the model's orders (decision 075): counting them was 6–10 ms on PGlite with 100,000 orders.
  const closedOrderCount = prepared(() =>
    rawRead<{ n: number }>(
      db,
      sql`select coalesce((select closed from repair_order_counts where gearbox_model_id = ${sql.placeholder('modelId')}), 0)::int as n`,
    ),
  );

  const lookup = async (kind: 'component' | 'outage_type', name: string) =>
    (
      await db
        .select({ id: baseItems.id })
        .from(baseItems)
        .where(and(eq(baseItems.kind, kind), sql`lower(${baseItems.name}) = lower(${name.trim()})`))
        .limit(1)
    )[0]?.id;

  /**
   * The base ids of the outage's names. A name the base does not have is refused with
   * 'Cet item ne fait pas partie de la base de donnée', unless the user asked to add it and
   * may: then it is added, and only once both names are known to be acceptable.
   */
  async function resolveBase(input: OutageInput, canAddToBase: boolean) {
    let componentId = await lookup('component', input.component);
    let outageTypeId = await lookup('outage_type', input.outageType);
    const adding = input.addMissing && canAddToBase;
    if (!adding && (!componentId || !outageTypeId)) {
      const missing: Record<string, string> = {};
      if (!componentId) missing['object.component'] = t('errors.itemUnknown');
      if (!outageTypeId) missing['object.outageType'] = t('errors.itemUnknown');
      throw invalid(missing, 'item-unknown');
    }
    const add = async (kind: 'component' | 'outage_type', name: string) =>
      (await db.insert(baseItems).values({ kind, name: name.trim() }).onConflictDoNothing().returning({ id: baseItems.id }))[0]?.id ??
      (await lookup(kind, name))!;
    componentId ??= await add('component', input.component);
    outageTypeId ??= await add('outage_type', input.outageType);
    return { componentId, outageTypeId };
  }
  const taken = (error: unknown): never => {
    if (pgCode(error) === '23505') throw conflict('model-taken', t('errors.modelTaken'), { field: 'model' });
    throw error;
  };
  const codeTaken = (error: unknown): never => {
    if (pgCode(error) === '23505') throw conflict('code-exists', t('errors.codeExists'));
    if (pgCode(error) === '23503') throw notFound(t('refusals.itemNotFound'));
    throw error;
  };
  const codeUsed = (error: unknown): never => {
    // 23001: a stock item keeps its code (ON DELETE RESTRICT); 23503: a reference without rule.
    if (pgCode(error) === '23503' || pgCode(error) === '23001') throw conflict('code-used', t('errors.codeUsed'));
    throw error;
  };
  /** The parent exists and is neither the model nor one of its descendants (no loop). */
  const checkParent = async (id: string | null, parentId: string | undefined) => {
    if (!parentId) return;
    const refused = (message: string) => invalid({ parentId: message }, 'validation');
    if (parentId === id) throw refused(t('refusals.ownParent'));
    const [found] = await queryRows<{ id: string; loop: boolean }>(
      db,
      sql`with recursive up(id, parent_id) as (select id, parent_id from gearbox_models where id = ${parentId}
            union select g.id, g.parent_id from gearbox_models g join up on g.id = up.parent_id)
          select ${parentId}::uuid as id, exists (select 1 from up where id = ${id}::uuid) as loop where exists (select 1 from gearbox_models where id = ${parentId})`,
    );
    if (!found) throw refused(t('refusals.itemNotFound'));
    if (found.loop) throw refused(t('refusals.ownParent'));
  };

  /** Doctor codes and their gearbox codes in one query, in the order of their codes. */
  const codesWhere = async (where: SQL) => {
    const rows = await db
      .select({ doctor: doctorCodes, gearbox: gearboxCodes })
      .from(doctorCodes)
      .leftJoin(gearboxCodes, eq(gearboxCodes.doctorCodeId, doctorCodes.id))
      .where(where)
      .orderBy(asc(doctorCodes.code), asc(doctorCodes.id), asc(gearboxCodes.code));
    const doctors = new Map<string, (typeof rows)[number]['doctor'] & { gearboxCodes: NonNullable<(typeof rows)[number]['gearbox']>[] }>();
    for (const { doctor, gearbox } of rows) {
      let entry = doctors.get(doctor.id);
      if (!entry) doctors.set(doctor.id, (entry = { ...doctor, gearboxCodes: [] }));
      if (gearbox) entry.gearboxCodes.push(gearbox);
    }
    return [...doctors.values()];
  };

  const service = {
    list: (_viewer: Viewer, filter: GearboxModelFilter & { limit: number; offset: number }) =>
      db
        .select()
        .from(gearboxModels)
        .where(whereOf(filter))
        .orderBy(asc(gearboxModels.constructorName), asc(gearboxModels.model))
        .limit(filter.limit)
        .offset(filter.offset),

    count: async (_viewer: Viewer, filter: GearboxModelFilter) => (await db.select({ n: count() }).from(gearboxModels).where(whereOf(filter)))[0]!.n,

    /** One page of the list and the count of what the filter selects, in one read while the page has rows. */
    page: async (viewer: Viewer, filter: GearboxModelFilter & { limit: number; offset: number }) => {
      const rows = await db
        .select({ row: gearboxModels, total: sql<number>`count(*) over ()`.mapWith(Number) })
        .from(gearboxModels)
        .where(whereOf(filter))
        .orderBy(asc(gearboxModels.constructorName), asc(gearboxModels.model))
        .limit(filter.limit)
        .offset(filter.offset);
      if (rows.length) return { rows: rows.map((r) => r.row), total: rows[0]!.total };
      // A page past the last: how many there are, for the last one.
      return { rows: [], total: filter.offset > 0 ? await service.count(viewer, filter) : 0 };
    },

    /** The models the screens' filters and selects offer (decision 076): id and name, the list's first 100. */
    catalogue: (_viewer: Viewer) => catalogue.read(),

    get: async (_viewer: Viewer, id: string) => (await db.select().from(gearboxModels).where(eq(gearboxModels.id, id)).limit(1))[0],

    insert: async (_viewer: Viewer, input: GearboxModelInput) => {
      await checkParent(null, input.parentId);
      return db
        .transaction(async (tx) => {
          const [row] = await tx.insert(gearboxModels).values(toRow(input)).returning();
          await record(tx, { action: 'created', entity: gearboxModelRef(row!), changes: await modelChanges(tx, null, row!) });
          return row!;
        })
        .then(changed, taken);
    },

    update: async (_viewer: Viewer, id: string, input: GearboxModelInput) => {
      await checkParent(id, input.parentId);
      return db
        .transaction(async (tx) => {
          const [before] = await tx.select().from(gearboxModels).where(eq(gearboxModels.id, id)).for('update');
          if (!before) throw notFound(t('refusals.modelNotFound'));
          const [row] = await tx
            .update(gearboxModels)
            .set({ ...toRow(input), updatedAt: new Date() })
            .where(eq(gearboxModels.id, id))
            .returning();
          const changes = await modelChanges(tx, before, row!);
          if (changes.length) await record(tx, { action: 'changed', entity: gearboxModelRef(row!), changes });
          return row!;
        })
        .then(changed, (error: unknown) => (error instanceof DomainError ? Promise.reject(error) : taken(error)));
    },

    /** The doctor codes of a model, each with its gearbox codes. */
    codesOf: (_viewer: Viewer, modelId: string) => codesWhere(eq(doctorCodes.modelId, modelId)),

    /** The doctor codes, each with its gearbox codes, of several models at once (each code names its model). */
    codesOfModels: async (_viewer: Viewer, modelIds: readonly string[]) =>
      modelIds.length ? codesWhere(inArray(doctorCodes.modelId, modelIds.slice(0, 1000))) : [],

    insertDoctorCode: async (_viewer: Viewer, modelId: string, input: { code: string; businessName: string; tvsCode: string; engine: string }) =>
      db
        .transaction(async (tx) => {
          const [row] = await tx
            .insert(doctorCodes)
            .values({ modelId, ...input })
            .returning();
          await record(tx, {
            action: 'created',
            entity: { kind: 'gearbox_code', id: row!.id, label: row!.code },
            parent: await gearboxModelRefOf(tx, modelId),
          });
          return row!;
        })
        .catch(codeTaken),

    /** A doctor code that still has gearbox codes is in use. */
    removeDoctorCode: async (_viewer: Viewer, id: string) =>
      db.transaction(async (tx) => {
        const [used] = await tx.select({ id: gearboxCodes.id }).from(gearboxCodes).where(eq(gearboxCodes.doctorCodeId, id)).limit(1);
        if (used) throw conflict('code-used', t('errors.codeUsed'));
        const [row] = await tx.delete(doctorCodes).where(eq(doctorCodes.id, id)).returning().catch(codeUsed);
        if (!row) throw notFound(t('refusals.itemNotFound'));
        await record(tx, { action: 'deleted', entity: { kind: 'gearbox_code', id, label: row.code }, parent: await gearboxModelRefOf(tx, row.modelId) });
        return row;
      }),

    insertGearboxCode: async (_viewer: Viewer, doctorCodeId: string, code: string) =>
      db
        .transaction(async (tx) => {
          const [row] = await tx.insert(gearboxCodes).values({ doctorCodeId, code }).returning();
          const [doctor] = await tx.select().from(doctorCodes).where(eq(doctorCodes.id, doctorCodeId));
          await record(tx, {
            action: 'created',
            entity: { kind: 'gearbox_code', id: row!.id, label: `${doctor!.code} / ${code}` },
            parent: await gearboxModelRefOf(tx, doctor!.modelId),
          });
          return row!;
        })
        .catch(codeTaken),

    /** A code a stock item carries is in use. */
    removeGearboxCode: async (_viewer: Viewer, id: string) =>
      db.transaction(async (tx) => {
        const [row] = await tx.delete(gearboxCodes).where(eq(gearboxCodes.id, id)).returning().catch(codeUsed);
        if (!row) throw notFound(t('refusals.itemNotFound'));
        const [doctor] = await tx.select().from(doctorCodes).where(eq(doctorCodes.id, row.doctorCodeId));
        await record(tx, {
          action: 'deleted',
          entity: { kind: 'gearbox_code', id, label: `${doctor!.code} / ${row.code}` },
          parent: await gearboxModelRefOf(tx, doctor!.modelId),
        });
        return row;
      }),

    /** With how many closed orders of the model recorded each (SPEC §3: a rate and "n / total"). */
    errorCodesOf: (_viewer: Viewer, modelId: string) =>
      db
        .select({
          id: errorCodes.id,
          modelId: errorCodes.modelId,
          code: errorCodes.code,
          description: errorCodes.description,
          createdAt: errorCodes.createdAt,
          // Qualified by hand: a one-table select renders its columns bare, and a bare "id" here is the subquery's own.
          orderCount: sql<number>`(select count(distinct f.repair_order_id)::int from order_fault_codes f join repair_orders r on r.id = f.repair_order_id where f.error_code_id = "error_codes"."id" and ${CLOSED})`,
        })
        .from(errorCodes)
        .where(eq(errorCodes.modelId, modelId))
        .orderBy(asc(errorCodes.code)),

    /** The size of the model's history: its closed orders. */
    orderCountOf: async (_viewer: Viewer, modelId: string) => Number((await closedOrderCount().execute({ modelId }))[0]!.n),

    insertErrorCode: async (_viewer: Viewer, modelId: string, input: { code: string; description: string }) =>
      db
        .transaction(async (tx) => {
          const [row] = await tx
            .insert(errorCodes)
            .values({ modelId, ...input })
            .returning();
          await record(tx, {
            action: 'created',
            entity: { kind: 'error_code', id: row!.id, label: row!.code },
            parent: await gearboxModelRefOf(tx, modelId),
            changes: [{ field: fieldLabel('description'), before: '', after: row!.description }],
          });
          return row!;
        })
        .catch(codeTaken),

    removeErrorCode: async (_viewer: Viewer, id: string) =>
      db.transaction(async (tx) => {
        const [row] = await tx.delete(errorCodes).where(eq(errorCodes.id, id)).returning().catch(codeUsed);
        if (!row) throw notFound(t('refusals.itemNotFound'));
        await record(tx, { action: 'deleted', entity: { kind: 'error_code', id, label: row.code }, parent: await gearboxModelRefOf(tx, row.modelId) });
        return row;
      }),

    outagesOf: (_viewer: Viewer, modelId: string) => modelOutages().execute({ modelId }),

    /**
     * The outages an order retained, counted as the dossier counts them (the same rows, CLOSED and
     * mileage) but over the other closed orders: what a closed order's own sheet says (decision 090).
     * An outage no other closed order retained is left out.
     */
    retainedElsewhereOf: (_viewer: Viewer, orderId: string) =>
      queryRows<{ outageId: string; orderCount: number; ordersAverageMileage: number | null }>(
        db,
        sql`select oo.outage_id as "outageId", count(*)::int as "orderCount", round(avg(${MILEAGE_MIDPOINT}))::int as "ordersAverageMileage"
        from ${OUTAGE_ORDERS}
        where ${CLOSED} and r.id <> ${orderId} and oo.outage_id in (select outage_id from order_outages where repair_order_id = ${orderId})
        group by oo.outage_id`,
      ),

    /**
     * The overview's ranking (issue 32): for the `models` models with the largest history, their
     * `perModel` outages the most closed orders retained, counted as the dossier counts them (the
     * same rows, CLOSED and mileage), grouped once over the history rather than one count per outage.
     */
    mostFrequentOutages: (_viewer: Viewer, options: { models: number; perModel: number }) =>
      queryRows<RankedOutage>(
        db,
        sql`with largest as (
          select gearbox_model_id, closed from repair_order_counts where closed > 0 order by closed desc, gearbox_model_id limit ${options.models}
        ), counted as (
          select oo.outage_id, count(*)::int as n, round(avg(${MILEAGE_MIDPOINT}))::int as mileage
          from ${OUTAGE_ORDERS} where ${CLOSED} and oo.outage_id in (select o.id from outages o join largest l using (gearbox_model_id))
          group by oo.outage_id
        ), ranked as (
          select c.*, o.gearbox_model_id, row_number() over (partition by o.gearbox_model_id order by c.n desc, o.id) as place
          from counted c join outages o on o.id = c.outage_id
        )
        select o.id, o.gearbox_model_id as "modelId", m.model, comp.name as component, kind.name as "outageType",
          r.n as "orderCount", l.closed as history, r.mileage as "ordersAverageMileage"
        from ranked r join largest l on l.gearbox_model_id = r.gearbox_model_id
          join outages o on o.id = r.outage_id join gearbox_models m on m.id = o.gearbox_model_id
          join base_items comp on comp.id = o.component_id join base_items kind on kind.id = o.outage_type_id
        where r.place <= ${options.perModel}
        order by l.closed desc, m.model, r.place`,
      ),

    getOutage: async (_viewer: Viewer, id: string) => (await outagesQuery().where(eq(outages.id, id)).limit(1))[0],

    /** Outages by id, in one read; those gone are left out, the others in the order asked. */
    getOutages: async (_viewer: Viewer, ids: string[]) => {
      if (ids.length === 0) return [];
      const rows = await outagesQuery().where(inArray(outages.id, ids));
      return ids.flatMap((id) => rows.filter((row) => row.id === id));
    },

    /** Names are looked up in the base; missing ones are added only when asked and allowed. */
    insertOutage: async (viewer: Viewer, modelId: string, input: OutageInput) => {
      const canAddToBase = can(viewer.role, 'manageBase');
      const ids = await resolveBase(input, canAddToBase);
      return db
        .transaction(async (tx) => {
          const [row] = await tx
            .insert(outages)
            .values({
              modelId,
              ...ids,
              description: input.description,
              occurrenceRate: input.occurrenceRate ?? null,
              averageMileage: input.averageMileage ?? null,
            })
            .returning();
          await record(tx, { action: 'created', ...(await outageEvent(tx, row!.id, null, row!)), parent: await gearboxModelRefOf(tx, modelId) });
          return row!.id;
        })
        .catch((error: unknown) => {
          if (pgCode(error) === '23503') throw notFound(t('refusals.modelNotFound'));
          throw error;
        });
    },

    updateOutage: async (viewer: Viewer, id: string, input: OutageInput) => {
      const canAddToBase = can(viewer.role, 'manageBase');
      const ids = await resolveBase(input, canAddToBase);
      return db.transaction(async (tx) => {
        const [before] = await tx.select().from(outages).where(eq(outages.id, id)).for('update');
        if (!before) throw notFound(t('refusals.outageNotFound'));
        const [row] = await tx
          .update(outages)
          .set({
            ...ids,
            description: input.description,
            occurrenceRate: input.occurrenceRate ?? null,
            averageMileage: input.averageMileage ?? null,
            updatedAt: new Date(),
          })
          .where(eq(outages.id, id))
          .returning();
        const event = await outageEvent(tx, id, before, row!);
        if (event.changes.length) await record(tx, { action: 'changed', ...event, parent: await gearboxModelRefOf(tx, row!.modelId) });
        return row!.id;
      });
    },

    /** An outage an order's diagnostic retained is kept (SPEC §8), with the orders as reason; its files go with it. */
    removeOutage: async (_viewer: Viewer, id: string) => {
      const [used] = await db.select({ n: count() }).from(orderOutages).where(eq(orderOutages.outageId, id));
      if (used!.n > 0) throw conflict('delete-refused', t('errors.deleteImpossible'), { reasons: [t('refusals.usedByOrders', { count: used!.n })] });
      const files = await db.select({ id: gearboxDocuments.fileId }).from(gearboxDocuments).where(eq(gearboxDocuments.outageId, id));
      const row = await db.transaction(async (tx) => {
        const [deleted] = await tx.delete(outages).where(eq(outages.id, id)).returning();
        if (!deleted) throw notFound(t('refusals.outageNotFound'));
        const { entity } = await outageEvent(tx, id, null, deleted);
        await record(tx, { action: 'deleted', entity, parent: await gearboxModelRefOf(tx, deleted.modelId) });
        return deleted;
      });
      // The links went with the outage; the stored files go once it is gone (a refusal keeps them).
      for (const file of files) await deps.files.remove(file.id);
      return row;
    },

    /** SPEC §8: a model attached to other items is kept, with the reasons. */
    remove: async (_viewer: Viewer, id: string) => {
      const counted = async (
        table: typeof outages | typeof repairProcedures | typeof gearboxMeasures | typeof gearboxDocuments | typeof stockItems | typeof repairOrders,
        extra?: SQL,
      ) =>
        (
          await db
            .select({ n: count() })
            .from(table)
            .where(and(eq(table.modelId, id), extra))
        )[0]!.n;
      const [hypotheses, procedures, measures] = [await counted(outages), await counted(repairProcedures), await counted(gearboxMeasures)];
      // Boxes that left the stock keep the model too: their history names it.
      const [inStock, leftStock] = [await counted(stockItems, isNull(stockItems.outOn)), await counted(stockItems, isNotNull(stockItems.outOn))];
      // An outage's or a measure's files are counted with them.
      const documents = await counted(gearboxDocuments, and(isNull(gearboxDocuments.outageId), isNull(gearboxDocuments.measureId)));
      const orders = await counted(repairOrders);
      const [children] = await db.select({ n: count() }).from(gearboxModels).where(eq(gearboxModels.parentId, id));
      const reasons = [
        children!.n && t('refusals.usedByChildren', { count: children!.n }),
        orders && t('refusals.usedByOrders', { count: orders }),
        procedures && t('refusals.usedByProcedures', { count: procedures }),
        documents + measures && t('refusals.usedByDocuments', { count: documents + measures }),
        hypotheses && t('refusals.usedByHypotheses', { count: hypotheses }),
        inStock && t('refusals.usedByStock', { count: inStock }),
        leftStock && t('refusals.usedByStockHistory', { count: leftStock }),
      ].filter((reason): reason is string => !!reason);
      if (reasons.length) throw conflict('delete-refused', t('errors.deleteImpossible'), { reasons });
      const row = await db
        .transaction(async (tx) => {
          const [deleted] = await tx.delete(gearboxModels).where(eq(gearboxModels.id, id)).returning();
          if (deleted) await record(tx, { action: 'deleted', entity: gearboxModelRef(deleted) });
          return deleted;
        })
        .catch((error: unknown) => {
          // Something attached in the meantime keeps it too.
          if (pgCode(error) === '23503' || pgCode(error) === '23001') throw conflict('delete-refused', t('errors.deleteImpossible'));
          throw error;
        });
      if (!row) throw notFound(t('refusals.modelNotFound'));
      return changed(row);
    },
  };
  return service;
}

/** Who may call what (decision 061). Technical dossiers: read by all, written by admins and diagnosticians (SPEC §2.1, §6). */
export const gearboxModelsPermissions = {
  list: 'signedIn',
  count: 'signedIn',
  page: 'signedIn',
  catalogue: 'signedIn',
  get: 'signedIn',
  insert: 'manageGearboxModels',
  update: 'manageGearboxModels',
  codesOf: 'signedIn',
  codesOfModels: 'signedIn',
  insertDoctorCode: 'manageGearboxModels',
  removeDoctorCode: 'manageGearboxModels',
  insertGearboxCode: 'manageGearboxModels',
  removeGearboxCode: 'manageGearboxModels',
  errorCodesOf: 'signedIn',
  orderCountOf: 'signedIn',
  insertErrorCode: 'manageGearboxModels',
  removeErrorCode: 'manageGearboxModels',
  outagesOf: 'signedIn',
  retainedElsewhereOf: 'signedIn',
  mostFrequentOutages: 'viewOverview',
  getOutage: 'signedIn',
  getOutages: 'signedIn',
  insertOutage: 'manageGearboxModels',
  updateOutage: 'manageGearboxModels',
  removeOutage: 'manageGearboxModels',
  remove: 'manageGearboxModels',
} as const satisfies PermissionTable<GearboxModelsService>;
