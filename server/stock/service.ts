// The gearbox stock: the lists with their filters and counts, and the transitions of SPEC §4
// (added, moved, condition changed, removed), each kept as a movement with who and when. A
// change made on an older version of an item is refused, so two people acting on the same box
// at once cannot both succeed.
import { and, asc, count, desc, eq, ilike, inArray, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import type { SelectedFields } from 'drizzle-orm/pg-core';
import type { GearboxType } from '#lib/gearboxes/gearboxes.ts';
import { type AddStockInput, type GearboxCondition, type MovementKind, normaliseRack } from '#lib/stock/stock.ts';
import { escapeLike } from '#lib/search.ts';
import { isUuid } from '#lib/ids.ts';
import type { Db } from '#server/db/client.ts';
import { prepared } from '#server/db/prepared.ts';

import { doctorCodes, gearboxCodes, gearboxModels, stockItems, stockMovements, users } from '#server/db/schema/index.ts';
import { conflict, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { record, type AuditRef } from '#server/audit/record.ts';
import { fieldLabel } from '#server/audit/refs.ts';
import { formatDate, labelOf } from '#lib/format.ts';
import { fr } from '#lib/i18n/fr.ts';

/** A box in stock as people name it: its number and its model. */
const stockRef = (item: { id: string; number: number }, model: string): AuditRef => ({
  kind: 'stock_item',
  id: item.id,
  label: `n° ${item.number} — ${model}`,
});
const conditionLabel = (c: string) => labelOf(fr.labels.gearboxCondition, c);
const place = (rack: string, level: number) => `${rack} / ${level}`;

export type StockService = ReturnType<typeof createStockService>;
export type StockFilter = {
  history?: boolean;
  search?: string;
  modelId?: string | null;
  type?: GearboxType | null;
  condition?: GearboxCondition | null;
  rack?: string | null;
};
export type Actor = { id: string };

const selection = {
  id: stockItems.id,
  number: stockItems.number,
  version: stockItems.version,
  model: { id: gearboxModels.id, model: gearboxModels.model, type: gearboxModels.type, constructorName: gearboxModels.constructorName },
  doctorCode: doctorCodes.code,
  gearboxCode: gearboxCodes.code,
  condition: stockItems.condition,
  rack: stockItems.rack,
  level: stockItems.level,
  addedOn: stockItems.addedOn,
  outOn: stockItems.outOn,
  outReason: stockItems.outReason,
  comment: stockItems.comment,
};
/** A box as the lists and its page show it; `reference` is its number as painted on its label. */
export type StockRow = {
  id: string;
  number: number;
  reference: string;
  version: number;
  model: { id: string; model: string; type: GearboxType; constructorName: string };
  doctorCode: string | null;
  gearboxCode: string | null;
  condition: GearboxCondition;
  rack: string;
  level: number;
  addedOn: string;
  outOn: string | null;
  outReason: string;
  comment: string;
};

export const referenceOf = (number: number) => `S-${String(number).padStart(6, '0')}`;
const referenced = (rows: Omit<StockRow, 'reference'>[]): StockRow[] => rows.map((row) => ({ ...row, reference: referenceOf(row.number) }));

/** One line of a box's history. */
export type StockMovementRow = Omit<typeof stockMovements.$inferSelect, 'kind' | 'fromCondition' | 'toCondition'> & {
  kind: MovementKind;
  fromCondition: GearboxCondition | null;
  toCondition: GearboxCondition | null;
};

/** The filter as every edge gives it: a search cut at 120 characters, a rack as written on add and move ("t 1" is rack T1). */
function readFilter(filter: StockFilter) {
  const text = filter.search?.slice(0, 120).trim();
  const number = text ? /^(?:S-?)?0*(\d{1,9})$/i.exec(text)?.[1] : undefined;
  const values = {
    pattern: text ? `%${escapeLike(text)}%` : undefined,
    number: number ? Number(number) : undefined,
    modelId: filter.modelId || undefined,
    type: filter.type || undefined,
    condition: filter.condition || undefined,
    rack: normaliseRack(filter.rack ?? '').slice(0, 10) || undefined,
  };
  // The SQL depends only on which values are set (its shape), never on the values: one statement
  // per shape, built once (decision 081). Only the values set are passed, so a placeholder the
  // shape lacks fails drizzle's check instead of binding as null.
  const set = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<typeof values>;
  const shape = { history: Boolean(filter.history), has: new Set(Object.keys(set)) as ReadonlySet<keyof typeof values> };
  return { key: [shape.history ? 'history' : 'current', ...[...shape.has].sort()].join(' '), shape, values: set };
}
type Shape = ReturnType<typeof readFilter>['shape'];

/** The conditions of a filter's shape, its values as placeholders named as in `readFilter`. */
function whereOf({ history, has }: Shape): SQL | undefined {
  const parts: (SQL | undefined)[] = [history ? isNotNull(stockItems.outOn) : isNull(stockItems.outOn)];
  if (has.has('pattern')) {
    const pattern = sql.placeholder('pattern');
    // Models and codes are few: their matching ids first, then the boxes by index.
    parts.push(
      or(
        inArray(
          stockItems.modelId,
          sql`(select ${gearboxModels.id} from ${gearboxModels} where ${gearboxModels.model} ilike ${pattern} or ${gearboxModels.constructorName} ilike ${pattern})`,
        ),
        inArray(stockItems.doctorCodeId, sql`(select ${doctorCodes.id} from ${doctorCodes} where ${doctorCodes.code} ilike ${pattern})`),
        inArray(stockItems.gearboxCodeId, sql`(select ${gearboxCodes.id} from ${gearboxCodes} where ${gearboxCodes.code} ilike ${pattern})`),
        ilike(stockItems.comment, pattern),
        ilike(stockItems.outReason, pattern),
        has.has('number') ? eq(stockItems.number, sql.placeholder('number')) : undefined,
      ),
    );
  }
  if (has.has('modelId')) parts.push(eq(stockItems.modelId, sql.placeholder('modelId')));
  if (has.has('type')) parts.push(eq(gearboxModels.type, sql.placeholder('type')));
  if (has.has('condition')) parts.push(eq(stockItems.condition, sql.placeholder('condition')));
  if (has.has('rack')) parts.push(eq(stockItems.rack, sql.placeholder('rack')));
  return and(...parts);
}

/** A read per filter shape, prepared at its first use (fewer than 2 × 2⁶ of each); its builder sees the shape, never a caller's values. */
function byShape<P>(build: (shape: Shape) => { prepare(name: string): P }) {
  const shapes = new Map<string, () => P>();
  return ({ key, shape }: { key: string; shape: Shape }) => {
    let query = shapes.get(key);
    if (!query) shapes.set(key, (query = prepared(() => build(shape))));
    return query();
  };
}

const byName = (actor: Actor) => sql`coalesce((select ${users.displayName} from ${users} where ${users.id} = ${actor.id}), '')`;

export function createStockService(deps: { db: Db }) {
  const { db } = deps;
  const from = (fields: SelectedFields) =>
    db
      .select(fields)
      .from(stockItems)
      .innerJoin(gearboxModels, eq(gearboxModels.id, stockItems.modelId))
      .leftJoin(doctorCodes, eq(doctorCodes.id, stockItems.doctorCodeId))
      .leftJoin(gearboxCodes, eq(gearboxCodes.id, stockItems.gearboxCodeId));

  const racksInUse = prepared(() =>
    db.selectDistinct({ rack: stockItems.rack }).from(stockItems).where(isNull(stockItems.outOn)).orderBy(asc(stockItems.rack)),
  );

  const listQuery = byShape((filter) =>
    from(selection)
      .where(whereOf(filter))
      .orderBy(...(filter.history ? [desc(stockItems.outOn), desc(stockItems.number)] : [asc(stockItems.rack), asc(stockItems.level), asc(stockItems.number)]))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset')),
  );
  const countQuery = byShape((filter) => from({ n: count() }).where(whereOf(filter)));
  const countsQuery = byShape((filter) =>
    from({ modelId: gearboxModels.id, model: gearboxModels.model, condition: stockItems.condition, n: count() })
      .where(whereOf(filter))
      .groupBy(gearboxModels.id, gearboxModels.model, stockItems.condition)
      .orderBy(asc(gearboxModels.model)),
  );

  type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
  /** The item locked for the change, checked against the version the user saw. */
  async function lockCurrent(tx: Tx, id: string, version: number) {
    const [item] = await tx.select().from(stockItems).where(eq(stockItems.id, id)).for('update');
    if (!item) throw notFound(t('stock.notFound'));
    if (item.outOn) throw conflict('already-removed', t('stock.alreadyRemoved'));
    if (item.version !== version) throw conflict('stale', t('stock.conflict'));
    return item;
  }
  /** The item's name for its event, its model read in the transaction. */
  const refOf = async (tx: Tx, item: { id: string; number: number; modelId: string }) =>
    stockRef(item, (await tx.select({ model: gearboxModels.model }).from(gearboxModels).where(eq(gearboxModels.id, item.modelId)))[0]?.model ?? '');

  const service = {
    list: async (_viewer: Viewer, filter: StockFilter & { limit: number; offset: number }) => {
      const read = readFilter(filter);
      const rows = await listQuery(read).execute({ ...read.values, limit: filter.limit, offset: filter.offset });
      return referenced(rows as unknown as Omit<StockRow, 'reference'>[]);
    },

    count: async (_viewer: Viewer, filter: StockFilter) => {
      const read = readFilter(filter);
      return (await countQuery(read).execute(read.values))[0]!.n as number;
    },

    /** Current stock per model and condition, under the same filters. */
    counts: async (_viewer: Viewer, filter: StockFilter) => {
      const read = readFilter({ ...filter, history: false });
      return (await countsQuery(read).execute(read.values)) as { modelId: string; model: string; condition: GearboxCondition; n: number }[];
    },

    /** How many boxes each rack holds now (the overview): what `/stock?rayon=` lists. */
    rackCounts: async (_viewer: Viewer) =>
      db.select({ rack: stockItems.rack, n: count() }).from(stockItems).where(isNull(stockItems.outOn)).groupBy(stockItems.rack).orderBy(asc(stockItems.rack)),

    /** The racks in use, for the filter and the pickers. */
    racks: async (_viewer: Viewer) => (await racksInUse().execute()).map((r) => r.rack),

    get: async (_viewer: Viewer, id: string): Promise<StockRow | undefined> =>
      referenced((await from(selection).where(eq(stockItems.id, id)).limit(1)) as unknown as Omit<StockRow, 'reference'>[])[0],

    movementsOf: (_viewer: Viewer, itemId: string) =>
      db.select().from(stockMovements).where(eq(stockMovements.itemId, itemId)).orderBy(asc(stockMovements.at), asc(stockMovements.id)) as unknown as Promise<
        StockMovementRow[]
      >,

    /** `quantity` identical boxes; the code must be one of the model's. */
    insert: async (actor: Viewer, input: AddStockInput): Promise<string[]> => {
      const [model] = await db
        .select({ id: gearboxModels.id, model: gearboxModels.model })
        .from(gearboxModels)
        .where(eq(gearboxModels.id, input.gearboxModelId));
      if (!model) throw invalid({ 'object.gearboxModelId': t('stock.unknownModel') });
      let doctorCodeId: string | null = null;
      let gearboxCodeId: string | null = null;
      if (input.code) {
        // The form's check lets 'D:' and 36 dashes through: neither may reach the query as is.
        const [kind, id] = [input.code[0]!.toLowerCase(), input.code.slice(2).toLowerCase()];
        const [found] = !isUuid(id)
          ? []
          : kind === 'd'
            ? await db
                .select({ doctor: doctorCodes.id, model: doctorCodes.modelId, code: sql<string | null>`null` })
                .from(doctorCodes)
                .where(eq(doctorCodes.id, id))
            : await db
                .select({ doctor: doctorCodes.id, model: doctorCodes.modelId, code: gearboxCodes.id })
                .from(gearboxCodes)
                .innerJoin(doctorCodes, eq(doctorCodes.id, gearboxCodes.doctorCodeId))
                .where(eq(gearboxCodes.id, id));
        if (!found || found.model !== model.id) throw invalid({ 'object.code': t('stock.codeOfAnotherModel') });
        doctorCodeId = found.doctor;
        gearboxCodeId = found.code;
      }
      return db.transaction(async (tx) => {
        const rows = await tx
          .insert(stockItems)
          .values(
            Array.from({ length: input.quantity }, () => ({
              modelId: model.id,
              doctorCodeId,
              gearboxCodeId,
              condition: input.condition,
              rack: input.rack,
              level: input.level,
              addedOn: input.addedOn,
              comment: input.comment,
            })),
          )
          .returning({ id: stockItems.id, number: stockItems.number });
        for (const row of rows)
          await record(tx, {
            action: 'created',
            entity: stockRef(row, model.model),
            actor,
            changes: [
              { field: fieldLabel('condition'), before: '', after: conditionLabel(input.condition) },
              { field: `${fieldLabel('rack')} / ${fieldLabel('level')}`, before: '', after: place(input.rack, input.level) },
              ...(input.comment ? [{ field: fieldLabel('comment'), before: '', after: input.comment }] : []),
            ],
          });
        await tx.insert(stockMovements).values(
          rows.map((row) => ({
            itemId: row.id,
            kind: 'added',
            toRack: input.rack,
            toLevel: input.level,
            toCondition: input.condition,
            byUserId: actor.id,
            byName: byName(actor),
          })),
        );
        return rows.map((r) => r.id);
      });
    },

    move: (actor: Viewer, id: string, version: number, to: { rack: string; level: number }) =>
      db.transaction(async (tx) => {
        const item = await lockCurrent(tx, id, version);
        if (item.rack === to.rack && item.level === to.level) return id;
        await tx
          .update(stockItems)
          .set({ rack: to.rack, level: to.level, version: item.version + 1, updatedAt: new Date() })
          .where(eq(stockItems.id, id));
        await tx.insert(stockMovements).values({
          itemId: id,
          kind: 'moved',
          fromRack: item.rack,
          fromLevel: item.level,
          toRack: to.rack,
          toLevel: to.level,
          byUserId: actor.id,
          byName: byName(actor),
        });
        await record(tx, {
          action: 'moved',
          entity: await refOf(tx, item),
          actor,
          changes: [{ field: `${fieldLabel('rack')} / ${fieldLabel('level')}`, before: place(item.rack, item.level), after: place(to.rack, to.level) }],
        });
        return id;
      }),

    changeCondition: (actor: Viewer, id: string, version: number, condition: GearboxCondition) =>
      db.transaction(async (tx) => {
        const item = await lockCurrent(tx, id, version);
        if (item.condition === condition) return id;
        await tx
          .update(stockItems)
          .set({ condition, version: item.version + 1, updatedAt: new Date() })
          .where(eq(stockItems.id, id));
        await tx
          .insert(stockMovements)
          .values({ itemId: id, kind: 'condition', fromCondition: item.condition, toCondition: condition, byUserId: actor.id, byName: byName(actor) });
        await record(tx, {
          action: 'changed',
          entity: await refOf(tx, item),
          actor,
          changes: [{ field: fieldLabel('condition'), before: conditionLabel(item.condition), after: conditionLabel(condition) }],
        });
        return id;
      }),

    remove: (actor: Viewer, id: string, version: number, out: { outOn: string; outReason: string }) =>
      db.transaction(async (tx) => {
        const item = await lockCurrent(tx, id, version);
        if (out.outOn < item.addedOn) throw invalid({ 'object.outOn': t('stock.outBeforeIn') });
        await tx
          .update(stockItems)
          .set({ outOn: out.outOn, outReason: out.outReason, version: item.version + 1, updatedAt: new Date() })
          .where(eq(stockItems.id, id));
        await tx.insert(stockMovements).values({
          itemId: id,
          kind: 'removed',
          fromRack: item.rack,
          fromLevel: item.level,
          reason: out.outReason,
          byUserId: actor.id,
          byName: byName(actor),
        });
        await record(tx, {
          action: 'removed',
          entity: await refOf(tx, item),
          actor,
          changes: [
            { field: fieldLabel('outOn'), before: '', after: formatDate(out.outOn) },
            { field: fieldLabel('outReason'), before: '', after: out.outReason },
          ],
        });
        return id;
      }),
  };
  return service;
}

/** Who may call what (decision 061). The stock: read and kept by admins, diagnosticians and commercials (SPEC §2.9, §6). */
export const stockPermissions = {
  list: 'manageStock',
  count: 'manageStock',
  counts: 'manageStock',
  rackCounts: 'manageStock',
  racks: 'manageStock',
  get: 'manageStock',
  movementsOf: 'manageStock',
  insert: 'manageStock',
  move: 'manageStock',
  changeCondition: 'manageStock',
  remove: 'manageStock',
} as const satisfies PermissionTable<StockService>;
