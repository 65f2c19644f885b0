// The symptoms and conditions base: read by every signed-in role (the pickers), kept by
// admins and diagnosticians; the lists are also live.
import { baseItemSchema, baseKinds, type BaseKind } from '#lib/base/base.ts';
import type { baseItems } from '#server/db/schema/index.ts';
import { builder } from './builder.ts';
import { parse } from './inputs.ts';
import { live } from './live.ts';

type BaseRow = typeof baseItems.$inferSelect;

const BaseKindEnum = builder.enumType('base_kind', { values: baseKinds });

const BaseItem = builder.objectRef<BaseRow>('base_items').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    kind: t.field({ type: BaseKindEnum, resolve: (row) => row.kind as BaseKind }),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'timestamptz' }),
  }),
});

// The service cuts the search to its length.
const searchOf = (search: string | null | undefined) => search ?? '';

builder.queryField('baseItems', (t) =>
  t.field({
    type: [BaseItem],
    args: { kind: t.arg({ type: BaseKindEnum, required: true }), search: t.arg.string() },
    resolve: (_root, args, context) => context.services.base.list(args.kind, searchOf(args.search)),
  }),
);

builder.subscriptionField('baseItems', (t) =>
  t.field({
    type: [BaseItem],
    args: { kind: t.arg({ type: BaseKindEnum, required: true }), search: t.arg.string() },
    subscribe: (_root, args, context) => {
      const list = context.services.base.list;
      return live(context, ['public.base_items'], `baseItems:${args.kind}:${args.search ?? ''}`, () => list(args.kind, searchOf(args.search)));
    },
    resolve: (rows: BaseRow[]) => rows,
  }),
);

builder.mutationField('insertBaseItem', (t) =>
  t.field({
    type: BaseItem,
    args: { kind: t.arg({ type: BaseKindEnum, required: true }), name: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => {
      const insert = context.services.base.insert;
      return insert(args.kind, parse(baseItemSchema, { name: args.name }, 'object').name);
    },
  }),
);

builder.mutationField('updateBaseItem', (t) =>
  t.field({
    type: BaseItem,
    args: { id: t.arg({ type: 'uuid', required: true }), name: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => {
      const rename = context.services.base.rename;
      return rename(args.id, parse(baseItemSchema, { name: args.name }, 'object').name);
    },
  }),
);

builder.mutationField('deleteBaseItem', (t) =>
  t.field({
    type: BaseItem,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, args, context) => context.services.base.remove(args.id),
  }),
);
