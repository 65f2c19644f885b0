// The repair orders list (`/repair-orders`, SPEC §2.7): what it reads (one page of orders, their
// count and the models to filter on) and its one post, the deletion of an order once confirmed.
import type { AstroGlobal } from 'astro';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { submitAction } from '#lib/forms.server.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { isUuid } from '#lib/ids.ts';
import { can } from '#lib/permissions.ts';
import { ORDERS_PAGE_SIZE, ordersHref, type readOrdersQuery, DELETE_ORDER } from './repair-orders.ts';

/** Everything the list reads from its URL. */
type OrdersPageQuery = ReturnType<typeof readOrdersQuery>;

/**
 * The list's post (`?action=supprimer`, admins and diagnosticians): a redirect with its toast, or
 * the refusal to show over the list; null when nothing was carried out.
 */
export async function postOrdersPage(astro: AstroGlobal, query: OrdersPageQuery): Promise<Response | { formError: string | null; status: number } | null> {
  if (!can(astro.locals.user?.role, 'manageOrders') || query.action !== 'supprimer') return null;
  const id = String((await astro.request.formData()).get('id') ?? '');
  if (!isUuid(id)) return null;
  const result = await submitAction(astro, async () => {
    await serverGraphQL(astro.locals).request(DELETE_ORDER, { id });
    return redirectWithToast(astro, t('repairOrders.deleted'), ordersHref(query));
  });
  if (result instanceof Response) return result;
  return { formError: result.formError, status: 400 };
}

/** One page of the orders the URL's search and filters select, their count and the order whose deletion is to confirm. */
export async function loadOrdersPage(locals: App.Locals, query: OrdersPageQuery) {
  const { repairOrders, gearboxes } = locals.services;
  const manage = can(locals.user?.role, 'manageOrders');
  const filter = { search: query.search, from: query.from, to: query.to, category: query.category, type: query.type, modelId: query.modelId };
  const [orders, total, models] = await withinBudget(
    locals,
    Promise.all([
      repairOrders.list({ ...filter, sort: query.sort, descending: query.descending, limit: ORDERS_PAGE_SIZE, offset: (query.page - 1) * ORDERS_PAGE_SIZE }),
      repairOrders.count(filter),
      gearboxes.list({ limit: 100, offset: 0 }),
    ]),
  );
  return {
    manage,
    orders,
    models,
    total,
    pages: Math.max(1, Math.ceil(total / ORDERS_PAGE_SIZE)),
    // A closed order is a record: it is never offered for deletion (the service refuses it too).
    confirming: manage ? orders.find((o) => o.id === query.confirm && o.status !== 'CLOSED') : undefined,
  };
}
