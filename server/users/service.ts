// Accounts as the application manages them (profile now; the users screen later).
import { and, eq, ne } from 'drizzle-orm';
import { can } from '../../src/lib/permissions.ts';
import { isRole } from '../../src/lib/roles.ts';
import type { Db } from '../db/client.ts';
import { users } from '../db/schema/index.ts';
import { ApiError } from '../http/json.ts';

export type UsersService = ReturnType<typeof createUsersService>;

export type Actor = { id: string; role: string };

export function createUsersService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** SPEC §2.5: name and e-mail from the profile menu; not for mechanics. */
    async updateProfile(actor: Actor, input: { displayName: string; email: string }) {
      if (!isRole(actor.role) || !can(actor.role, 'editOwnProfile')) {
        throw new ApiError(403, 'forbidden', 'Not allowed to edit the profile');
      }
      const email = input.email.toLowerCase();
      const [taken] = await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, email), ne(users.id, actor.id)))
        .limit(1);
      if (taken) throw new ApiError(409, 'email-already-in-use', 'Email already in use');
      const [row] = await db
        .update(users)
        .set({ displayName: input.displayName, email, updatedAt: new Date() })
        .where(eq(users.id, actor.id))
        .returning();
      if (!row) throw new ApiError(404, 'not-found', 'User not found');
      return row;
    },
  };
}
