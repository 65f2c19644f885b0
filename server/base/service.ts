// The symptoms and conditions base: one table for the four lists, names unique per list.
import { and, asc, eq, ilike } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import type { BaseKind } from '#lib/base/base.ts';
import type { Db } from '#server/db/client.ts';
import { baseItems } from '#server/db/schema/index.ts';
import { escapeLike } from '#lib/search.ts';
import { pgCode } from '#server/db/errors.ts';
import { conflict, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';

export type BaseService = ReturnType<typeof createBaseService>;

const translate = (error: unknown): never => {
  if (pgCode(error) === '23505') throw conflict('item-exists', t('errors.itemExists'));
  // 23503: a reference without ON DELETE rule; 23001: ON DELETE RESTRICT.
  if (pgCode(error) === '23503' || pgCode(error) === '23001') throw conflict('item-in-use', t('errors.itemInUse'));
  throw error;
};

export function createBaseService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** One list, its names containing `search` (its first 120 characters). */
    list: (_viewer: Viewer, kind: BaseKind, search = '') => {
      const text = search.slice(0, 120).trim();
      return db
        .select()
        .from(baseItems)
        .where(text ? and(eq(baseItems.kind, kind), ilike(baseItems.name, `%${escapeLike(text)}%`)) : eq(baseItems.kind, kind))
        .orderBy(asc(baseItems.name));
    },

    insert: async (_viewer: Viewer, kind: BaseKind, name: string) => {
      const [row] = await db.insert(baseItems).values({ kind, name: name.trim() }).returning().catch(translate);
      return row!;
    },

    rename: async (_viewer: Viewer, id: string, name: string) => {
      const [row] = await db.update(baseItems).set({ name: name.trim(), updatedAt: new Date() }).where(eq(baseItems.id, id)).returning().catch(translate);
      if (!row) throw notFound(t('refusals.itemNotFound'));
      return row;
    },

    remove: async (_viewer: Viewer, id: string) => {
      const [row] = await db.delete(baseItems).where(eq(baseItems.id, id)).returning().catch(translate);
      if (!row) throw notFound(t('refusals.itemNotFound'));
      return row;
    },
  };
}

/** Who may call what (decision 061). The symptoms and conditions base: read by all, kept by admins and diagnosticians (SPEC §2.9). */
export const basePermissions = {
  list: 'signedIn',
  insert: 'manageBase',
  rename: 'manageBase',
  remove: 'manageBase',
} as const satisfies PermissionTable<BaseService>;
