// The procedure tab's posts when JavaScript is off (the island saves through the API otherwise):
// a checkpoint's answer, closing the order, an admin's reopening. The API decides who may.
import type { AstroGlobal } from 'astro';
import type { Draft } from '#islands/repair-orders/CheckpointsList.tsx';
import type { CheckResult } from './check-results.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { hasCode } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import type { OrderPageQuery } from './repair-orders.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { graphql } from '#lib/graphql.ts';
import { CLOSE_ORDER } from './checkpoints.ts';

type Failure = { status: number; failure: { id: string; values: Draft; message: string } | null; formError: string | null; comment?: string };

const messageOf = (error: unknown) => {
  const failure = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), fields: [] });
  return hasCode(failure, 'forbidden') ? t('errors.generic') : failure.formError!;
};

export async function postProcedureAction(
  astro: AstroGlobal,
  orderId: string,
  query: Pick<OrderPageQuery, 'action' | 'checkpointId' | 'version'>,
): Promise<Response | Failure> {
  const api = serverGraphQL(astro.locals);
  const form = await astro.request.formData();
  const self = `/repair-order/${orderId}?onglet=procedure`;
  const comment = String(form.get('comment') ?? '').slice(0, 2000);
  const { action } = query;
  if (action === 'point') {
    const id = query.checkpointId ?? '';
    const values: Draft = {
      checkResult: (String(form.get('checkResult') ?? '') || null) as CheckResult | null,
      measuredValue: String(form.get('measuredValue') ?? '').slice(0, 40),
      comment: comment.slice(0, 1000),
    };
    try {
      await api.request(
        graphql(`mutation($id: uuid!, $v: Int!, $o: order_checkpoints_input!) { answerOrderCheckpoint(id: $id, version: $v, object: $o) { id } }`),
        {
          id,
          v: query.version,
          o: { checkResult: values.checkResult, measuredValue: values.measuredValue, comment: values.comment },
        },
      );
      return redirectWithToast(astro, t('orderProcedure.answerSaved'), `${self}#point-${id}`);
    } catch (error) {
      return { status: 400, failure: { id, values, message: messageOf(error) }, formError: null };
    }
  }
  try {
    if (action === 'cloturer') {
      // Without JavaScript there is no dialog: the box ticked is the confirmation.
      if (form.get('confirmer') !== '1') return { status: 400, failure: null, formError: t('orderProcedure.closeCheckRequired'), comment };
      await api.request(CLOSE_ORDER, { id: orderId, c: comment });
      return redirectWithToast(astro, t('orderProcedure.closed'), self);
    }
    if (action === 'rouvrir') {
      await api.request(graphql(`mutation($id: uuid!, $c: String) { reopenRepairOrder(id: $id, comment: $c) }`), { id: orderId, c: comment });
      return redirectWithToast(astro, t('orderProcedure.reopened'), self);
    }
  } catch (error) {
    // The comment typed for the closing or the reopening comes back in its field.
    return { status: 409, failure: null, formError: messageOf(error), comment };
  }
  return astro.redirect(self, 303);
}
