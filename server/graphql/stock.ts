// The gearbox stock (SPEC §2.9, §3, §4): admins, diagnosticians and commercials read and write
// it; mechanics are refused. Every change of an item names the version it was made on.
import { gearboxTypes, type GearboxType } from '#lib/gearboxes/gearboxes.ts';
import {
  addStockSchema,
  conditionStockSchema,
  gearboxConditions,
  movementKinds,
  moveStockSchema,
  removeStockSchema,
  type GearboxCondition,
} from '#lib/stock/stock.ts';
import type { StockMovementRow, StockRow } from '#server/stock/service.ts';
import { builder } from './builder.ts';
import { limitError, offsetError } from './errors.ts';
import { parse } from './inputs.ts';
import { live } from './live.ts';
import { GearboxType as GearboxTypeEnum } from './gearboxes.ts';

const MAX_LIMIT = 500;

const Condition = builder.enumType('gearbox_condition', { values: gearboxConditions });
const StockTypeFilter = builder.enumType('stock_gearbox_type', { values: gearboxTypes });
const MovementKind = builder.enumType('stock_movement_kind', { values: movementKinds });

const StockModel = builder.objectRef<StockRow['model']>('stock_item_models').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    model: t.exposeString('model'),
    type: t.field({ type: GearboxTypeEnum, resolve: (row) => row.type as GearboxType }),
    constructorName: t.exposeString('constructorName'),
  }),
});

const Movement = builder.objectRef<StockMovementRow>('stock_movements').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    kind: t.field({ type: MovementKind, resolve: (row) => row.kind as (typeof movementKinds)[number] }),
    at: t.expose('at', { type: 'timestamptz' }),
    byName: t.exposeString('byName'),
    fromRack: t.exposeString('fromRack', { nullable: true }),
    fromLevel: t.exposeInt('fromLevel', { nullable: true }),
    toRack: t.exposeString('toRack', { nullable: true }),
    toLevel: t.exposeInt('toLevel', { nullable: true }),
    fromCondition: t.field({ type: Condition, nullable: true, resolve: (row) => row.fromCondition as GearboxCondition | null }),
    toCondition: t.field({ type: Condition, nullable: true, resolve: (row) => row.toCondition as GearboxCondition | null }),
    reason: t.exposeString('reason'),
  }),
});

const StockItem = builder.objectRef<StockRow>('stock_items').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    reference: t.exposeString('reference'),
    version: t.exposeInt('version'),
    model: t.field({ type: StockModel, resolve: (row) => row.model }),
    doctorCode: t.exposeString('doctorCode', { nullable: true }),
    gearboxCode: t.exposeString('gearboxCode', { nullable: true }),
    condition: t.field({ type: Condition, resolve: (row) => row.condition as GearboxCondition }),
    rack: t.exposeString('rack'),
    level: t.exposeInt('level'),
    addedOn: t.exposeString('addedOn'),
    outOn: t.exposeString('outOn', { nullable: true }),
    outReason: t.exposeString('outReason'),
    comment: t.exposeString('comment'),
    movements: t.field({ type: [Movement], resolve: (row, _args, context) => context.services.stock.movementsOf(row.id) }),
  }),
});

const CountRow = builder.objectRef<{ modelId: string; model: string; condition: string; n: number }>('stock_counts').implement({
  fields: (t) => ({
    modelId: t.expose('modelId', { type: 'uuid' }),
    model: t.exposeString('model'),
    condition: t.field({ type: Condition, resolve: (row) => row.condition as GearboxCondition }),
    count: t.exposeInt('n'),
  }),
});

const filterArgs = builder.args((t) => ({
  history: t.boolean(),
  search: t.string(),
  modelId: t.field({ type: 'uuid' }),
  type: t.field({ type: StockTypeFilter }),
  condition: t.field({ type: Condition }),
  rack: t.string(),
}));
type FilterArgs = {
  history?: boolean | null;
  search?: string | null;
  modelId?: string | null;
  type?: GearboxType | null;
  condition?: GearboxCondition | null;
  rack?: string | null;
};
// The service cuts the search and writes the rack as on add and move.
const filterOf = (args: FilterArgs) => ({
  history: !!args.history,
  search: args.search ?? '',
  modelId: args.modelId ?? null,
  type: args.type ?? null,
  condition: args.condition ?? null,
  rack: args.rack ?? null,
});

builder.queryField('stockItems', (t) =>
  t.field({
    type: [StockItem],
    args: { ...filterArgs, limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context) => {
      // Taken first: the service refuses a viewer before the arguments are checked.
      const list = context.services.stock.list;
      const limit = args.limit ?? 100;
      if (limit < 0 || limit > MAX_LIMIT) throw limitError(MAX_LIMIT);
      if ((args.offset ?? 0) < 0) throw offsetError();
      return list({ ...filterOf(args), limit, offset: args.offset ?? 0 });
    },
  }),
);

builder.subscriptionField('stockItems', (t) =>
  t.field({
    type: [StockItem],
    args: { ...filterArgs, limit: t.arg.int(), offset: t.arg.int() },
    subscribe: (_root, args, context) => {
      const list = context.services.stock.list;
      const limit = Math.min(Math.max(args.limit ?? 100, 0), MAX_LIMIT);
      const input = { ...filterOf(args), limit, offset: Math.max(args.offset ?? 0, 0) };
      return live(context, ['public.stock_items'], `stockItems:${JSON.stringify(input)}`, () => list(input));
    },
    resolve: (rows: StockRow[]) => rows,
  }),
);

const Aggregate = builder.objectRef<{ count: number }>('stock_items_aggregate').implement({
  fields: (t) => ({ count: t.exposeInt('count') }),
});

builder.queryField('stockItemsAggregate', (t) =>
  t.field({
    type: Aggregate,
    args: filterArgs,
    resolve: async (_root, args, context) => ({ count: await context.services.stock.count(filterOf(args)) }),
  }),
);

builder.queryField('stockCounts', (t) =>
  t.field({
    type: [CountRow],
    args: filterArgs,
    resolve: (_root, args, context) => context.services.stock.counts(filterOf(args)),
  }),
);

builder.queryField('stockRacks', (t) => t.stringList({ resolve: (_root, _args, context) => context.services.stock.racks() }));

builder.queryField('stockItem', (t) =>
  t.field({
    type: StockItem,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.stock.get(id)) ?? null,
  }),
);

const AddInput = builder.inputType('stock_items_insert_input', {
  fields: (t) => ({
    gearboxModelId: t.field({ type: 'uuid', required: true }),
    code: t.string(),
    condition: t.field({ type: Condition, required: true }),
    rack: t.string({ required: true }),
    level: t.int({ required: true }),
    addedOn: t.string({ required: true }),
    quantity: t.int({ required: true }),
    comment: t.string(),
  }),
});

builder.mutationField('insertStockItems', (t) =>
  t.field({
    type: ['uuid'],
    args: { object: t.arg({ type: AddInput, required: true }) },
    resolve: (_root, { object }, context) => context.services.stock.insert(parse(addStockSchema, object, 'object')),
  }),
);

builder.mutationField('moveStockItem', (t) =>
  t.field({
    type: 'uuid',
    args: {
      id: t.arg({ type: 'uuid', required: true }),
      version: t.arg.int({ required: true }),
      rack: t.arg.string({ required: true }),
      level: t.arg.int({ required: true }),
    },
    resolve: (_root, args, context) =>
      context.services.stock.move(args.id, args.version, parse(moveStockSchema, { rack: args.rack, level: args.level }, 'object')),
  }),
);

builder.mutationField('changeStockItemCondition', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), version: t.arg.int({ required: true }), condition: t.arg({ type: Condition, required: true }) },
    resolve: (_root, args, context) =>
      context.services.stock.changeCondition(args.id, args.version, parse(conditionStockSchema, { condition: args.condition }, 'object').condition),
  }),
);

builder.mutationField('removeStockItem', (t) =>
  t.field({
    type: 'uuid',
    args: {
      id: t.arg({ type: 'uuid', required: true }),
      version: t.arg.int({ required: true }),
      outOn: t.arg.string({ required: true }),
      outReason: t.arg.string({ required: true }),
    },
    resolve: (_root, args, context) =>
      context.services.stock.remove(args.id, args.version, parse(removeStockSchema, { outOn: args.outOn, outReason: args.outReason }, 'object')),
  }),
);
