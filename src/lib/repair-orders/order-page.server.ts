// The page of a repair order (`/repair-order/{uuid}`, SPEC §2.7): what it reads, and its posts
// without JavaScript: the general data and the history, the fault code reading and the deletion
// (admins and diagnosticians, while the order is open), the procedure tab's (the API decides).
import type { AstroGlobal } from 'astro';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { submitAction } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { can } from '#lib/permissions.ts';
import { postFaultCodeReading } from './fault-codes.server.ts';
import { FaultCodeFields } from './fault-codes.ts';
import { type OrderDraft, orderValues, saveOrderForm } from './form.server.ts';
import { OrderFields, DELETE_ORDER } from './repair-orders.ts';
import { CheckpointFields } from './checkpoints.ts';
import { postProcedureAction } from './procedure.server.ts';
import type { OrderPageQuery } from './repair-orders.ts';

const ORDER_QUERY = graphql(
  `query($id: uuid!, $form: Boolean!) {
    repairOrder(id: $id) { ...OrderFields faultCodes { ...FaultCodeFields } }
    gearboxModels(limit: 100) @include(if: $form) { id model }
    repairOrderReferents @include(if: $form) { id displayName }
  }`,
  [OrderFields, FaultCodeFields],
);
// What a post needs of the order: its form's values, its status, how many fault codes it holds.
const POSTED_ORDER_QUERY = graphql(`query($id: uuid!) { repairOrder(id: $id) { ...OrderFields faultCodes { id } } }`, [OrderFields]);
// The repair procedure: what the validated diagnostic gives the mechanics to follow.
const PROCEDURES_QUERY = graphql(
  `query($id: uuid!) {
    repairOrder(id: $id) { validatedAt procedures { id name description steps checkpoints { ...CheckpointFields } } events { kind at byName comment } }
  }`,
  [CheckpointFields],
);

/** Admins and diagnosticians edit an open order; the others read it. */
const manages = (locals: App.Locals, order: { status: string }) => can(locals.user?.role, 'manageOrders') && order.status !== 'CLOSED';

type ProcedureFailure = Exclude<Awaited<ReturnType<typeof postProcedureAction>>, Response>;

/** A post that did not go through: what to show again, and the status to answer. */
export type OrderPageFailure = {
  status: number;
  /** The order form as typed, after a refused save. */
  draft?: OrderDraft;
  formError?: string | null;
  /** The procedure tab's: a checkpoint's refused answer, a refused closing or reopening and its comment. */
  procedureFailure?: ProcedureFailure['failure'];
  procedureError?: ProcedureFailure['formError'];
  procedureComment?: string;
};

/** The order and what the page shows of it (the procedure only on its tab), or null when the URL names no order. */
export async function loadOrderPage(locals: App.Locals, { id, tab }: Pick<OrderPageQuery, 'id' | 'tab'>) {
  if (!id) return null;
  const api = serverGraphQL(locals);
  // The models and referents only for the tabs whose form picks them.
  const data = await api.request(ORDER_QUERY, { id, form: tab !== 'codes-defaut' && tab !== 'informations-techniques' && tab !== 'procedure' });
  const order = data.repairOrder;
  if (!order) return null;
  const validated = tab === 'procedure' ? (await api.request(PROCEDURES_QUERY, { id: order.id })).repairOrder : null;
  return { data, order, manage: manages(locals, order), self: `/repair-order/${order.id}`, draft: orderValues(order), validated };
}

/**
 * Where on its tab a refused post shows again, the post's address without its action (decision
 * 039): a checkpoint's answer at its row (`?onglet=procedure#point-…`); the deletion at the
 * order's address, the fault code reading at the codes tab's, both at the top.
 */
export function orderRefusalAnchor({ tab, action, checkpointId }: Pick<OrderPageQuery, 'tab' | 'action' | 'checkpointId'>): string | undefined {
  return tab === 'procedure' && action === 'point' && checkpointId ? `#point-${checkpointId}` : undefined;
}

/**
 * Carries out a post, before the page reads what it shows (a post that succeeds redirects
 * without it): a redirect with its toast, what to show again, or null when nothing was for
 * this viewer or this order.
 */
export async function postOrderPage(astro: AstroGlobal, query: OrderPageQuery): Promise<Response | OrderPageFailure | null> {
  const { id, tab, action } = query;
  if (!id) return null;
  const api = serverGraphQL(astro.locals);
  const order = (await api.request(POSTED_ORDER_QUERY, { id })).repairOrder;
  if (!order) return null;
  // The shop floor's posts without JavaScript: a checkpoint's answer, closing, an admin's reopening.
  if (tab === 'procedure') {
    const result = await postProcedureAction(astro, order.id, query);
    if (result instanceof Response) return result;
    return { status: result.status, procedureFailure: result.failure, procedureError: result.formError, procedureComment: result.comment ?? '' };
  }
  if (!manages(astro.locals, order)) return null;
  const self = `/repair-order/${order.id}`;
  if (action === 'lecture') {
    const result = await postFaultCodeReading(astro, { id: order.id, faultCodeCount: order.faultCodes.length }, `${self}?onglet=codes-defaut`);
    return result instanceof Response ? result : { status: 400, formError: result };
  }
  if (action === 'supprimer') {
    const result = await submitAction(astro, async () => {
      await api.request(DELETE_ORDER, { id: order.id });
      return redirectWithToast(astro, t('repairOrders.deleted'), '/repair-orders');
    });
    return result instanceof Response ? result : { status: 400, formError: result.formError };
  }
  const history = tab === 'historique';
  const result = await saveOrderForm(api, astro.request, {
    id: order.id,
    base: { part: history ? 'history' : 'general', order: orderValues(order) },
    fallback: t('errors.repairOrderUpdate'),
  });
  if ('id' in result) return redirectWithToast(astro, t('repairOrders.saved'), history ? `${self}?onglet=historique` : self);
  return { status: 400, draft: result.draft, formError: result.formError };
}
