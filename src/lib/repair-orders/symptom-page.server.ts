// The page of a symptom seen on an order (`/repair-order/{uuid}/symptom-conditions/{uuid}`, or
// the creation form without a symptom id): what it reads, and its posts (save, delete).
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import type { FormState } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { diagnosticHref } from './diagnostic-page.ts';
import { DOSSIER_CODES_QUERY } from './fault-codes.ts';
import { SYMPTOM_FIELDS, SymptomFields, type symptomConditionsPageSchema, symptomSchema } from './symptoms.ts';
import { conditionFormValues } from './conditions.ts';
import { postConditionsRecord } from './conditions.server.ts';

type SymptomPageQuery = z.output<typeof symptomConditionsPageSchema>;

const SYMPTOM_CONDITIONS_QUERY = graphql(
  `query($id: uuid!) {
    repairOrder(id: $id) { id number status model { id model } faultCodes { errorCode { id code description } } symptoms { ...SymptomFields } }
    symptomItems: baseItems(kind: symptom) { name }
    conditionItems: baseItems(kind: condition) { name }
  }`,
  [SymptomFields],
);
const UPDATE_SYMPTOM = graphql(`mutation($id: uuid!, $o: order_symptoms_input!) { updateOrderSymptom(id: $id, object: $o) }`);
const INSERT_SYMPTOM = graphql(`mutation($r: uuid!, $o: order_symptoms_input!) { insertOrderSymptom(repairOrderId: $r, object: $o) }`);
const DELETE_SYMPTOM = graphql(`mutation($id: uuid!) { deleteOrderSymptom(id: $id) }`);

/** The order, its symptom (null for a new one) and what the page decides from them, or null when the URL names neither. */
export async function loadSymptomPage(locals: App.Locals, { orderId, symptomId }: Pick<SymptomPageQuery, 'orderId' | 'symptomId'>) {
  const api = serverGraphQL(locals);
  const data = orderId && symptomId !== null ? await api.request(SYMPTOM_CONDITIONS_QUERY, { id: orderId }) : null;
  const order = data?.repairOrder ?? null;
  const existing = symptomId ? (order?.symptoms.find((s) => s.id === symptomId) ?? null) : null;
  if (!data || !order || (symptomId !== undefined && !existing)) return null;
  const dossier = (await api.request(DOSSIER_CODES_QUERY, { id: order.model.id })).gearboxModel;
  // The codes read on this order come first: a symptom usually goes with one of them.
  const read = order.faultCodes.map((c) => c.errorCode);
  const form: FormState = {
    values: existing
      ? {
          symptom: existing.symptom.name,
          errorCode: existing.errorCode?.code ?? '',
          ...conditionFormValues(existing),
        }
      : {},
    errors: {},
    formError: order.status === 'CLOSED' ? t('refusals.orderClosed') : null,
  };
  return {
    order,
    existing,
    backHref: diagnosticHref(order.id, 'symptomes'),
    self: `/repair-order/${order.id}/symptom-conditions${existing ? `/${existing.id}` : ''}`,
    codeChoices: [...read, ...(dossier?.errorCodes ?? []).filter((c) => !read.some((r) => r.id === c.id))],
    symptomNames: data.symptomItems.map((item) => item.name),
    phases: data.conditionItems.map((item) => item.name),
    form,
  };
}
export type SymptomPage = NonNullable<Awaited<ReturnType<typeof loadSymptomPage>>>;

/** Carries out `?action=supprimer` (only for a symptom that exists) or saves the symptom: a redirect with its toast, or the form to show again. */
export async function postSymptomPage(
  astro: AstroGlobal,
  page: SymptomPage,
  { action }: Pick<SymptomPageQuery, 'action'>,
): Promise<Response | (FormState & { status: number })> {
  const api = serverGraphQL(astro.locals);
  const { order } = page;
  return postConditionsRecord(astro, page, action, {
    fields: SYMPTOM_FIELDS,
    schema: symptomSchema,
    remove: (id) => api.request(DELETE_SYMPTOM, { id }),
    save: (id, object) => (id ? api.request(UPDATE_SYMPTOM, { id, o: object }) : api.request(INSERT_SYMPTOM, { r: order.id, o: object })),
    deleted: t('symptoms.deleted'),
    saved: t('symptoms.saved'),
  });
}
