// Measures of a model (SPEC §3): bounds checked by the form's schema.
import { measureSchema } from '#lib/gearboxes/measures.ts';
import type { gearboxMeasures } from '#server/db/schema/index.ts';
import { builder } from './builder.ts';
import { GearboxModel } from './gearboxes.ts';
import { parse } from './inputs.ts';

export const Measure = builder.objectRef<typeof gearboxMeasures.$inferSelect>('gearbox_measures').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    gearboxModelId: t.expose('modelId', { type: 'uuid' }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    unit: t.exposeString('unit'),
    minimum: t.exposeFloat('minimum', { nullable: true }),
    maximum: t.exposeFloat('maximum', { nullable: true }),
  }),
});

builder.objectField(GearboxModel, 'measures', (t) =>
  t.field({ type: [Measure], resolve: (row, _args, context) => context.services.gearboxMeasures.listOf(row.id) }),
);

builder.queryField('gearboxMeasure', (t) =>
  t.field({
    type: Measure,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.gearboxMeasures.get(id)) ?? null,
  }),
);

const MeasureInput = builder.inputType('gearbox_measures_input', {
  fields: (t) => ({ name: t.string({ required: true }), description: t.string(), unit: t.string(), minimum: t.float(), maximum: t.float() }),
});

builder.mutationField('insertGearboxMeasure', (t) =>
  t.field({
    type: Measure,
    args: { gearboxModelId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: MeasureInput, required: true }) },
    resolve: (_root, args, context) => context.services.gearboxMeasures.insert(args.gearboxModelId, parse(measureSchema, args.object, 'object')),
  }),
);

builder.mutationField('updateGearboxMeasure', (t) =>
  t.field({
    type: Measure,
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: MeasureInput, required: true }) },
    resolve: (_root, args, context) => context.services.gearboxMeasures.update(args.id, parse(measureSchema, args.object, 'object')),
  }),
);

builder.mutationField('deleteGearboxMeasure', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    // Its files go with it (the service).
    resolve: async (_root, { id }, context) => (await context.services.gearboxMeasures.remove(id)).id,
  }),
);
