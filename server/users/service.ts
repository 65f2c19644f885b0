// Accounts as the application manages them: the profile menu and the users screen.
import { and, asc, count, desc, eq, ilike, inArray, ne, not, or, sql, type SQL } from 'drizzle-orm';
import { can } from '#lib/permissions.ts';
import { isRole, type Role } from '#lib/roles.ts';
import type { Db } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { endSessions } from '#server/auth/sessions.ts';
import { conflict, DomainError, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { record } from '#server/audit/record.ts';
import { userChanges, userRef } from '#server/audit/refs.ts';

export type UsersService = ReturnType<typeof createUsersService>;
export type UserRow = typeof users.$inferSelect;
export type Actor = { id: string; role: string };

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
      out.push(direction === 'desc' ? desc(column) : asc(column));
    }
  }
  out.push(asc(users.id)); // a stable order for pages
  return out;
}

const emailTaken = () => conflict('email-already-in-use', t('errors.emailTaken'), { field: 'email' });

export function createUsersService(deps: { db: Db }) {
  const { db } = deps;

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

  return {
    get,

    // Anonymous accounts (decision 030) are not the workshop's users: the users screen lists the registered ones.
    list: (input: { where?: UsersWhere; orderBy?: UsersOrderBy[]; limit?: number; offset?: number }) =>
      db
        .select()
        .from(users)
        .where(and(eq(users.isAnonymous, false), whereOf(input.where)))
        .orderBy(...orderOf(input.orderBy))
        .limit(input.limit ?? 100)
        .offset(input.offset ?? 0),

    count: async (where?: UsersWhere) =>
      (
        await db
          .select({ n: count() })
          .from(users)
          .where(and(eq(users.isAnonymous, false), whereOf(where)))
      )[0]!.n,

    /**
     * SPEC §2.5: the name from the profile menu; not for mechanics. A new e-mail address goes
     * through the auth service's confirmation (changeEmail), never straight into the row.
     */
    async updateProfile(actor: Actor, input: { displayName: string }) {
      if (!isRole(actor.role) || !can(actor.role, 'editOwnProfile')) {
        throw new DomainError('forbidden', 'forbidden', 'Not allowed to edit the profile');
      }
      return db.transaction(async (tx) => {
        const [before] = await tx.select().from(users).where(eq(users.id, actor.id)).for('update');
        if (!before) throw notFound(t('refusals.userNotFound'));
        const [row] = await tx.update(users).set({ displayName: input.displayName, updatedAt: new Date() }).where(eq(users.id, actor.id)).returning();
        const changes = userChanges(before, row!);
        if (changes.length) await record(tx, { action: 'changed', entity: userRef(before), changes });
        return row!;
      });
    },

    /** Refuses an address another account already has (before a change is asked for). */
    assertEmailFree: (email: string, exceptId?: string) => assertEmailFree(email.toLowerCase(), exceptId),

    /** A new account without a password: its owner chooses one from the e-mail. */
    async insert(input: { email: string; displayName: string; defaultRole: Role; locale?: string }) {
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
      return row;
    },

    /**
     * An admin's changes to an account; an admin cannot lock the last admin out. Disabling
     * ends every sign-in for good: enabling the account again does not bring them back.
     */
    async update(actor: Actor, id: string, set: { displayName?: string; defaultRole?: Role; disabled?: boolean }) {
      const current = await get(id);
      if (!current) throw notFound(t('refusals.userNotFound'));
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
    },

    async remove(actor: Actor, id: string) {
      const current = await get(id);
      if (!current) throw notFound(t('refusals.userNotFound'));
      if (id === actor.id) throw conflict('own-account', t('refusals.ownAccount'));
      if (current.defaultRole === 'app_admin' && (await adminCount(id)) === 0) {
        throw conflict('last-admin', t('refusals.lastAdmin'));
      }
      await db.transaction(async (tx) => {
        await record(tx, { action: 'deleted', entity: userRef(current) });
        await tx.delete(users).where(eq(users.id, id));
      });
      return current;
    },
  };
}
