import { graphql, type ResultOf } from '#lib/graphql.ts';
import { isRefusal, serverGraphQL } from '#lib/graphql.server.ts';
import { isUuid } from '#lib/ids.ts';
import { t } from '#lib/i18n.ts';
import { can } from '#lib/permissions.ts';
import { contentDisposition } from '#lib/storage/files.ts';
import { AUDIT_CSV_MAX, AUDIT_PAGE_SIZE, type AuditAction, type AuditEventView, auditCsv, auditFileName, withWord } from './audit.ts';

export type ActivityKind = 'order' | 'dossier' | 'user';

/** The API's largest page of events (server/graphql/audit.ts). */
const API_PAGE = 500;

const EVENT_FIELDS = graphql(`
  fragment ActivityEvent on audit_events {
    id at actorId actorName actorEmail action entityKind entityId entityLabel parentKind parentId parentLabel
    changes { field before after }
  }
`);

const ACTIVITY_QUERY = graphql(
  `
  query Activity($scope: audit_scope!, $action: audit_action, $limit: Int!, $offset: Int!) {
    auditEvents(scope: $scope, action: $action, limit: $limit, offset: $offset) { ...ActivityEvent }
    auditEventsAggregate(scope: $scope, action: $action) { aggregate { count } }
  }
`,
  [EVENT_FIELDS],
);

/** The export's next events, older than the last one given (keyset: none repeated, none skipped). */
const ACTIVITY_AFTER = graphql(
  `
  query ActivityAfter($scope: audit_scope!, $action: audit_action, $limit: Int!, $before: String!) {
    auditEvents(scope: $scope, action: $action, limit: $limit, before: $before) { ...ActivityEvent }
  }
`,
  [EVENT_FIELDS],
);

const ORDER_NAME = graphql(`query ActivityOrder($id: uuid!) { repairOrder(id: $id) { id number } }`);
const DOSSIER_NAME = graphql(`query ActivityDossier($id: uuid!) { gearboxModel(id: $id) { id model } }`);
const USER_NAME = graphql(`query ActivityUser($id: uuid!) { user(id: $id) { id displayName email } }`);

type Events = ResultOf<typeof ACTIVITY_QUERY>['auditEvents'];

const scopeOf = (kind: ActivityKind, id: string) => (kind === 'order' ? { repairOrderId: id } : kind === 'dossier' ? { gearboxModelId: id } : { userId: id });

/** The subject's name now, or null when it no longer exists. */
async function nameOf(locals: App.Locals, kind: ActivityKind, id: string): Promise<string | null> {
  const api = serverGraphQL(locals);
  if (kind === 'order') return (await api.request(ORDER_NAME, { id })).repairOrder?.number ?? null;
  if (kind === 'dossier') return (await api.request(DOSSIER_NAME, { id })).gearboxModel?.model ?? null;
  const user = (await api.request(USER_NAME, { id })).user;
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

const asViews = (events: Events): AuditEventView[] => events.map((e) => ({ ...e, id: Number(e.id), actorId: e.actorId ?? null }));

/**
 * One page of the subject's activity, or null for an id that names nothing the viewer may read
 * (unknown, refused: the page answers 404, as for any record).
 */
export async function loadActivity(
  locals: App.Locals,
  kind: ActivityKind,
  id: string | undefined,
  query: { page: number; action: AuditAction | null },
  limit = AUDIT_PAGE_SIZE,
): Promise<Activity | null> {
  if (!isUuid(id)) return null;
  try {
    const [name, data] = await Promise.all([
      nameOf(locals, kind, id),
      serverGraphQL(locals).request(ACTIVITY_QUERY, { scope: scopeOf(kind, id), action: query.action, limit, offset: (query.page - 1) * limit }),
    ]);
    const events = asViews(data.auditEvents);
    const count = data.auditEventsAggregate.aggregate.count;
    // Nothing by that id, now or ever (a filter hiding every event does not make it exist).
    if (name === null && count === 0 && (!query.action || !(await loadActivity(locals, kind, id, { page: 1, action: null }, 1)))) return null;
    const named = name ?? (kind === 'user' ? events.find((e) => e.parentKind === 'user')?.parentLabel : events[0]?.parentLabel) ?? '';
    return { id, name: named, exists: name !== null, events, count, page: query.page, pages: Math.max(1, Math.ceil(count / limit)) };
  } catch (error) {
    // The API refused (rights, a bad id): a French 404. The database away or a timeout reach the
    // middleware, which answers its 503 page.
    if (isRefusal(error)) return null;
    throw error;
  }
}

/** The whole activity (newest AUDIT_CSV_MAX events, under the same filter) as a CSV download. */
export async function activityCsv(locals: App.Locals, kind: ActivityKind, id: string | undefined, action: AuditAction | null): Promise<Response | null> {
  const activity = await loadActivity(locals, kind, id, { page: 1, action }, API_PAGE);
  if (!activity) return null;
  // The API gives at most API_PAGE events a call: the rest after the last one given, so an event
  // recorded meanwhile neither repeats a row nor pushes one out; a failure fails the download.
  const api = serverGraphQL(locals);
  let last = activity.events.length === API_PAGE ? activity.events.at(-1) : undefined;
  while (last && activity.events.length < AUDIT_CSV_MAX) {
    const limit = Math.min(API_PAGE, AUDIT_CSV_MAX - activity.events.length);
    const more = asViews((await api.request(ACTIVITY_AFTER, { scope: scopeOf(kind, id!), action, limit, before: String(last.id) })).auditEvents);
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
