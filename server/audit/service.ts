// Reading the audit trail: an order's or a dossier's events (with those of what hangs off it),
// a user's (what they did and what was done to their account), newest first. Nothing here
// writes: events are only added by `record`, in the transaction of their change.
import { and, count, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import { type Permission, requirePermission, type PermissionTable } from '#server/access.ts';
import { can } from '#lib/permissions.ts';
import type { AuditAction, AuditEventView } from '#lib/audit/audit.ts';
import type { Db } from '#server/db/client.ts';
import { auditEvents } from '#server/db/schema/index.ts';

export type AuditScope = { parentKind: 'repair_order' | 'gearbox_model' | 'stock_item'; parentId: string } | { userId: string };
export type AuditFilter = AuditScope & { action?: AuditAction | null };
export type AuditService = ReturnType<typeof createAuditService>;

function whereOf(filter: AuditFilter): SQL {
  const scope =
    'userId' in filter
      ? // Two index scans (actor, account), OR-ed in one bitmap.
        or(eq(auditEvents.actorId, filter.userId), and(eq(auditEvents.parentKind, 'user'), eq(auditEvents.parentId, filter.userId)))!
      : and(eq(auditEvents.parentKind, filter.parentKind), eq(auditEvents.parentId, filter.parentId))!;
  return filter.action ? and(scope, eq(auditEvents.action, filter.action))! : scope;
}

/** Whose history each role reads: a new kind of parent fails the type check until it has a row. */
const readers: Record<Extract<AuditScope, { parentKind: string }>['parentKind'] | 'user', Permission> = {
  repair_order: 'signedIn',
  gearbox_model: 'signedIn',
  stock_item: 'manageStock',
  user: 'manageUsers',
};

function requireReadable(viewer: Viewer, filter: AuditFilter) {
  requirePermission(viewer, readers['userId' in filter ? 'user' : filter.parentKind]);
}

export function createAuditService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /**
     * Newest first; with `before` (an event id), those after it in that order: keyset paging on
     * (at, id), read from the event's own row so `at` keeps its microseconds.
     */
    list: async (viewer: Viewer, filter: AuditFilter & { limit: number; offset: number; before?: string | null }): Promise<AuditEventView[]> => {
      requireReadable(viewer, filter);
      const where = filter.before
        ? and(whereOf(filter), sql`(${auditEvents.at}, ${auditEvents.id}) < (select e.at, e.id from audit.events e where e.id = ${filter.before}::bigint)`)
        : whereOf(filter);
      const rows = await db
        .select()
        .from(auditEvents)
        .where(where)
        .orderBy(desc(auditEvents.at), desc(auditEvents.id))
        .limit(filter.limit)
        .offset(filter.offset);
      // Who acted is named to all; their address only to those who may manage users.
      return can(viewer.role, 'manageUsers') ? rows : rows.map((row) => ({ ...row, actorEmail: null }));
    },
    count: async (viewer: Viewer, filter: AuditFilter) => {
      requireReadable(viewer, filter);
      return (await db.select({ n: count() }).from(auditEvents).where(whereOf(filter)))[0]!.n;
    },
  };
}

/** Who may call what (decision 061); which history a role may read is checked per scope. */
export const auditPermissions = { list: 'signedIn', count: 'signedIn' } as const satisfies PermissionTable<AuditService>;
