// Accounts as the application manages them: the profile menu and the users screen.
import { and, asc, count, desc, eq, ilike, inArray, ne, not, or, sql, type SQL } from 'drizzle-orm';
import { can } from '#lib/permissions.ts';
import type { Role } from '#lib/roles.ts';
import type { Db } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { endSessions } from '#server/auth/sessions.ts';
import { conflict, notFound } from '#server/errors.ts';
import type { AuthService } from '#server/auth/service.ts';
import type { Viewer } from '#server/auth/viewer.ts';
import { type PermissionTable, requirePermission } from '#server/access.ts';
import { t } from '#lib/i18n.ts';
import { record } from '#server/audit/record.ts';
import { userChanges, userRef } from '#server/audit/refs.ts';

export type UsersService = ReturnType<typeof createUsersService>;
export type UserRow = typeof users.$inferSelect;

// GraphQL hands absent input fields over as null or undefined alike.
type Comparison<T> = { _eq?: T | null; _neq?: T | null; _in?: T[] | null; _ilike?: string | null };
/** Hasura's users_bool_exp, on the fields the screens filter by. */
export type UsersWhere = {
  _and?: UsersWhere[] | null;
  _or?: UsersWhere[] | null;
  _not?: UsersWhere | null;
  id?: Comparison<string> | null;
  email?: Comparison<string> | null;
  displayName?: Comparison<string> | null;
  defaultRole?: Comparison<string> | null;
  disabled?: Comparison<boolean> | null;
  emailVerified?: Comparison<boolean> | null;
};
export type UsersOrderBy = Partial<Record<'createdAt' | 'displayName' | 'email', 'asc' | 'desc' | null>>;

const columns = {
  id: users.id,
  email: users.email,
  displayName: users.displayName,
  defaultRole: users.defaultRole,
  disabled: users.disabled,
  emailVerified: users.emailVerified,
  createdAt: users.createdAt,
} as const;

export function whereOf(exp: UsersWhere | undefined): SQL | undefined {
  if (!exp) return undefined;
  const parts: (SQL | undefined)[] = [];
  for (const [key, value] of Object.entries(exp)) {
    if (value === undefined || value === null) continue;
    if (key === '_and') parts.push(and(...(value as UsersWhere[]).map(whereOf)));
    else if (key === '_or') parts.push(or(...(value as UsersWhere[]).map(whereOf)));
    else if (key === '_not') {
      const inner = whereOf(value as UsersWhere);
      if (inner) parts.push(not(inner));
    } else {
      // The GraphQL input types restrict each comparison to its column's type.
      const column = columns[key as keyof typeof columns] as typeof users.email;
      const cmp = value as Comparison<string>;
      if (cmp._eq != null) parts.push(eq(column, cmp._eq));
      if (cmp._neq != null) parts.push(ne(column, cmp._neq));
      if (cmp._in != null) parts.push(cmp._in.length ? inArray(column, cmp._in) : sql`false`);
      if (cmp._ilike != null) parts.push(ilike(column, cmp._ilike));
    }
  }
  return parts.length ? and(...parts) : undefined;
}

function orderOf(orderBy: UsersOrderBy[] | undefined): SQL[] {
  const out: SQL[] = [];
  for (const item of orderBy ?? []) {
    for (const [key, direction] of Object.entries(item)) {
      if (!direction) continue;
      const column = columns[key as 'createdAt' | 'displayName' | 'email'];
      // Names in the alphabet's order, not the bytes' («Élodie» beside «eric», not after «Zoé»):
      // ICU's root collation, which PGlite and PostgreSQL 15 and 18 all have.
      const sorted = key === 'displayName' ? sql`${column} collate "und-x-icu"` : column;
      out.push(direction === 'desc' ? desc(sorted) : asc(sorted));
    }
  }
  out.push(asc(users.id)); // a stable order for pages
  return out;
}

const emailTaken = () => conflict('email-already-in-use', t('errors.emailTaken'), { field: 'email' });

export function createUsersService(deps: {
  db: Db;
  auth: Pick<
    AuthService,
    'requireElevatedSession' | 'sendSetPasswordEmail' | 'refusePatSession' | 'requireProofSession' | 'changeEmail' | 'endSessions' | 'resendAccountEmail'
  >;
}) {
  const { db, auth } = deps;

  const get = async (id: string) => (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];

  async function assertEmailFree(email: string, exceptId?: string) {
    const [taken] = await db
      .select({ id: users.id })
      .from(users)
      .where(exceptId ? and(eq(users.email, email), ne(users.id, exceptId)) : eq(users.email, email))
      .limit(1);
    if (taken) throw emailTaken();
  }

  const adminCount = async (exceptId: string) =>
    (
      await db
        .select({ n: count() })
        .from(users)
        .where(and(eq(users.defaultRole, 'app_admin'), eq(users.disabled, false), ne(users.id, exceptId)))
    )[0]!.n;

  /** The account of `id`, refused as not found when there is none. */
  const existing = async (id: string) => {
    const user = await get(id);
    if (!user) throw notFound(t('refusals.userNotFound'));
    return user;
  };

  const removeRow = async (actor: Viewer, id: string) => {
    const current = await existing(id);
    if (id === actor.id) throw conflict('own-account', t('refusals.ownAccount'));
    if (current.defaultRole === 'app_admin' && (await adminCount(id)) === 0) {
      throw conflict('last-admin', t('refusals.lastAdmin'));
    }
    await db.transaction(async (tx) => {
      await record(tx, { action: 'deleted', entity: userRef(current) });
      await tx.delete(users).where(eq(users.id, id));
    });
    return current;
  };

  /** An account by its id: one's own, or any for whoever manages the users. */
  async function getFor(viewer: Viewer, id: string) {
    if (id !== viewer.id) requirePermission(viewer, 'manageUsers');
    return get(id);
  }

  /** The user's name, from the profile menu; not for mechanics (SPEC §2.5). */
  async function updateProfile(actor: Viewer, input: { displayName: string }) {
    return db.transaction(async (tx) => {
      const [before] = await tx.select().from(users).where(eq(users.id, actor.id)).for('update');
      if (!before) throw notFound(t('refusals.userNotFound'));
      const [row] = await tx.update(users).set({ displayName: input.displayName, updatedAt: new Date() }).where(eq(users.id, actor.id)).returning();
      const changes = userChanges(before, row!);
      if (changes.length) await record(tx, { action: 'changed', entity: userRef(before), changes });
      return row!;
    });
  }

  /**
   * An admin's changes to an account; an admin cannot lock the last admin out. Disabling
   * ends every sign-in for good: enabling the account again does not bring them back.
   */
  async function updateAccount(actor: Viewer, id: string, set: { displayName?: string; defaultRole?: Role; disabled?: boolean }) {
    const current = await existing(id);
    const losesAdmin = current.defaultRole === 'app_admin' && ((set.defaultRole && set.defaultRole !== 'app_admin') || set.disabled === true);
    if (losesAdmin && id === actor.id) throw conflict('own-admin-rights', t('refusals.ownAdminRights'));
    if (losesAdmin && (await adminCount(id)) === 0) throw conflict('last-admin', t('refusals.lastAdmin'));
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(users)
        .set({ ...set, updatedAt: new Date() })
        .where(eq(users.id, id))
        .returning();
      if (set.disabled) await endSessions(tx, id);
      const changes = userChanges(current, row!);
      if (changes.length) await record(tx, { action: 'changed', entity: userRef(current), changes });
      return row!;
    });
  }

  const service = {
    get: getFor,

    // Anonymous accounts (decision 030) are not the workshop's users: the users screen lists the registered ones.
    list: (_viewer: Viewer, input: { where?: UsersWhere; orderBy?: UsersOrderBy[]; limit?: number; offset?: number }) =>
      db
        .select()
        .from(users)
        .where(and(eq(users.isAnonymous, false), whereOf(input.where)))
        .orderBy(...orderOf(input.orderBy))
        .limit(input.limit ?? 100)
        .offset(input.offset ?? 0),

    /** One page of the users screen, the fields it shows, and the count of what `where` selects: one read while the page has rows. */
    page: async (viewer: Viewer, input: { where?: UsersWhere; orderBy?: UsersOrderBy[]; limit: number; offset: number }) => {
      const rows = await db
        .select({
          id: users.id,
          displayName: users.displayName,
          email: users.email,
          defaultRole: users.defaultRole,
          disabled: users.disabled,
          emailVerified: users.emailVerified,
          total: sql<number>`count(*) over ()`.mapWith(Number),
        })
        .from(users)
        .where(and(eq(users.isAnonymous, false), whereOf(input.where)))
        .orderBy(...orderOf(input.orderBy))
        .limit(input.limit)
        .offset(input.offset);
      // A page past the last: how many there are.
      const total = rows[0]?.total ?? (input.offset > 0 ? await service.count(viewer, input.where) : 0);
      return { rows: rows.map(({ total: _total, ...row }) => row), total };
    },

    count: async (_viewer: Viewer, where?: UsersWhere) =>
      (
        await db
          .select({ n: count() })
          .from(users)
          .where(and(eq(users.isAnonymous, false), whereOf(where)))
      )[0]!.n,

    /** A new account without a password: its owner chooses one from the e-mail, sent now. */
    async insert(actor: Viewer, input: { email: string; displayName: string; defaultRole: Role; locale?: string }) {
      // Step-up: a new account is a new way in, as a role change is.
      await auth.requireElevatedSession(actor.sessionId, actor.id);
      const email = input.email.toLowerCase();
      await assertEmailFree(email);
      const row = await db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(users)
          .values({ email, displayName: input.displayName, defaultRole: input.defaultRole, locale: input.locale ?? 'fr' })
          .onConflictDoNothing()
          .returning();
        if (inserted) await record(tx, { action: 'created', entity: userRef(inserted), changes: userChanges(null, inserted) });
        return inserted;
      });
      if (!row) throw emailTaken();
      try {
        await auth.sendSetPasswordEmail(row.id);
      } catch (error) {
        // No half-made account: without its e-mail nobody could ever use it.
        await removeRow(actor, row.id).catch(() => undefined);
        throw error;
      }
      return row;
    },

    /**
     * One's own name and e-mail (not the mechanics', SPEC §2.5), or an admin's changes to any
     * account. A new address is only asked for here: it takes effect from the link sent to it.
     */
    async update(viewer: Viewer, id: string, input: { email?: string; displayName?: string; defaultRole?: Role; disabled?: boolean }) {
      const { email, ...set } = input;
      const manager = can(viewer.role, 'manageUsers');
      const own = id === viewer.id;
      // One's own new address is a way in (decision 048): refused in the auth routes' order, a
      // token's sign-in first (whatever its role), then the role, then the proof, and only then
      // whether the address is free (a token holder never learns which addresses have an account).
      const mine = own ? await get(id) : undefined;
      if (own && email && email.toLowerCase() !== mine?.email) await auth.refusePatSession(viewer.sessionId, viewer.id);
      const ownProfile = own && set.defaultRole === undefined && set.disabled === undefined;
      if (!manager) requirePermission(viewer, ownProfile ? 'editOwnProfile' : 'manageUsers');
      const current = mine ?? (await existing(id));
      const newEmail = email && email.toLowerCase() !== current.email ? email : undefined;
      // Step-up (issue 18, item 7): an admin with a second factor proves it again before changing
      // a role, enabling or disabling an account, or another user's address (its link signs in).
      const roleChanged = set.defaultRole !== undefined && set.defaultRole !== current.defaultRole;
      const statusChanged = set.disabled !== undefined && set.disabled !== current.disabled;
      if (manager && (roleChanged || statusChanged || (newEmail && !own))) await auth.requireElevatedSession(viewer.sessionId, viewer.id);
      // One's own address: the account's strongest factor first (decision 048).
      if (newEmail && own) await auth.requireProofSession(viewer.sessionId, viewer.id);
      if (newEmail) await assertEmailFree(newEmail.toLowerCase(), id);
      const row = manager ? await updateAccount(viewer, id, set) : await updateProfile(viewer, { displayName: set.displayName ?? current.displayName });
      if (!newEmail) return row;
      await auth.changeEmail(id, newEmail, undefined, { ip: `user:${viewer.id}` });
      return (await get(id)) ?? null;
    },

    /** An admin deletes an account, after proving it again; never their own, never the last admin. */
    async remove(actor: Viewer, id: string) {
      await auth.requireElevatedSession(actor.sessionId, actor.id);
      return removeRow(actor, id);
    },

    /** Ends every sign-in of the account, on every device: pages, API tokens and live subscriptions. */
    async signOut(_viewer: Viewer, id: string) {
      await auth.endSessions((await existing(id)).id);
      return true;
    },

    /** Sends the account e-mail again: "set your password" while it has none, else the verification. */
    async resendAccountEmail(_viewer: Viewer, id: string) {
      await auth.resendAccountEmail((await existing(id)).id);
      return true;
    },
  };
  return service;
}

/** Who may call what (decision 061): the users screen is the admins'; one's own account is everyone's. */
export const usersPermissions = {
  get: 'signedIn',
  list: 'manageUsers',
  page: 'manageUsers',
  count: 'manageUsers',
  insert: 'manageUsers',
  update: 'signedIn',
  remove: 'manageUsers',
  signOut: 'manageUsers',
  resendAccountEmail: 'manageUsers',
} as const satisfies PermissionTable<UsersService>;
