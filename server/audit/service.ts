// Reading the audit trail: an order's or a dossier's events (with those of what hangs off it),
// a user's (what they did and what was done to their account), newest first. Nothing here
// writes: events are only added by `record`, in the transaction of their change.
import { and, count, desc, eq, or, sql, type SQL } from 'drizzle-orm';
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

export function createAuditService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /**
     * Newest first; with `before` (an event id), those after it in that order: keyset paging on
     * (at, id), read from the event's own row so `at` keeps its microseconds.
     */
    list: async (filter: AuditFilter & { limit: number; offset: number; before?: string | null }): Promise<AuditEventView[]> => {
      const where = filter.before
        ? and(whereOf(filter), sql`(${auditEvents.at}, ${auditEvents.id}) < (select e.at, e.id from audit.events e where e.id = ${filter.before}::bigint)`)
        : whereOf(filter);
      return db.select().from(auditEvents).where(where).orderBy(desc(auditEvents.at), desc(auditEvents.id)).limit(filter.limit).offset(filter.offset);
    },
    count: async (filter: AuditFilter) => (await db.select({ n: count() }).from(auditEvents).where(whereOf(filter)))[0]!.n,
  };
}
