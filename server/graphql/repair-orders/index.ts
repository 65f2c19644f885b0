// Repair orders (SPEC §2.7, §3): read by every role, written by admins and diagnosticians.
import { gearboxTypes, type GearboxType } from '#lib/gearboxes/gearboxes.ts';
import {
  energies,
  engineSizes,
  interventionCategories,
  mileageBands,
  orderSorts,
  orderStatuses,
  repairOrderSchema,
  type InterventionCategory,
  type OrderSort,
} from '#lib/repair-orders/repair-orders.ts';
import type { RepairOrdersService } from '#server/repair-orders/service.ts';
import { faultCodeSchema } from '#lib/repair-orders/fault-codes.ts';
import { temporalities } from '#lib/repair-orders/conditions.ts';
import { builder } from '#server/graphql/builder.ts';
import { limitError, offsetError, validationError } from '#server/graphql/errors.ts';
import { parse } from '#server/graphql/inputs.ts';
import { GearboxType as GearboxTypeEnum } from '#server/graphql/gearboxes.ts';

const MAX_LIMIT = 100;
type ListRow = Awaited<ReturnType<RepairOrdersService['list']>>[number];
type OrderRow = NonNullable<Awaited<ReturnType<RepairOrdersService['get']>>>;

export const Status = builder.enumType('repair_order_status', { values: orderStatuses });
const Category = builder.enumType('intervention_category', { values: interventionCategories });
const TypeFilter = builder.enumType('repair_order_gearbox_type', { values: gearboxTypes });
const Sort = builder.enumType('repair_order_sort', { values: orderSorts });
// GraphQL names cannot start with a digit or hold dots: the values are strings.
const enumText =
  <T extends readonly string[]>(values: T, name: string) =>
  (value: unknown) => {
    if (value === undefined || value === null || value === '') return undefined;
    if (!(values as readonly unknown[]).includes(value)) throw validationError({ [`object.${name}`]: 'Valeur inconnue' });
    return value as T[number];
  };

const OrderModel = builder.objectRef<ListRow['model'] & { bvaId?: string }>('repair_order_models').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    model: t.exposeString('model'),
    type: t.field({ type: GearboxTypeEnum, resolve: (row) => row.type as GearboxType }),
    constructorName: t.exposeString('constructorName'),
    bvaId: t.string({ resolve: (row) => row.bvaId ?? '' }),
  }),
});

const Referent = builder.objectRef<{ id: string; displayName: string }>('repair_order_referents').implement({
  fields: (t) => ({ id: t.expose('id', { type: 'uuid' }), displayName: t.exposeString('displayName') }),
});

const HistoryEntry = builder.objectRef<{ mileage: number; intervention: string }>('intervention_history').implement({
  fields: (t) => ({ mileage: t.exposeInt('mileage'), intervention: t.exposeString('intervention') }),
});

export const RepairOrder = builder.objectRef<ListRow & Partial<Omit<OrderRow, 'model'>>>('repair_orders').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    number: t.exposeString('number'),
    openedOn: t.exposeString('openedOn'),
    closedOn: t.string({ nullable: true, resolve: (row) => row.closedOn ?? null }),
    status: t.field({ type: Status, resolve: (row) => row.status as (typeof orderStatuses)[number] }),
    interventionCategory: t.field({ type: Category, resolve: (row) => row.interventionCategory as InterventionCategory }),
    gearboxCode: t.exposeString('gearboxCode'),
    model: t.field({ type: OrderModel, resolve: (row) => row.model }),
    referent: t.field({ type: Referent, nullable: true, resolve: (row) => row.referent ?? null }),
    vehicleBrand: t.string({ resolve: (row) => row.vehicleBrand ?? '' }),
    vehicleModel: t.string({ resolve: (row) => row.vehicleModel ?? '' }),
    energy: t.string({ nullable: true, resolve: (row) => row.energy ?? null }),
    engineSize: t.string({ nullable: true, resolve: (row) => row.engineSize ?? null }),
    mileage: t.string({ nullable: true, resolve: (row) => row.mileage ?? null }),
    constructionYear: t.int({ nullable: true, resolve: (row) => row.constructionYear ?? null }),
    comment: t.string({ resolve: (row) => row.comment ?? '' }),
    interventions: t.stringList({ resolve: (row) => row.interventions ?? [] }),
    outageParts: t.stringList({ resolve: (row) => row.outageParts ?? [] }),
    history: t.field({ type: [HistoryEntry], resolve: (row) => row.history ?? [] }),
    canReadFaultCodes: t.boolean({ nullable: true, resolve: (row) => row.canReadFaultCodes ?? null }),
    measuresDone: t.boolean({ nullable: true, resolve: (row) => row.measuresDone ?? null }),
    /** The gearbox model can no longer change: the diagnostic has begun. */
    modelLocked: t.boolean({ resolve: (row) => row.modelLocked ?? false }),
    /** How far the diagnostic steps went: 0 nothing chosen, 1 outages, 2 procedures, 3 visualised. */
    diagnosticStep: t.int({ resolve: (row) => row.diagnosticStep ?? 0 }),
    validatedAt: t.string({ nullable: true, resolve: (row) => (row.validatedAt ? new Date(row.validatedAt).toISOString() : null) }),
  }),
});

const filterArgs = builder.args((t) => ({
  search: t.string(),
  from: t.string(),
  to: t.string(),
  category: t.field({ type: Category }),
  type: t.field({ type: TypeFilter }),
  modelId: t.field({ type: 'uuid' }),
}));
type FilterArgs = {
  search?: string | null;
  from?: string | null;
  to?: string | null;
  category?: InterventionCategory | null;
  type?: GearboxType | null;
  modelId?: string | null;
};
const filterOf = (args: FilterArgs) => ({
  search: args.search ?? '',
  from: args.from ?? null,
  to: args.to ?? null,
  category: args.category ?? null,
  type: args.type ?? null,
  modelId: args.modelId ?? null,
});

builder.queryField('repairOrders', (t) =>
  t.field({
    type: [RepairOrder],
    args: { ...filterArgs, sort: t.arg({ type: Sort }), descending: t.arg.boolean(), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context) => {
      // Taken first: the service refuses a viewer before the arguments are checked.
      const list = context.services.repairOrders.list;
      const limit = args.limit ?? 20;
      if (limit < 0 || limit > MAX_LIMIT) throw limitError(MAX_LIMIT);
      if ((args.offset ?? 0) < 0) throw offsetError();
      const sort: OrderSort = args.sort ?? 'date';
      return list({ ...filterOf(args), sort, descending: args.descending ?? sort === 'date', limit, offset: args.offset ?? 0 });
    },
  }),
);

const Aggregate = builder.objectRef<{ count: number }>('repair_orders_aggregate').implement({ fields: (t) => ({ count: t.exposeInt('count') }) });

builder.queryField('repairOrdersAggregate', (t) =>
  t.field({
    type: Aggregate,
    args: filterArgs,
    resolve: async (_root, args, context) => ({ count: await context.services.repairOrders.count(filterOf(args)) }),
  }),
);

builder.queryField('repairOrder', (t) =>
  t.field({
    type: RepairOrder,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.repairOrders.get(id)) ?? null,
  }),
);

builder.queryField('repairOrderReferents', (t) => t.field({ type: [Referent], resolve: (_root, _args, context) => context.services.repairOrders.referents() }));

const HistoryInput = builder.inputType('intervention_history_input', {
  fields: (t) => ({ mileage: t.int({ required: true }), intervention: t.string({ required: true }) }),
});

const OrderInput = builder.inputType('repair_orders_input', {
  fields: (t) => ({
    number: t.string({ required: true }),
    openedOn: t.string({ required: true }),
    interventionCategory: t.field({ type: Category, required: true }),
    gearboxModelId: t.field({ type: 'uuid', required: true }),
    gearboxCode: t.string(),
    referentId: t.field({ type: 'uuid' }),
    vehicleBrand: t.string(),
    vehicleModel: t.string(),
    energy: t.string(),
    engineSize: t.string(),
    mileage: t.string(),
    constructionYear: t.int(),
    comment: t.string(),
    interventions: t.stringList(),
    outageParts: t.stringList(),
    history: t.field({ type: [HistoryInput] }),
  }),
});

const orderOf = (object: Record<string, unknown>) =>
  parse(
    repairOrderSchema,
    {
      ...object,
      // Optional in the input type, but the schema wants lists (the form always sends its text).
      interventions: object.interventions ?? [],
      outageParts: object.outageParts ?? [],
      energy: enumText(energies, 'energy')(object.energy),
      engineSize: enumText(engineSizes, 'engineSize')(object.engineSize),
      mileage: enumText(mileageBands, 'mileage')(object.mileage),
    },
    'object',
  );

builder.mutationField('insertRepairOrder', (t) =>
  t.field({
    type: 'uuid',
    args: { object: t.arg({ type: OrderInput, required: true }) },
    resolve: (_root, { object }, context) => context.services.repairOrders.insert(orderOf(object)),
  }),
);

builder.mutationField('updateRepairOrder', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: OrderInput, required: true }) },
    resolve: (_root, { id, object }, context) => context.services.repairOrders.update(id, orderOf(object)),
  }),
);

builder.mutationField('deleteRepairOrder', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.repairOrders.remove(id)).id,
  }),
);

// The fault code reports of an order (SPEC §2.7 diagnostic): read by all, written by A and D.
export const Temporality = builder.enumType('temporality', { values: temporalities });
type FaultCodeRow = Awaited<ReturnType<import('#server/repair-orders/fault-codes.ts').FaultCodesService['faultCodesOf']>>[number];
export const ErrorCodeRef = builder.objectRef<FaultCodeRow['errorCode']>('order_error_codes').implement({
  fields: (t) => ({ id: t.expose('id', { type: 'uuid' }), code: t.exposeString('code'), description: t.exposeString('description') }),
});
/** SPEC §3: the appearance conditions a fault code read and a symptom share. */
type ConditionsRow = Pick<FaultCodeRow, 'temporality' | 'acceleratorLoad' | 'bvaMode' | 'gear' | 'action' | 'otherCondition' | 'comment'>;
export const AppearanceConditions = builder.interfaceRef<ConditionsRow>('appearance_conditions').implement({
  fields: (t) => ({
    temporality: t.field({ type: Temporality, nullable: true, resolve: (row) => (row.temporality as (typeof temporalities)[number] | null) ?? null }),
    acceleratorLoad: t.exposeString('acceleratorLoad'),
    bvaMode: t.exposeString('bvaMode'),
    gear: t.exposeString('gear'),
    action: t.exposeString('action'),
    otherCondition: t.exposeString('otherCondition'),
    comment: t.exposeString('comment'),
  }),
});
type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];
/** The same conditions, as the inputs that write them. */
export const conditionInputFields = (t: InputFields) => ({
  temporality: t.field({ type: Temporality }),
  acceleratorLoad: t.string(),
  bvaMode: t.string(),
  gear: t.string(),
  action: t.string(),
  otherCondition: t.string(),
  comment: t.string(),
});

const FaultCode = builder.objectRef<FaultCodeRow>('order_fault_codes').implement({
  interfaces: [AppearanceConditions],
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    errorCode: t.field({ type: ErrorCodeRef, resolve: (row) => row.errorCode }),
  }),
});

builder.objectField(RepairOrder, 'faultCodes', (t) =>
  t.field({ type: [FaultCode], resolve: (row, _args, context) => context.services.faultCodes.faultCodesOf(row.id) }),
);

const FaultCodeInput = builder.inputType('order_fault_codes_input', {
  fields: (t) => ({ code: t.string({ required: true }), description: t.string(), ...conditionInputFields(t) }),
});

const Discarded = builder.objectRef<{ discarded: number }>('fault_code_reading_result').implement({ fields: (t) => ({ discarded: t.exposeInt('discarded') }) });

builder.mutationField('setFaultCodeReading', (t) =>
  t.field({
    type: Discarded,
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), canRead: t.arg.boolean({ required: true }) },
    resolve: (_root, args, context) => context.services.faultCodes.setFaultCodeReading(args.repairOrderId, args.canRead),
  }),
);

builder.mutationField('insertOrderFaultCode', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: FaultCodeInput, required: true }) },
    resolve: (_root, args, context) => context.services.faultCodes.insertFaultCode(args.repairOrderId, parse(faultCodeSchema, args.object, 'object')),
  }),
);

builder.mutationField('updateOrderFaultCode', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: FaultCodeInput, required: true }) },
    resolve: (_root, args, context) => context.services.faultCodes.updateFaultCode(args.id, parse(faultCodeSchema, args.object, 'object')),
  }),
);

builder.mutationField('deleteOrderFaultCode', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.faultCodes.removeFaultCode(id),
  }),
);
