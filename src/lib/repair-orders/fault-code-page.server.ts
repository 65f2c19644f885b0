// The page of a fault code read on an order (`/repair-order/{uuid}/code-conditions/{uuid}`, or
// the creation form without a code id): what it reads, and its posts (save, delete).
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import type { FormState } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { type codeConditionsPageSchema, DOSSIER_CODES_QUERY, FAULT_CODE_FIELDS, FaultCodeFields, faultCodeSchema } from './fault-codes.ts';
import { conditionFormValues } from './conditions.ts';
import { postConditionsRecord } from './conditions.server.ts';

type FaultCodePageQuery = z.output<typeof codeConditionsPageSchema>;

const CODE_CONDITIONS_QUERY = graphql(
  `query($id: uuid!) {
    repairOrder(id: $id) { id number status canReadFaultCodes model { id model } faultCodes { ...FaultCodeFields } }
    baseItems(kind: condition) { name }
  }`,
  [FaultCodeFields],
);
const UPDATE_FAULT_CODE = graphql(`mutation($id: uuid!, $o: order_fault_codes_input!) { updateOrderFaultCode(id: $id, object: $o) }`);
const INSERT_FAULT_CODE = graphql(`mutation($r: uuid!, $o: order_fault_codes_input!) { insertOrderFaultCode(repairOrderId: $r, object: $o) }`);
const DELETE_FAULT_CODE = graphql(`mutation($id: uuid!) { deleteOrderFaultCode(id: $id) }`);

/** The order, its code (null for a new one) and what the page decides from them, or null when the URL names neither. */
export async function loadFaultCodePage(
  locals: App.Locals,
  { orderId, codeId, fromDiagnostic }: Pick<FaultCodePageQuery, 'orderId' | 'codeId' | 'fromDiagnostic'>,
) {
  const api = serverGraphQL(locals);
  const data = orderId && codeId !== null ? await api.request(CODE_CONDITIONS_QUERY, { id: orderId }) : null;
  const order = data?.repairOrder ?? null;
  const existing = codeId ? (order?.faultCodes.find((c) => c.id === codeId) ?? null) : null;
  if (!data || !order || (codeId !== undefined && !existing)) return null;
  const dossier = (await api.request(DOSSIER_CODES_QUERY, { id: order.model.id })).gearboxModel;
  const path = `/repair-order/${order.id}/code-conditions${existing ? `/${existing.id}` : ''}`;
  const withQuery = (extra: string) => `${path}?${extra}${fromDiagnostic ? '&depuis=diagnostic' : ''}`;
  const form: FormState = {
    values: existing
      ? {
          code: existing.errorCode.code,
          description: '',
          ...conditionFormValues(existing),
        }
      : {},
    errors: {},
    formError: order.status === 'CLOSED' ? t('refusals.orderClosed') : order.canReadFaultCodes !== true ? t('faultCodes.readingRequired') : null,
  };
  return {
    order,
    existing,
    // Reached from the order's fault code tab or from the diagnostic page: back to where it came from.
    backHref: fromDiagnostic ? `/repair-order/${order.id}/diagnostic?onglet=codes` : `/repair-order/${order.id}?onglet=codes-defaut`,
    self: fromDiagnostic ? `${path}?depuis=diagnostic` : path,
    askDeleteHref: withQuery('supprimer'),
    deleteAction: withQuery('action=supprimer'),
    dossierCodes: dossier?.errorCodes ?? [],
    phases: data.baseItems.map((item) => item.name),
    form,
  };
}
export type FaultCodePage = NonNullable<Awaited<ReturnType<typeof loadFaultCodePage>>>;

/** Carries out `?action=supprimer` (only for a code that exists) or saves the code: a redirect with its toast, or the form to show again. */
export async function postFaultCodePage(
  astro: AstroGlobal,
  page: FaultCodePage,
  { action }: Pick<FaultCodePageQuery, 'action'>,
): Promise<Response | (FormState & { status: number })> {
  const api = serverGraphQL(astro.locals);
  const { order } = page;
  return postConditionsRecord(astro, page, action, {
    fields: FAULT_CODE_FIELDS,
    schema: faultCodeSchema,
    remove: (id) => api.request(DELETE_FAULT_CODE, { id }),
    save: (id, object) => (id ? api.request(UPDATE_FAULT_CODE, { id, o: object }) : api.request(INSERT_FAULT_CODE, { r: order.id, o: object })),
    deleted: t('faultCodes.codeDeleted'),
    saved: t('faultCodes.codeSaved'),
  });
}
