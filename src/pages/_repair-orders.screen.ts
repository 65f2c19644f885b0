// The screen module of the repair orders list (`/repair-orders`, SPEC §2.7, decision 065): what
// its URL may say, what it reads (one page of orders with their count, and the models to filter on) and
// its one post, the deletion of an order once confirmed.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { choice, day, page, readQuery, recordId, text, uuid } from '#lib/page-query.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { formValues, submitAction, postedForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { lastPageIfBeyond, withinBudget } from '#lib/page-budget.ts';
import { isUuid } from '#lib/ids.ts';
import { can } from '#lib/permissions.ts';
import {
  gearboxTypes,
  interventionCategories,
  ORDERS_PAGE_SIZE,
  orderStatuses,
  orderSorts,
  ordersHref,
  type OrdersQuery,
} from '#lib/repair-orders/repair-orders.ts';

/**
 * `/repair-orders?recherche=&du=&au=&categorie=&type=&modele=&tri=&ordre=&page=`, as the list reads it,
 * and the overview's filters (issue 32): `statut=`, `referent=` (an id or `aucun`), `cloture_du=`,
 * `cloture_au=`, `reouverture_du=`, `reouverture_au=`.
 */
export const querySchema = z
  .object({
    recherche: text(80),
    du: day(),
    au: day(),
    categorie: choice(interventionCategories),
    type: choice(gearboxTypes),
    modele: recordId(),
    tri: choice(orderSorts),
    ordre: choice(['asc', 'desc'] as const),
    page: page(),
    statut: choice(orderStatuses),
    referent: z
      .union([uuid(), z.literal('aucun')])
      .nullable()
      .catch(null),
    cloture_du: day(),
    cloture_au: day(),
    reouverture_du: day(),
    reouverture_au: day(),
    panne: recordId(),
    // A deletion from the list: the order to confirm, then the posted action.
    confirmer: recordId(),
    action: choice(['supprimer'] as const),
  })
  .transform((q) => {
    const sort = q.tri ?? 'date';
    const list: OrdersQuery = {
      search: q.recherche,
      from: q.du,
      to: q.au,
      category: q.categorie,
      type: q.type,
      modelId: q.modele,
      sort,
      descending: q.ordre ? q.ordre === 'desc' : sort === 'date',
      page: q.page,
      status: q.statut,
      referent: q.referent,
      closedFrom: q.cloture_du,
      closedTo: q.cloture_au,
      reopenedFrom: q.reouverture_du,
      reopenedTo: q.reouverture_au,
      outageId: q.panne,
    };
    return { ...list, confirm: q.confirmer, action: q.action };
  });

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** Everything the list reads from its URL. */
type OrdersPageQuery = ReturnType<typeof read>;

/**
 * The list's post (`?action=supprimer`, admins and diagnosticians): a redirect with its toast, or
 * the refusal to show over the list; null when nothing was carried out.
 */
export async function post(astro: AstroGlobal, query: OrdersPageQuery): Promise<Response | { formError: string | null; status: number } | null> {
  if (!can(astro.locals.user?.role, 'manageOrders') || query.action !== 'supprimer') return null;
  const { id: orderId } = formValues(await postedForm(astro), ['id']);
  if (!isUuid(orderId)) return null;
  const result = await submitAction(astro, async () => {
    await astro.locals.services.repairOrders.remove(orderId);
    return redirectWithToast(astro, t('repairOrders.deleted'), ordersHref(query));
  });
  if (result instanceof Response) return result;
  return { formError: result.formError, status: 400 };
}

/** One page of the orders the URL's search and filters select, their count and the order whose deletion is to confirm. */
export async function load(locals: App.Locals, query: OrdersPageQuery) {
  const { repairOrders, gearboxModels } = locals.services;
  const manage = can(locals.user?.role, 'manageOrders');
  const filter = {
    search: query.search,
    from: query.from,
    to: query.to,
    category: query.category,
    type: query.type,
    modelId: query.modelId,
    status: query.status,
    referent: query.referent,
    closedFrom: query.closedFrom,
    closedTo: query.closedTo,
    reopenedFrom: query.reopenedFrom,
    reopenedTo: query.reopenedTo,
    outageId: query.outageId,
  };
  const pageOf = (page: number) =>
    repairOrders.page({ ...filter, sort: query.sort, descending: query.descending, limit: ORDERS_PAGE_SIZE, offset: (page - 1) * ORDERS_PAGE_SIZE });
  const [{ rows, total }, models, referents, modelOutages] = await withinBudget(
    locals,
    Promise.all([
      pageOf(query.page),
      gearboxModels.catalogue(),
      repairOrders.referents(query.referent === 'aucun' ? null : query.referent),
      // The outage an overview figure filters by, named above the count (its model's outages).
      query.outageId && query.modelId ? gearboxModels.outagesOf(query.modelId) : [],
    ]),
  );
  const outage = modelOutages.find((o) => o.id === query.outageId);
  const {
    page,
    pages,
    rows: orders,
    ignoredPage,
  } = await lastPageIfBeyond(locals, { asked: query.page, size: ORDERS_PAGE_SIZE, total, rows, rowsOf: async (p) => (await pageOf(p)).rows });
  return {
    manage,
    orders,
    models,
    referents,
    outageName: outage ? `${outage.component.name} — ${outage.outageType.name}` : null,
    total,
    page,
    pages,
    ignoredPage,
    // A closed order is a record: it is never offered for deletion (the service refuses it too).
    confirming: manage ? orders.find((o) => o.id === query.confirm && o.status !== 'CLOSED') : undefined,
  };
}
