// The symptoms of a repair order and their appearance conditions (SPEC §2.7 diagnostic): read by
// all, written by admins and diagnosticians.
import { symptomSchema, temporalities } from '../../src/lib/diagnostic.ts';
import type { SymptomsService } from '../repair-orders/symptoms.ts';
import { builder } from './builder.ts';
import { fromService, parse } from './inputs.ts';
import { ErrorCodeRef, RepairOrder, Temporality } from './repair-orders.ts';

type SymptomRow = Awaited<ReturnType<SymptomsService['symptomsOf']>>[number];

const SymptomItem = builder.objectRef<SymptomRow['symptom']>('order_symptom_items').implement({
  fields: (t) => ({ id: t.expose('id', { type: 'uuid' }), name: t.exposeString('name') }),
});

const OrderSymptom = builder.objectRef<SymptomRow>('order_symptoms').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    symptom: t.field({ type: SymptomItem, resolve: (row) => row.symptom }),
    errorCode: t.field({ type: ErrorCodeRef, nullable: true, resolve: (row) => row.errorCode ?? null }),
    temporality: t.field({ type: Temporality, nullable: true, resolve: (row) => (row.temporality as (typeof temporalities)[number] | null) ?? null }),
    acceleratorLoad: t.exposeString('acceleratorLoad'),
    bvaMode: t.exposeString('bvaMode'),
    gear: t.exposeString('gear'),
    action: t.exposeString('action'),
    otherCondition: t.exposeString('otherCondition'),
    comment: t.exposeString('comment'),
  }),
});

builder.objectField(RepairOrder, 'symptoms', (t) =>
  t.field({ type: [OrderSymptom], authScopes: { signedIn: true }, resolve: (row, _args, context) => context.services.symptoms.symptomsOf(row.id) }),
);

const SymptomInput = builder.inputType('order_symptoms_input', {
  fields: (t) => ({
    symptom: t.string({ required: true }),
    errorCode: t.string(),
    temporality: t.field({ type: Temporality }),
    acceleratorLoad: t.string(),
    bvaMode: t.string(),
    gear: t.string(),
    action: t.string(),
    otherCondition: t.string(),
    comment: t.string(),
  }),
});

builder.mutationField('insertOrderSymptom', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: SymptomInput, required: true }) },
    authScopes: { capability: 'manageOrders' },
    resolve: (_root, args, context) => context.services.symptoms.insertSymptom(args.repairOrderId, parse(symptomSchema, args.object, 'object')).catch(fromService),
  }),
);

builder.mutationField('updateOrderSymptom', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: SymptomInput, required: true }) },
    authScopes: { capability: 'manageOrders' },
    resolve: (_root, args, context) => context.services.symptoms.updateSymptom(args.id, parse(symptomSchema, args.object, 'object')).catch(fromService),
  }),
);

builder.mutationField('deleteOrderSymptom', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    authScopes: { capability: 'manageOrders' },
    resolve: (_root, { id }, context) => context.services.symptoms.removeSymptom(id).catch(fromService),
  }),
);
