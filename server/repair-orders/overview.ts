// The workshop at a glance (issue 32, decision 089): the orders' figures over a period of days,
// each grouped by the database in one query, so that 100,000 orders stay under 100 ms. Each figure
// counts exactly what the orders list shows under the filter its link gives (`overviewLinks`).
import { inArray, sql } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { queryRows, type Db } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { invalid } from '#server/errors.ts';
import { addDays, workshopToday } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import { isListDay } from '#lib/page-query.ts';
import { ageBuckets, type AgeBucket, mondayOf as mondayOfDay, type OverviewPeriod, overviewTooLong, reopenedBounds } from '#lib/repair-orders/overview.ts';
import type { InterventionCategory, OrderStatus } from '#lib/repair-orders/repair-orders.ts';

export type OverviewService = ReturnType<typeof createOverviewService>;

export type OrderFigures = {
  statuses: { status: OrderStatus; n: number }[];
  /** The open orders by age on `today`, every bucket present, youngest first. */
  ages: { bucket: AgeBucket; n: number }[];
  /** Per referent (null: none): the open orders, and those opened in the period. */
  referents: { referentId: string | null; name: string | null; open: number; opened: number }[];
  /** Every ISO week (its Monday) the period touches, oldest first. */
  weeks: { week: string; opened: number; closed: number }[];
  /** Orders closed in the period, per category: how many, and the days from opening to closing. */
  durations: { category: InterventionCategory; n: number; median: number; p90: number }[];
  /** Orders reopened in the period (by the workshop's day of the reopening), and the reopenings. */
  reopened: { orders: number; reopenings: number };
};

type GroupRow = {
  by_age: boolean;
  by_referent: boolean;
  by_opened: boolean;
  by_closed: boolean;
  age: AgeBucket | null;
  referent_id: string | null;
  opened_week: string | null;
  closed_week: string | null;
  category: InterventionCategory | null;
  open: number;
  opened: number;
  closed: number;
  median: number | null;
  p90: number | null;
};

/** The Mondays of the ISO weeks the period touches. */
function mondays(period: OverviewPeriod): string[] {
  const list: string[] = [];
  for (let monday = mondayOfDay(period.from); monday <= period.to; monday = addDays(monday, 7)) list.push(monday);
  return list;
}
/** The Monday of a day's ISO week, computed on the date itself: no session time zone involved. */
const mondayOf = (column: ReturnType<typeof sql>) => sql`(${column} - (extract(isodow from ${column})::int - 1))`;

export function createOverviewService(deps: { db: Db }) {
  const { db } = deps;

  /** By status, from the models' counts kept with the orders (decision 075): no order is read. */
  const statuses = () =>
    queryRows<{ all: number; closed: number }>(
      db,
      sql`select coalesce(sum(n), 0)::int as all, coalesce(sum(closed), 0)::int as closed from repair_order_counts`,
    );

  /**
   * One pass over the orders the figures read (open, opened or closed in the period), grouped five
   * ways at once: ages of the open ones, referents, opening weeks, closing weeks, categories of the
   * closed ones with their median and 90th percentile. One scan: three took three times as long.
   */
  const grouped = (period: OverviewPeriod, today: string) => {
    const [young, month, quarter] = ageBuckets.slice(1).map((b) => b.minDays);
    const day = (value: string) => sql`${value}::date`;
    const age = sql`case when opened_on > ${day(today)} - ${young}::int then 'under7' when opened_on > ${day(today)} - ${month}::int then 'under30' when opened_on > ${day(today)} - ${quarter}::int then 'under90' else 'over90' end`;
    const openedIn = sql`opened_on between ${day(period.from)} and ${day(period.to)}`;
    const closedIn = sql`closed_on between ${day(period.from)} and ${day(period.to)}`;
    return queryRows<GroupRow>(
      db,
      sql`select grouping(a.age) = 0 as by_age, grouping(a.referent_id) = 0 as by_referent, grouping(a.opened_week) = 0 as by_opened,
            grouping(a.closed_week) = 0 as by_closed, a.age, a.referent_id, a.opened_week::text, a.closed_week::text, a.category,
            count(*) filter (where a.open)::int as open, count(*) filter (where a.opened_in)::int as opened, count(*) filter (where a.closed_in)::int as closed,
            (percentile_cont(0.5) within group (order by a.days) filter (where a.closed_in))::float8 as median,
            (percentile_cont(0.9) within group (order by a.days) filter (where a.closed_in))::float8 as p90
          from (select case when status <> 'CLOSED' then ${age} end as age, referent_id,
                  case when ${openedIn} then ${mondayOf(sql`opened_on`)} end as opened_week,
                  case when ${closedIn} then ${mondayOf(sql`closed_on`)} end as closed_week,
                  case when ${closedIn} then intervention_category end as category,
                  status <> 'CLOSED' as open, ${openedIn} as opened_in, coalesce(${closedIn}, false) as closed_in, closed_on - opened_on as days
                from repair_orders where status <> 'CLOSED' or ${openedIn} or ${closedIn}) a
          group by grouping sets ((a.age), (a.referent_id), (a.opened_week), (a.closed_week), (a.category))`,
    );
  };

  const names = (ids: string[]) =>
    ids.length ? db.select({ id: users.id, name: users.displayName }).from(users).where(inArray(users.id, ids)) : Promise.resolve([]);

  const reopened = (period: OverviewPeriod) => {
    const { from, until } = reopenedBounds(period.from, period.to);
    return queryRows<{ orders: number; reopenings: number }>(
      db,
      sql`select count(distinct repair_order_id)::int as orders, count(*)::int as reopenings from order_events
          where kind = 'reopened' and at >= ${from.toISOString()}::timestamptz and at < ${until.toISOString()}::timestamptz`,
    );
  };

  const service = {
    /** The figures of the orders over `period` (days, both included); ages on `today`, the workshop's day. */
    orderFigures: async (_viewer: Viewer, period: OverviewPeriod, today: string = workshopToday()): Promise<OrderFigures> => {
      for (const key of ['from', 'to'] as const) if (!isListDay(period[key])) throw invalid({ [key]: t('refusals.invalidDate') });
      // A week a row: a century asked would hold the server (the page shows 3 years at most).
      if (overviewTooLong(period)) throw invalid({ to: t('overview.periodTooLong') });
      const [[counts], rows, [reopenedRow]] = await Promise.all([statuses(), grouped(period, today), reopened(period)]);
      const ages = ageBuckets.map(({ id }) => ({ bucket: id, n: rows.find((g) => g.by_age && g.age === id)?.open ?? 0 }));
      const perReferent = rows.filter((g) => g.by_referent && (g.open > 0 || g.opened > 0));
      const named = new Map((await names(perReferent.flatMap((g) => (g.referent_id ? [g.referent_id] : [])))).map((u) => [u.id, u.name]));
      const referents = perReferent
        .map((g) => ({ referentId: g.referent_id, name: g.referent_id ? (named.get(g.referent_id) ?? null) : null, open: g.open, opened: g.opened }))
        .sort((a, b) => b.open - a.open || b.opened - a.opened || (a.name ?? '\uffff').localeCompare(b.name ?? '\uffff'));
      const opened = new Map(rows.flatMap((g) => (g.by_opened && g.opened_week ? [[g.opened_week.slice(0, 10), g.opened]] : [])));
      const closed = new Map(rows.flatMap((g) => (g.by_closed && g.closed_week ? [[g.closed_week.slice(0, 10), g.closed]] : [])));
      const weeks = mondays(period).map((week) => ({ week, opened: opened.get(week) ?? 0, closed: closed.get(week) ?? 0 }));
      const durations = rows
        .filter((g): g is GroupRow & { category: InterventionCategory } => g.category !== null)
        .map((g) => ({ category: g.category, n: g.closed, median: Number(g.median), p90: Number(g.p90) }))
        .sort((a, b) => a.category.localeCompare(b.category));
      const all = counts?.all ?? 0;
      const closedOrders = counts?.closed ?? 0;
      return {
        statuses: [
          { status: 'IN_PROGRESS', n: all - closedOrders },
          { status: 'CLOSED', n: closedOrders },
        ],
        ages,
        referents,
        weeks,
        durations,
        reopened: reopenedRow ?? { orders: 0, reopenings: 0 },
      };
    },
  };
  return service;
}

/** Who may call what (decision 061): the overview is the admins' and the diagnosticians'. */
export const overviewPermissions = {
  orderFigures: 'viewOverview',
} as const satisfies PermissionTable<OverviewService>;
