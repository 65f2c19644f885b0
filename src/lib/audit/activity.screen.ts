// The screen module of the three activity screens (decision 034, decision 065): an order's
// (`/repair-order/[orderId]/activity`), a dossier's (`/gearbox/[modelId]/activity`) and a user's
// (`/users/[userId]/activity`), each with its CSV (`activity.csv`). The three read the same URL,
// load the same way and export the same rows, only their subject differs: one module serves them
// all, through the audit service and the subject's own service, bound to the viewer.
import { DomainError, TOLD_BY_KIND } from '#server/errors.ts';
import { hasCode } from '#lib/errors.ts';
import { isUuid } from '#lib/ids.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { choice, page, readQuery } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { contentDisposition } from '#lib/storage/files.ts';
import { z } from 'zod';
import { AUDIT_CSV_MAX, AUDIT_PAGE_SIZE, type AuditAction, type AuditEventView, auditActions, auditCsv, auditFileName, withWord } from './audit.ts';

export type ActivityKind = 'order' | 'dossier' | 'user';

/** `?action=&page=`, as the three screens and their CSVs read it: the page and an optional action. */
export const querySchema = z.object({
  page: page(),
  action: choice(auditActions),
});

/** The screens' own filter, as the ignored-filter notice names it (decision 045). */
export const filterNames = { action: () => t('filters.names.action') };

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** Everything an activity screen reads from its URL. */
type ActivityQuery = ReturnType<typeof read>;

/** The CSV reads its events this many at a time (the audit API's largest page). */
const CSV_PAGE = 500;

/** The subject's scope in the audit trail: its id keeps the URL's name up to here. */
const scopeOf = (kind: ActivityKind, id: string) =>
  kind === 'order'
    ? ({ parentKind: 'repair_order', parentId: id } as const)
    : kind === 'dossier'
      ? ({ parentKind: 'gearbox_model', parentId: id } as const)
      : { userId: id };

/** The subject's name now, or null when it no longer exists. */
async function nameOf(services: App.Locals['services'], kind: ActivityKind, id: string): Promise<string | null> {
  if (kind === 'order') return (await services.repairOrders.get(id))?.number ?? null;
  if (kind === 'dossier') return (await services.gearboxModels.get(id))?.model ?? null;
  const user = await services.users.get(id);
  return user ? user.displayName || user.email || '' : null;
}

export type Activity = {
  id: string;
  /** The order's number, the model, the user's name: as it is, or as its last event named it. */
  name: string;
  /** Whether the subject still exists (its own tabs and links are shown only then). */
  exists: boolean;
  events: AuditEventView[];
  count: number;
  page: number;
  pages: number;
};

/**
 * One page of the subject's activity, or null for an id that names nothing the viewer may read
 * (unknown, refused: the page answers 404, as for any record).
 */
export async function load(
  locals: App.Locals,
  kind: ActivityKind,
  id: string | undefined,
  query: ActivityQuery,
  limit = AUDIT_PAGE_SIZE,
): Promise<Activity | null> {
  if (!isUuid(id)) return null;
  const { audit } = locals.services;
  const filter = { ...scopeOf(kind, id), action: query.action };
  try {
    const [name, events, count] = await withinBudget(
      locals,
      Promise.all([nameOf(locals.services, kind, id), audit.list({ ...filter, limit, offset: (query.page - 1) * limit }), audit.count(filter)]),
    );
    // Nothing by that id, now or ever (a filter hiding every event does not make it exist).
    if (name === null && count === 0 && (!query.action || !(await load(locals, kind, id, { page: 1, action: null }, 1)))) return null;
    const named = name ?? (kind === 'user' ? events.find((e) => e.parentKind === 'user')?.parentLabel : events[0]?.parentLabel) ?? '';
    return { id, name: named, exists: name !== null, events, count, page: query.page, pages: Math.max(1, Math.ceil(count / limit)) };
  } catch (error) {
    // A service's refusal told as the API would (rights, a bad id): a French 404, as for any
    // record. The database away or a timeout reach the middleware, which answers its 503 page.
    if (error instanceof DomainError && hasCode(TOLD_BY_KIND[error.kind](error), 'not-found', 'forbidden', 'validation')) return null;
    throw error;
  }
}

/** The whole activity (newest AUDIT_CSV_MAX events, under the same filter) as a CSV download; null for the page's 404. */
export async function csv(locals: App.Locals, kind: ActivityKind, id: string | undefined, action: AuditAction | null): Promise<Response | null> {
  const activity = await load(locals, kind, id, { page: 1, action }, CSV_PAGE);
  if (!activity) return null;
  // The rest after the last event given, so an event recorded meanwhile neither repeats a row
  // nor pushes one out; a failure fails the download.
  let last = activity.events.length === CSV_PAGE ? activity.events.at(-1) : undefined;
  while (last && activity.events.length < AUDIT_CSV_MAX) {
    const limit = Math.min(CSV_PAGE, AUDIT_CSV_MAX - activity.events.length);
    const more = await withinBudget(locals, locals.services.audit.list({ ...scopeOf(kind, activity.id), action, limit, offset: 0, before: String(last.id) }));
    activity.events.push(...more);
    last = more.length === limit ? more.at(-1) : undefined;
  }
  const subject = withWord(t(`audit.subjects.${kind}`), activity.name);
  return new Response(auditCsv(activity.events, { emails: can(locals.user?.role, 'manageUsers') }), {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': contentDisposition('attachment', auditFileName(subject)),
      'Cache-Control': 'no-store',
    },
  });
}

/** The URL of a page of the list, its filter kept. */
export function activityHref(base: string, page: number, action: AuditAction | null): string {
  const params = new URLSearchParams();
  if (action) params.set('action', action);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return query ? `${base}?${query}` : base;
}
