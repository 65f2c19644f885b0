// The audit trail through the API (decision 034): read only, no mutation touches an event.
// An order's and a dossier's activity are read by whoever reads them (every role); a stock
// item's by those who keep the stock; a user's (what they did, what was done to their account)
// by admins only, as the users screen. The actor's e-mail is given only to those who may manage
// users (others read staff accounts nowhere else either).
import { auditActions, type AuditAction, type AuditChange, type AuditEventView } from '#lib/audit/audit.ts';
import type { AuditFilter } from '#server/audit/service.ts';
import { builder } from './builder.ts';
import { limitError, offsetError, validationError } from './errors.ts';
import { t } from '#lib/i18n.ts';

const MAX_LIMIT = 500;

const Action = builder.enumType('audit_action', { values: auditActions });

const Change = builder.objectRef<AuditChange>('audit_changes').implement({
  fields: (t) => ({
    field: t.exposeString('field'),
    before: t.exposeString('before'),
    after: t.exposeString('after'),
  }),
});

const Event = builder.objectRef<AuditEventView>('audit_events').implement({
  fields: (t) => ({
    id: t.string({ resolve: (e) => String(e.id) }),
    at: t.expose('at', { type: 'timestamptz' }),
    actorId: t.expose('actorId', { type: 'uuid', nullable: true }),
    actorName: t.exposeString('actorName'),
    actorEmail: t.string({
      nullable: true,
      description: 'Only for those who may manage users; null for every other role.',
      resolve: (e) => e.actorEmail,
    }),
    action: t.field({ type: Action, resolve: (e) => e.action as AuditAction }),
    entityKind: t.exposeString('entityKind'),
    entityId: t.expose('entityId', { type: 'uuid' }),
    entityLabel: t.exposeString('entityLabel'),
    parentKind: t.exposeString('parentKind'),
    parentId: t.expose('parentId', { type: 'uuid' }),
    parentLabel: t.exposeString('parentLabel'),
    // Read from the event's own row: no query, no cost (builder.ts).
    changes: t.field({ type: [Change], complexity: 0, resolve: (e) => e.changes }),
  }),
});

const Scope = builder.inputType('audit_scope', {
  description: 'Exactly one: an order, a dossier (gearbox model), a stock item, or a user (admins).',
  fields: (t) => ({
    repairOrderId: t.field({ type: 'uuid' }),
    gearboxModelId: t.field({ type: 'uuid' }),
    stockItemId: t.field({ type: 'uuid' }),
    userId: t.field({ type: 'uuid' }),
  }),
});

type ScopeInput = { repairOrderId?: string | null; gearboxModelId?: string | null; stockItemId?: string | null; userId?: string | null };

/** The `before` of a page of activity: an event's id. */
const badBefore = () => validationError({ before: t('refusals.eventIdExpected') });

/** The filter the scope names; the audit service decides whether the viewer may read it. */
function filterOf(scope: ScopeInput, action: AuditAction | null | undefined): AuditFilter {
  const given = Object.entries(scope).filter(([, v]) => v);
  if (given.length !== 1) throw validationError({ scope: t('refusals.oneScope') });
  const base = { action: action ?? null };
  if (scope.repairOrderId) return { ...base, parentKind: 'repair_order', parentId: scope.repairOrderId };
  if (scope.gearboxModelId) return { ...base, parentKind: 'gearbox_model', parentId: scope.gearboxModelId };
  if (scope.stockItemId) return { ...base, parentKind: 'stock_item', parentId: scope.stockItemId };
  return { ...base, userId: scope.userId! };
}

const Aggregate = builder.objectRef<{ count: number }>('audit_events_aggregate_fields').implement({
  fields: (t) => ({ count: t.exposeInt('count') }),
});
const AggregateOf = builder.objectRef<{ aggregate: { count: number } }>('audit_events_aggregate').implement({
  fields: (t) => ({ aggregate: t.field({ type: Aggregate, resolve: (r) => r.aggregate }) }),
});

builder.queryField('auditEvents', (t) =>
  t.field({
    type: [Event],
    description:
      'Newest first. `before` (an event id) gives the events after it in that order: an export pages with it, unaffected by events recorded meanwhile.',
    args: {
      scope: t.arg({ type: Scope, required: true }),
      action: t.arg({ type: Action }),
      limit: t.arg.int(),
      offset: t.arg.int(),
      before: t.arg.string(),
    },
    resolve: (_root, args, context) => {
      const list = context.services.audit.list;
      const limit = args.limit ?? 50;
      if (limit < 0 || limit > MAX_LIMIT) throw limitError(MAX_LIMIT);
      if ((args.offset ?? 0) < 0) throw offsetError();
      if (args.before != null && !/^\d{1,18}$/.test(args.before)) throw badBefore();
      return list({ ...filterOf(args.scope, args.action), limit, offset: args.offset ?? 0, before: args.before ?? null });
    },
  }),
);

builder.queryField('auditEventsAggregate', (t) =>
  t.field({
    type: AggregateOf,
    args: { scope: t.arg({ type: Scope, required: true }), action: t.arg({ type: Action }) },
    resolve: async (_root, args, context) => ({ aggregate: { count: await context.services.audit.count(filterOf(args.scope, args.action)) } }),
  }),
);
