// The repair orders list (`/repair-orders`, SPEC §2.7): what it reads (one page of orders, their
// count and the models to filter on) and its one post, the deletion of an order once confirmed.
import type { AstroGlobal } from 'astro';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { submitAction } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { can } from '#lib/permissions.ts';
import { ORDERS_PAGE_SIZE, ordersHref, type readOrdersQuery, DELETE_ORDER } from './repair-orders.ts';

/** Everything the list reads from its URL. */
type OrdersPageQuery = ReturnType<typeof readOrdersQuery>;

const ORDERS_QUERY = graphql(`
  query(
    $search: String, $from: String, $to: String, $category: intervention_category, $type: repair_order_gearbox_type, $modelId: uuid,
    $sort: repair_order_sort, $descending: Boolean, $limit: Int, $offset: Int
  ) {
    repairOrders(
      search: $search, from: $from, to: $to, category: $category, type: $type, modelId: $modelId,
      sort: $sort, descending: $descending, limit: $limit, offset: $offset
    ) {
      id number openedOn status interventionCategory gearboxCode model { id model type constructorName }
    }
    repairOrdersAggregate(search: $search, from: $from, to: $to, category: $category, type: $type, modelId: $modelId) { count }
    gearboxModels(limit: 100) { id model }
  }
`);

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
  const manage = can(locals.user?.role, 'manageOrders');
  const data = await serverGraphQL(locals).request(ORDERS_QUERY, {
    search: query.search,
    from: query.from,
    to: query.to,
    category: query.category,
    type: query.type,
    modelId: query.modelId,
    sort: query.sort,
    descending: query.descending,
    limit: ORDERS_PAGE_SIZE,
    offset: (query.page - 1) * ORDERS_PAGE_SIZE,
  });
  const total = data.repairOrdersAggregate.count;
  return {
    manage,
    data,
    total,
    pages: Math.max(1, Math.ceil(total / ORDERS_PAGE_SIZE)),
    // A closed order is a record: it is never offered for deletion (the service refuses it too).
    confirming: manage ? data.repairOrders.find((o) => o.id === query.confirm && o.status !== 'CLOSED') : undefined,
  };
}
