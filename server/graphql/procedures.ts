// Repair procedures of a model and the prioritised procedures of its outages (SPEC §3).
import { outageProceduresSchema, procedureSchema } from '#lib/gearboxes/procedures.ts';
import type { ProcedureRow } from '#server/gearboxes/procedures.ts';
import { builder } from './builder.ts';
import { GearboxModel, OutageType } from './gearboxes.ts';
import { parse } from './inputs.ts';

type CheckpointRow = ProcedureRow['checkpoints'][number];

const Checkpoint = builder.objectRef<CheckpointRow>('procedure_checkpoints').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    position: t.exposeInt('position'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
  }),
});

export const RepairProcedure = builder.objectRef<ProcedureRow>('repair_procedures').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    gearboxModelId: t.expose('modelId', { type: 'uuid' }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    steps: t.exposeStringList('steps'),
    checkpoints: t.field({ type: [Checkpoint], resolve: (row) => row.checkpoints }),
    /** How many outages list it; such a procedure cannot be deleted. */
    outageCount: t.exposeInt('outageCount'),
  }),
});

const OutageProcedure = builder.objectRef<{ priority: number; procedure: ProcedureRow }>('outage_procedures').implement({
  fields: (t) => ({
    priority: t.exposeInt('priority'),
    procedure: t.field({ type: RepairProcedure, resolve: (row) => row.procedure }),
  }),
});

builder.objectField(GearboxModel, 'repairProcedures', (t) =>
  t.field({ type: [RepairProcedure], resolve: (row, _args, context) => context.services.repairProcedures.listOf(row.id) }),
);

builder.objectField(OutageType, 'procedures', (t) =>
  t.field({ type: [OutageProcedure], resolve: (row, _args, context) => context.services.repairProcedures.ofOutage(row.id) }),
);

builder.queryField('repairProcedure', (t) =>
  t.field({
    type: RepairProcedure,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.repairProcedures.get(id)) ?? null,
  }),
);

const CheckpointInput = builder.inputType('procedure_checkpoints_input', {
  fields: (t) => ({ id: t.field({ type: 'uuid' }), name: t.string({ required: true }), description: t.string() }),
});

export const ProcedureInput = builder.inputType('repair_procedures_input', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    steps: t.stringList({ required: true }),
    checkpoints: t.field({ type: [CheckpointInput], required: true }),
  }),
});

/** Checkpoints come as input objects whose absent fields are null: zod wants them absent. */
export const procedureOf = (object: unknown) => {
  const value = object as { checkpoints?: Record<string, unknown>[] };
  return parse(
    procedureSchema,
    { ...value, checkpoints: value.checkpoints?.map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== null && v !== undefined))) },
    'object',
  );
};

builder.mutationField('insertRepairProcedure', (t) =>
  t.field({
    type: 'uuid',
    args: { gearboxModelId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: ProcedureInput, required: true }) },
    resolve: (_root, args, context) => context.services.repairProcedures.insert(args.gearboxModelId, procedureOf(args.object)),
  }),
);

builder.mutationField('updateRepairProcedure', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: ProcedureInput, required: true }) },
    resolve: (_root, args, context) => context.services.repairProcedures.update(args.id, procedureOf(args.object)),
  }),
);

builder.mutationField('deleteRepairProcedure', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.repairProcedures.remove(id)).id,
  }),
);

/** The outage's procedures, whole and in priority order: first applied first. */
builder.mutationField('setOutageProcedures', (t) =>
  t.field({
    type: 'uuid',
    args: { outageId: t.arg({ type: 'uuid', required: true }), procedureIds: t.arg({ type: ['uuid'], required: true }) },
    resolve: (_root, args, context) =>
      context.services.repairProcedures.setOutageProcedures(
        args.outageId,
        parse(outageProceduresSchema, { procedureIds: args.procedureIds }, 'object').procedureIds,
      ),
  }),
);
