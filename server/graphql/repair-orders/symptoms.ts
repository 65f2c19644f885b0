// The symptoms of a repair order and their appearance conditions (SPEC §2.7 diagnostic): read by
// all, written by admins and diagnosticians.
import { symptomSchema } from '#lib/repair-orders/symptoms.ts';
import type { SymptomsService } from '#server/repair-orders/symptoms.ts';
import { builder } from '#server/graphql/builder.ts';
import { parse } from '#server/graphql/inputs.ts';
import { AppearanceConditions, conditionInputFields, ErrorCodeRef, RepairOrder } from './index.ts';

type SymptomRow = Awaited<ReturnType<SymptomsService['symptomsOf']>>[number];

const SymptomItem = builder.objectRef<SymptomRow['symptom']>('order_symptom_items').implement({
  fields: (t) => ({ id: t.expose('id', { type: 'uuid' }), name: t.exposeString('name') }),
});

const OrderSymptom = builder.objectRef<SymptomRow>('order_symptoms').implement({
  interfaces: [AppearanceConditions],
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    symptom: t.field({ type: SymptomItem, resolve: (row) => row.symptom }),
    errorCode: t.field({ type: ErrorCodeRef, nullable: true, resolve: (row) => row.errorCode ?? null }),
  }),
});

builder.objectField(RepairOrder, 'symptoms', (t) =>
  t.field({ type: [OrderSymptom], resolve: (row, _args, context) => context.services.symptoms.symptomsOf(row.id) }),
);

const SymptomInput = builder.inputType('order_symptoms_input', {
  fields: (t) => ({ symptom: t.string({ required: true }), errorCode: t.string(), ...conditionInputFields(t) }),
});

builder.mutationField('insertOrderSymptom', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: SymptomInput, required: true }) },
    resolve: (_root, args, context) => context.services.symptoms.insertSymptom(args.repairOrderId, parse(symptomSchema, args.object, 'object')),
  }),
);

builder.mutationField('updateOrderSymptom', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: SymptomInput, required: true }) },
    resolve: (_root, args, context) => context.services.symptoms.updateSymptom(args.id, parse(symptomSchema, args.object, 'object')),
  }),
);

builder.mutationField('deleteOrderSymptom', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.symptoms.removeSymptom(id),
  }),
);
