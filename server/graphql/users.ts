// Users with hasura-auth's operation names (ARCHITECTURE.md): users, usersAggregate, user,
// insertUser, updateUser, deleteUser; users and usersAggregate also as live subscriptions.
import { z } from 'zod';
import { can } from '#lib/permissions.ts';
import { userSchema } from '#lib/users/users.ts';
import type { UserRow, UsersOrderBy, UsersWhere } from '#server/users/service.ts';
import { builder, OrderBy, requireCapability, type GraphQLContext } from './builder.ts';
import { forbidden, limitError, notFound, offsetError, validationError } from './errors.ts';
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

builder.queryField('users', (t) =>
  t.field({ type: [User], args: listArgs(t), authScopes: { capability: 'manageUsers' }, resolve: (_root, args, context) => listUsers(context, args) }),
);

builder.queryField('usersAggregate', (t) =>
  t.field({ type: UsersAggregate, args: listArgs(t), authScopes: { capability: 'manageUsers' }, resolve: (_root, args, context) => countUsers(context, args) }),
);

builder.queryField('user', (t) =>
  t.field({
    type: User,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    authScopes: { signedIn: true },
    resolve: async (_root, { id }, context) => {
      if (id !== context.viewer!.id && !can(context.viewer!.role, 'manageUsers')) throw forbidden();
      return (await context.services.users.get(id)) ?? null;
    },
  }),
);

builder.mutationField('insertUser', (t) =>
  t.field({
    type: User,
    args: { object: t.arg({ type: UsersInsertInput, required: true }) },
    authScopes: { capability: 'manageUsers' },
    resolve: async (_root, { object }, context) => {
      const input = parse(insertSchema, object, 'object');
      const { users, auth } = context.services;
      // Step-up: a new account is a new way in, as a role change is.
      await auth.requireElevatedSession(context.viewer!.sessionId, context.viewer!.id);
      const row = await users.insert(input);
      try {
        await auth.sendSetPasswordEmail(row.id);
      } catch (error) {
        // No half-made account: without its e-mail nobody could ever use it.
        await users.remove({ id: context.viewer!.id, role: context.viewer!.role }, row.id).catch(() => undefined);
        throw error;
      }
      return row;
    },
  }),
);

builder.mutationField('updateUser', (t) =>
  t.field({
    type: User,
    nullable: true,
    args: { pk_columns: t.arg({ type: UsersPkColumns, required: true }), _set: t.arg({ type: UsersSetInput, required: true }) },
    authScopes: { signedIn: true },
    resolve: async (_root, args, context) => {
      const viewer = context.viewer!;
      const { email, ...set } = parse(setSchema, args._set, '_set');
      const id = args.pk_columns.id;
      const { users, auth } = context.services;
      const manager = can(viewer.role, 'manageUsers');
      const own = id === viewer.id;
      // One's own new address is a way in (decision 048): refused in the auth routes' order, a
      // token's sign-in first (whatever its role), then the role, then the proof, and only then
      // whether the address is free (a token holder never learns which addresses have an account).
      const mine = own ? await users.get(id) : undefined;
      if (own && email && email.toLowerCase() !== mine?.email) await auth.refusePatSession(viewer.sessionId, viewer.id);
      // Everyone else: their own name and e-mail, and not the mechanics (SPEC §2.5).
      const ownProfile = own && set.defaultRole === undefined && set.disabled === undefined;
      if (!manager && (!ownProfile || !can(viewer.role, 'editOwnProfile'))) throw forbidden();
      const current = mine ?? (await users.get(id));
      if (!current) throw notFound();
      // A new address is only asked for here: it takes effect from the link sent to it.
      const newEmail = email && email.toLowerCase() !== current.email ? email : undefined;
      // Step-up (issue 18, item 7): an admin with a second factor proves it again before changing
      // a role, enabling or disabling an account, or another user's address (its link signs in).
      const roleChanged = set.defaultRole !== undefined && set.defaultRole !== current.defaultRole;
      const statusChanged = set.disabled !== undefined && set.disabled !== current.disabled;
      if (manager && (roleChanged || statusChanged || (newEmail && !own))) await auth.requireElevatedSession(viewer.sessionId, viewer.id);
      // One's own address: the account's strongest factor first (decision 048).
      if (newEmail && own) await auth.requireProofSession(viewer.sessionId, viewer.id);
      if (newEmail) await users.assertEmailFree(newEmail, id);
      const row = manager ? await users.update(viewer, id, set) : await users.updateProfile(viewer, { displayName: set.displayName ?? current.displayName });
      if (!newEmail) return row;
      await auth.changeEmail(id, newEmail, undefined, { ip: `user:${viewer.id}` });
      return (await users.get(id)) ?? null;
    },
  }),
);

builder.mutationField('deleteUser', (t) =>
  t.field({
    type: User,
    nullable: true,
    args: { id: t.arg({ type: 'uuid', required: true }) },
    authScopes: { capability: 'manageUsers' },
    resolve: async (_root, { id }, context) => {
      const viewer = context.viewer!;
      await context.services.auth.requireElevatedSession(viewer.sessionId, viewer.id);
      return context.services.users.remove(viewer, id);
    },
  }),
);

builder.mutationField('signOutUser', (t) =>
  t.boolean({
    description: 'Ends every sign-in of the account, on every device: pages, API tokens and live subscriptions.',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    authScopes: { capability: 'manageUsers' },
    resolve: async (_root, { id }, context) => {
      if (!(await context.services.users.get(id))) throw notFound();
      await context.services.auth.endSessions(id);
      return true;
    },
  }),
);

builder.mutationField('sendVerificationEmail', (t) =>
  t.boolean({
    description: 'Sends the account e-mail again: "set your password" while it has none, else the verification.',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    authScopes: { capability: 'manageUsers' },
    resolve: async (_root, { id }, context) => {
      const user = await context.services.users.get(id);
      if (!user) throw notFound();
      await context.services.auth.resendAccountEmail(user.id);
      return true;
    },
  }),
);

builder.subscriptionField('users', (t) =>
  t.field({
    type: [User],
    args: listArgs(t as never),
    subscribe: (_root, args, context) => {
      requireCapability(context, 'manageUsers');
      const input = listInput(args);
      return live(context, ['auth.users'], `users:${JSON.stringify(input)}`, () => context.services.users.list(input));
    },
    resolve: (rows: UserRow[]) => rows,
  }),
);

builder.subscriptionField('usersAggregate', (t) =>
  t.field({
    type: UsersAggregate,
    args: listArgs(t as never),
    subscribe: (_root, args, context) => {
      requireCapability(context, 'manageUsers');
      const where = listInput(args).where;
      return live(context, ['auth.users'], `usersAggregate:${JSON.stringify(where ?? null)}`, async () => ({
        count: await context.services.users.count(where),
      }));
    },
    resolve: (value: { count: number }) => value,
  }),
);
