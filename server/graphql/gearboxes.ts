// Gearbox models (SPEC §3): read by every role, written by admins and diagnosticians.
import {
  doctorCodeSchema,
  errorCodeSchema,
  gearboxCodeSchema,
  gearboxModelSchema,
  gearboxTypes,
  type GearboxType as GearboxTypeName,
} from '#lib/gearboxes/gearboxes.ts';
import type { doctorCodes, errorCodes, gearboxCodes, gearboxModels } from '#server/db/schema/index.ts';
import { outageSchema } from '#lib/gearboxes/outages.ts';
import { builder } from './builder.ts';
import { limitError, offsetError } from './errors.ts';
import { parse } from './inputs.ts';
import { live } from './live.ts';

const DOSSIER_TABLES = [
  'public.gearbox_models',
  'public.doctor_codes',
  'public.error_codes',
  'public.outages',
  'public.repair_procedures',
  'public.gearbox_measures',
  'public.gearbox_documents',
];

type Row = typeof gearboxModels.$inferSelect;
const MAX_LIMIT = 100;

export const GearboxType = builder.enumType('gearbox_type', { values: gearboxTypes });

type GearboxCodeRow = typeof gearboxCodes.$inferSelect;
type DoctorCodeRow = typeof doctorCodes.$inferSelect & { gearboxCodes: GearboxCodeRow[] };

const GearboxCode = builder.objectRef<GearboxCodeRow>('gearbox_codes').implement({
  fields: (t) => ({ id: t.expose('id', { type: 'uuid' }), code: t.exposeString('code') }),
});

const DoctorCode = builder.objectRef<DoctorCodeRow>('doctor_codes').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    code: t.exposeString('code'),
    businessName: t.exposeString('businessName'),
    tvsCode: t.exposeString('tvsCode'),
    engine: t.exposeString('engine'),
    gearboxCodes: t.field({ type: [GearboxCode], resolve: (row) => row.gearboxCodes }),
  }),
});

const ErrorCode = builder.objectRef<typeof errorCodes.$inferSelect & { orderCount?: number }>('error_codes').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    code: t.exposeString('code'),
    description: t.exposeString('description'),
    /** Orders of the model on which the code was read. */
    orderCount: t.int({ resolve: (row) => row.orderCount ?? 0 }),
  }),
});

export const GearboxModel = builder.objectRef<Row>('gearbox_models').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    model: t.exposeString('model'),
    bvaId: t.exposeString('bvaId'),
    type: t.field({ type: GearboxType, resolve: (row) => row.type as GearboxTypeName }),
    constructorName: t.exposeString('constructorName'),
    doctorCode: t.exposeString('doctorCode'),
    businessName: t.exposeString('businessName'),
    startYear: t.exposeInt('startYear'),
    endYear: t.exposeInt('endYear', { nullable: true }),
    gears: t.exposeInt('gears', { nullable: true }),
    arrangement: t.exposeString('arrangement'),
    propulsion: t.exposeString('propulsion'),
    optionalPropulsion: t.exposeString('optionalPropulsion'),
    parentId: t.expose('parentId', { type: 'uuid', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'timestamptz' }),
    doctorCodes: t.field({ type: [DoctorCode], resolve: (row, _args, context) => context.services.gearboxModels.codesOf(row.id) }),
    errorCodes: t.field({ type: [ErrorCode], resolve: (row, _args, context) => context.services.gearboxModels.errorCodesOf(row.id) }),
    /** The model's history, its closed orders: the denominator of every rate of the dossier (decision 018). */
    orderCount: t.int({ resolve: (row, _args, context) => context.services.gearboxModels.orderCountOf(row.id) }),
  }),
});

const Count = builder.objectRef<{ count: number }>('gearbox_models_aggregate_fields').implement({ fields: (t) => ({ count: t.exposeInt('count') }) });
const Aggregate = builder.objectRef<{ count: number }>('gearbox_models_aggregate').implement({
  fields: (t) => ({ aggregate: t.field({ type: Count, resolve: (parent) => parent }) }),
});

const ModelInput = builder.inputType('gearbox_models_input', {
  fields: (t) => ({
    model: t.string({ required: true }),
    bvaId: t.string(),
    type: t.field({ type: GearboxType, required: true }),
    constructorName: t.string({ required: true }),
    doctorCode: t.string(),
    businessName: t.string(),
    startYear: t.int({ required: true }),
    endYear: t.int(),
    gears: t.int(),
    arrangement: t.string(),
    propulsion: t.string(),
    optionalPropulsion: t.string(),
    parentId: t.field({ type: 'uuid' }),
  }),
});

type FilterArgs = { search?: string | null; type?: GearboxTypeName | null; year?: number | null; modelId?: string | null };
const filterOf = (args: FilterArgs) => ({
  search: args.search ?? '',
  type: args.type ?? null,
  year: args.year ?? null,
  modelId: args.modelId ?? null,
});

builder.queryField('gearboxModels', (t) =>
  t.field({
    type: [GearboxModel],
    args: {
      search: t.arg.string(),
      type: t.arg({ type: GearboxType }),
      year: t.arg.int(),
      modelId: t.arg({ type: 'uuid' }),
      limit: t.arg.int(),
      offset: t.arg.int(),
    },
    resolve: (_root, args, context) => {
      // Taken first: the service refuses a viewer before the arguments are checked.
      const list = context.services.gearboxModels.list;
      const limit = args.limit ?? MAX_LIMIT;
      if (limit < 0 || limit > MAX_LIMIT) throw limitError(MAX_LIMIT);
      if ((args.offset ?? 0) < 0) throw offsetError();
      return list({ ...filterOf(args), limit, offset: args.offset ?? 0 });
    },
  }),
);

builder.queryField('gearboxModelsAggregate', (t) =>
  t.field({
    type: Aggregate,
    args: { search: t.arg.string(), type: t.arg({ type: GearboxType }), year: t.arg.int(), modelId: t.arg({ type: 'uuid' }) },
    resolve: async (_root, args, context) => ({ count: await context.services.gearboxModels.count(filterOf(args)) }),
  }),
);

builder.queryField('gearboxModel', (t) =>
  t.field({
    type: GearboxModel,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.gearboxModels.get(id)) ?? null,
  }),
);

builder.mutationField('insertGearboxModel', (t) =>
  t.field({
    type: GearboxModel,
    args: { object: t.arg({ type: ModelInput, required: true }) },
    resolve: (_root, { object }, context) => context.services.gearboxModels.insert(parse(gearboxModelSchema, object, 'object')),
  }),
);

builder.mutationField('updateGearboxModel', (t) =>
  t.field({
    type: GearboxModel,
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: ModelInput, required: true }) },
    resolve: (_root, { id, object }, context) => context.services.gearboxModels.update(id, parse(gearboxModelSchema, object, 'object')),
  }),
);

builder.mutationField('deleteGearboxModel', (t) =>
  t.field({
    type: GearboxModel,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.gearboxModels.remove(id),
  }),
);

const DoctorCodeInput = builder.inputType('doctor_codes_input', {
  fields: (t) => ({ code: t.string({ required: true }), businessName: t.string(), tvsCode: t.string(), engine: t.string() }),
});

builder.mutationField('insertDoctorCode', (t) =>
  t.field({
    type: DoctorCode,
    args: { gearboxModelId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: DoctorCodeInput, required: true }) },
    resolve: async (_root, args, context) => {
      const row = await context.services.gearboxModels.insertDoctorCode(args.gearboxModelId, parse(doctorCodeSchema, args.object, 'object'));
      return { ...row, gearboxCodes: [] };
    },
  }),
);

builder.mutationField('deleteDoctorCode', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.gearboxModels.removeDoctorCode(id)).id,
  }),
);

builder.mutationField('insertGearboxCode', (t) =>
  t.field({
    type: GearboxCode,
    args: { doctorCodeId: t.arg({ type: 'uuid', required: true }), code: t.arg.string({ required: true }) },
    resolve: (_root, args, context) =>
      context.services.gearboxModels.insertGearboxCode(args.doctorCodeId, parse(gearboxCodeSchema, { code: args.code }, 'object').code),
  }),
);

builder.mutationField('deleteGearboxCode', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.gearboxModels.removeGearboxCode(id)).id,
  }),
);

const ErrorCodeInput = builder.inputType('error_codes_input', {
  fields: (t) => ({ code: t.string({ required: true }), description: t.string({ required: true }) }),
});

builder.mutationField('insertErrorCode', (t) =>
  t.field({
    type: ErrorCode,
    args: { gearboxModelId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: ErrorCodeInput, required: true }) },
    resolve: (_root, args, context) => context.services.gearboxModels.insertErrorCode(args.gearboxModelId, parse(errorCodeSchema, args.object, 'object')),
  }),
);

builder.mutationField('deleteErrorCode', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.gearboxModels.removeErrorCode(id)).id,
  }),
);

type OutageRow = NonNullable<Awaited<ReturnType<import('#server/gearboxes/service.ts').GearboxModelsService['getOutage']>>>;

const BaseRef = builder.objectRef<{ id: string; name: string }>('base_item_ref').implement({
  fields: (t) => ({ id: t.expose('id', { type: 'uuid' }), name: t.exposeString('name') }),
});

export const OutageType = builder.objectRef<OutageRow>('outages').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    gearboxModelId: t.expose('modelId', { type: 'uuid' }),
    component: t.field({ type: BaseRef, resolve: (row) => row.component }),
    outageType: t.field({ type: BaseRef, resolve: (row) => row.outageType }),
    description: t.exposeString('description'),
    occurrenceRate: t.exposeInt('occurrenceRate', { nullable: true }),
    averageMileage: t.exposeInt('averageMileage', { nullable: true }),
    /** The model's closed orders that retained this outage, and their average mileage. */
    orderCount: t.int({ resolve: (row) => Number(row.orderCount ?? 0) }),
    ordersAverageMileage: t.int({
      nullable: true,
      resolve: (row) => (row.ordersAverageMileage === null || row.ordersAverageMileage === undefined ? null : Number(row.ordersAverageMileage)),
    }),
  }),
});

builder.objectField(GearboxModel, 'outages', (t) =>
  t.field({ type: [OutageType], resolve: (row, _args, context) => context.services.gearboxModels.outagesOf(row.id) }),
);

builder.queryField('gearboxOutage', (t) =>
  t.field({
    type: OutageType,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.gearboxModels.getOutage(id)) ?? null,
  }),
);

const OutageInput = builder.inputType('outages_input', {
  fields: (t) => ({
    component: t.string({ required: true }),
    outageType: t.string({ required: true }),
    description: t.string(),
    occurrenceRate: t.int(),
    averageMileage: t.int(),
    addMissing: t.boolean(),
  }),
});

builder.mutationField('insertOutage', (t) =>
  t.field({
    type: 'uuid',
    args: { gearboxModelId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: OutageInput, required: true }) },
    resolve: (_root, args, context) => context.services.gearboxModels.insertOutage(args.gearboxModelId, parse(outageSchema, args.object, 'object')),
  }),
);

builder.mutationField('updateOutage', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: OutageInput, required: true }) },
    resolve: (_root, args, context) => context.services.gearboxModels.updateOutage(args.id, parse(outageSchema, args.object, 'object')),
  }),
);

builder.mutationField('deleteOutage', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    // Its files go with it (the service).
    resolve: async (_root, { id }, context) => (await context.services.gearboxModels.removeOutage(id)).id,
  }),
);

/** The dossier as it changes: the model again after any change to it or to what hangs off it. */
builder.subscriptionField('gearboxModel', (t) =>
  t.field({
    type: GearboxModel,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    subscribe: (_root, { id }, context) => {
      const get = context.services.gearboxModels.get;
      let version = 0;
      // Every change is news: the nested lists are resolved after, so the row alone cannot tell.
      return live(context, DOSSIER_TABLES, null, async () => {
        const row = await get(id);
        return row ? { ...row, version: ++version } : null;
      });
    },
    resolve: (row: Row | null) => row,
  }),
);
