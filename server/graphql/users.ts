// Users with hasura-auth's operation names (ARCHITECTURE.md): users, usersAggregate, user,
// insertUser, updateUser, deleteUser; users and usersAggregate also as live subscriptions.
import { z } from 'zod';
import { userSchema } from '#lib/users/users.ts';
import type { UserRow, UsersOrderBy, UsersWhere } from '#server/users/service.ts';
import { builder, OrderBy, type GraphQLContext } from './builder.ts';
import { limitError, offsetError, validationError } from './errors.ts';
import { parse } from './inputs.ts';
import { live } from './live.ts';
import { t } from '#lib/i18n.ts';

const MAX_LIMIT = 100;
const MAX_FILTER_DEPTH = 5;
const MAX_IN = 100;

const User = builder.objectRef<UserRow>('users').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    createdAt: t.expose('createdAt', { type: 'timestamptz' }),
    updatedAt: t.expose('updatedAt', { type: 'timestamptz' }),
    lastSeen: t.expose('lastSeen', { type: 'timestamptz', nullable: true }),
    displayName: t.exposeString('displayName'),
    /** Null for an account reached by phone only. */
    email: t.exposeString('email', { nullable: true }),
    /** An address asked for and not confirmed yet from its link. */
    newEmail: t.exposeString('newEmail', { nullable: true }),
    emailVerified: t.exposeBoolean('emailVerified'),
    defaultRole: t.exposeString('defaultRole'),
    disabled: t.exposeBoolean('disabled'),
    avatarUrl: t.exposeString('avatarUrl'),
    locale: t.exposeString('locale'),
  }),
});

const StringComparison = builder.inputType('String_comparison_exp', {
  fields: (t) => ({ _eq: t.string(), _neq: t.string(), _in: t.stringList(), _ilike: t.string() }),
});
const UuidComparison = builder.inputType('uuid_comparison_exp', {
  fields: (t) => ({ _eq: t.field({ type: 'uuid' }), _neq: t.field({ type: 'uuid' }), _in: t.field({ type: ['uuid'] }) }),
});
const BooleanComparison = builder.inputType('Boolean_comparison_exp', {
  fields: (t) => ({ _eq: t.boolean(), _neq: t.boolean() }),
});

const UsersBoolExp = builder.inputRef<UsersWhere>('users_bool_exp');
UsersBoolExp.implement({
  fields: (t) => ({
    _and: t.field({ type: [UsersBoolExp] }),
    _or: t.field({ type: [UsersBoolExp] }),
    _not: t.field({ type: UsersBoolExp }),
    id: t.field({ type: UuidComparison }),
    email: t.field({ type: StringComparison }),
    displayName: t.field({ type: StringComparison }),
    defaultRole: t.field({ type: StringComparison }),
    disabled: t.field({ type: BooleanComparison }),
    emailVerified: t.field({ type: BooleanComparison }),
  }),
});

const UsersOrderByInput = builder.inputType('users_order_by', {
  fields: (t) => ({ createdAt: t.field({ type: OrderBy }), displayName: t.field({ type: OrderBy }), email: t.field({ type: OrderBy }) }),
});

const UsersAggregateFields = builder.objectRef<{ count: number }>('users_aggregate_fields').implement({
  fields: (t) => ({ count: t.exposeInt('count') }),
});
const UsersAggregate = builder.objectRef<{ count: number }>('users_aggregate').implement({
  fields: (t) => ({ aggregate: t.field({ type: UsersAggregateFields, resolve: (parent) => parent }) }),
});

const UsersPkColumns = builder.inputType('users_pk_columns_input', { fields: (t) => ({ id: t.field({ type: 'uuid', required: true }) }) });
const UsersSetInput = builder.inputType('users_set_input', {
  fields: (t) => ({ displayName: t.string(), email: t.string(), defaultRole: t.string(), disabled: t.boolean() }),
});
const UsersInsertInput = builder.inputType('users_insert_input', {
  fields: (t) => ({
    email: t.string({ required: true }),
    displayName: t.string({ required: true }),
    defaultRole: t.string({ required: true }),
    locale: t.string(),
  }),
});

// The API's inputs are the users form's schema: the same rules and messages.
const insertSchema = z.strictObject({ ...userSchema.pick({ email: true, displayName: true, defaultRole: true }).shape, locale: z.enum(['fr']).optional() });
const setSchema = z.strictObject(userSchema.partial().shape);

type ListArgs = { where?: UsersWhere | null; order_by?: UsersOrderBy[] | null; limit?: number | null; offset?: number | null };

function checkWhere(where: UsersWhere | null | undefined, depth = 0): void {
  if (!where) return;
  if (depth > MAX_FILTER_DEPTH) throw validationError({ where: t('refusals.filterTooDeep') });
  for (const nested of [...(where._and ?? []), ...(where._or ?? []), ...(where._not ? [where._not] : [])]) checkWhere(nested, depth + 1);
  for (const value of Object.values(where)) {
    const list = (value as { _in?: unknown[] } | null)?._in;
    if (Array.isArray(list) && list.length > MAX_IN) throw validationError({ where: `Maximum ${MAX_IN} valeurs` });
  }
}

function listInput(args: ListArgs) {
  const limit = args.limit ?? MAX_LIMIT;
  if (limit < 0 || limit > MAX_LIMIT) throw limitError(MAX_LIMIT);
  if ((args.offset ?? 0) < 0) throw offsetError();
  checkWhere(args.where);
  return { where: args.where ?? undefined, orderBy: args.order_by ?? undefined, limit, offset: args.offset ?? 0 };
}

const listArgs = (t: Parameters<Parameters<typeof builder.queryField>[1]>[0]) => ({
  where: t.arg({ type: UsersBoolExp }),
  order_by: t.arg({ type: [UsersOrderByInput] }),
  limit: t.arg.int(),
  offset: t.arg.int(),
});

const listUsers = (context: GraphQLContext, args: ListArgs) => context.services.users.list(listInput(args));
const countUsers = async (context: GraphQLContext, args: ListArgs) => ({ count: await context.services.users.count(listInput(args).where) });

builder.queryField('users', (t) => t.field({ type: [User], args: listArgs(t), resolve: (_root, args, context) => listUsers(context, args) }));

builder.queryField('usersAggregate', (t) => t.field({ type: UsersAggregate, args: listArgs(t), resolve: (_root, args, context) => countUsers(context, args) }));

builder.queryField('user', (t) =>
  t.field({
    type: User,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.users.get(id)) ?? null,
  }),
);

builder.mutationField('insertUser', (t) =>
  t.field({
    type: User,
    args: { object: t.arg({ type: UsersInsertInput, required: true }) },
    resolve: (_root, { object }, context) => context.services.users.insert(parse(insertSchema, object, 'object')),
  }),
);

builder.mutationField('updateUser', (t) =>
  t.field({
    type: User,
    nullable: true,
    args: { pk_columns: t.arg({ type: UsersPkColumns, required: true }), _set: t.arg({ type: UsersSetInput, required: true }) },
    resolve: (_root, args, context) => context.services.users.update(args.pk_columns.id, parse(setSchema, args._set, '_set')),
  }),
);

builder.mutationField('deleteUser', (t) =>
  t.field({
    type: User,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.users.remove(id),
  }),
);

builder.mutationField('signOutUser', (t) =>
  t.boolean({
    description: 'Ends every sign-in of the account, on every device: pages, API tokens and live subscriptions.',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.users.signOut(id),
  }),
);

builder.mutationField('sendVerificationEmail', (t) =>
  t.boolean({
    description: 'Sends the account e-mail again: "set your password" while it has none, else the verification.',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: (_root, { id }, context) => context.services.users.resendAccountEmail(id),
  }),
);

builder.subscriptionField('users', (t) =>
  t.field({
    type: [User],
    args: listArgs(t as never),
    subscribe: (_root, args, context) => {
      const list = context.services.users.list;
      const input = listInput(args);
      return live(context, ['auth.users'], `users:${JSON.stringify(input)}`, () => list(input));
    },
    resolve: (rows: UserRow[]) => rows,
  }),
);

builder.subscriptionField('usersAggregate', (t) =>
  t.field({
    type: UsersAggregate,
    args: listArgs(t as never),
    subscribe: (_root, args, context) => {
      const count = context.services.users.count;
      const where = listInput(args).where;
      return live(context, ['auth.users'], `usersAggregate:${JSON.stringify(where ?? null)}`, async () => ({ count: await count(where) }));
    },
    resolve: (value: { count: number }) => value,
  }),
);
