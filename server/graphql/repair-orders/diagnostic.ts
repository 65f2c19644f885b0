// The diagnostic steps of an order (SPEC §2.7, §4): the ranked outage candidates, the outages and
// procedures chosen, the steps, validation; and the diagnostic page's start guide preference.
// Read by every role (the mechanics follow the validated procedures); written by A and D.
import type { OutageCandidate } from '#server/repair-orders/diagnostic.ts';
import { builder, RANKING_COST } from '#server/graphql/builder.ts';
import { OutageType } from '#server/graphql/gearboxes.ts';
import { outageChoiceSchema, procedureChoiceSchema } from '#lib/repair-orders/diagnostic-page.ts';
import { parse } from '#server/graphql/inputs.ts';
import { ProcedureInput, procedureOf, RepairProcedure } from '#server/graphql/procedures.ts';
import { RepairOrder } from './index.ts';

type ProcedureLink = Awaited<ReturnType<import('#server/repair-orders/diagnostic.ts').DiagnosticService['proceduresOf']>>[number];

const Candidate = builder.objectRef<OutageCandidate>('outage_candidates').implement({
  fields: (t) => ({
    outage: t.field({ type: OutageType, resolve: (row) => row.outage }),
    similarOrders: t.exposeInt('similarOrders'),
    confirmedOrders: t.exposeInt('confirmedOrders'),
    dossierRate: t.exposeInt('dossierRate', { nullable: true }),
    chosen: t.exposeBoolean('chosen'),
  }),
});

export const OrderProcedure = builder.objectRef<ProcedureLink>('order_procedures').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    position: t.exposeInt('position'),
    outageId: t.expose('outageId', { type: 'uuid', nullable: true }),
    /** As validated (the dossier's procedure may change afterwards); the dossier's before. */
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    steps: t.exposeStringList('steps'),
    procedure: t.field({ type: RepairProcedure, resolve: (row) => row.procedure }),
  }),
});

builder.objectField(RepairOrder, 'outageCandidates', (t) =>
  // The ranking compares the order with every closed order of its model: the costliest field.
  t.field({
    type: [Candidate],
    complexity: { field: RANKING_COST, multiplier: 10 },
    resolve: (row, _args, context) => context.services.diagnostic.candidatesOf(row.id),
  }),
);
builder.objectField(RepairOrder, 'chosenOutages', (t) =>
  t.field({
    type: [OutageType],
    resolve: (row, _args, context) => context.services.diagnostic.chosenOutagesOf(row.id),
  }),
);
builder.objectField(RepairOrder, 'procedures', (t) =>
  t.field({ type: [OrderProcedure], resolve: (row, _args, context) => context.services.diagnostic.proceduresOf(row.id) }),
);

const ProcedureChoice = builder.inputType('order_procedures_input', {
  fields: (t) => ({ procedureId: t.field({ type: 'uuid', required: true }), outageId: t.field({ type: 'uuid' }) }),
});

builder.mutationField('chooseOrderOutages', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), outageIds: t.arg({ type: ['uuid'], required: true }) },
    resolve: (_root, args, context) =>
      context.services.diagnostic.chooseOutages(args.repairOrderId, parse(outageChoiceSchema, { outageIds: args.outageIds }, '').outageIds),
  }),
);

builder.mutationField('chooseOrderProcedures', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), procedures: t.arg({ type: [ProcedureChoice], required: true }) },
    resolve: (_root, args, context) =>
      context.services.diagnostic.chooseProcedures(args.repairOrderId, parse(procedureChoiceSchema, { procedures: args.procedures }, '').procedures),
  }),
);

builder.mutationField('addOrderProcedure', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), procedureId: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, args, context) => context.services.diagnostic.addProcedure(args.repairOrderId, args.procedureId),
  }),
);

builder.mutationField('addNewOrderProcedure', (t) =>
  t.field({
    type: 'uuid',
    description: "A procedure written for the order: it joins the model's dossier and the order in one transaction.",
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }), object: t.arg({ type: ProcedureInput, required: true }) },
    resolve: (_root, args, context) => context.services.diagnostic.addNewProcedure(args.repairOrderId, procedureOf(args.object)),
  }),
);

for (const [name, run] of [
  ['markProceduresVisualised', 'markVisualised'],
  ['reopenDiagnostic', 'reopen'],
] as const) {
  builder.mutationField(name, (t) =>
    t.field({
      type: 'uuid',
      args: { repairOrderId: t.arg({ type: 'uuid', required: true }) },
      resolve: (_root, args, context) => context.services.diagnostic[run](args.repairOrderId),
    }),
  );
}

builder.mutationField('validateDiagnostic', (t) =>
  t.field({
    type: 'uuid',
    args: { repairOrderId: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, args, context) => context.services.diagnostic.validate(args.repairOrderId),
  }),
);

builder.queryField('diagnosticGuideHidden', (t) => t.boolean({ resolve: (_root, _args, context) => context.services.diagnostic.guideHidden() }));

builder.mutationField('setDiagnosticGuideHidden', (t) =>
  t.boolean({
    args: { hidden: t.arg.boolean({ required: true }) },
    resolve: (_root, args, context) => context.services.diagnostic.setGuideHidden(args.hidden),
  }),
);
