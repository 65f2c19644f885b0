// The screen of a symptom seen on an order (`/repair-order/{uuid}/symptom-conditions/{uuid}`, or
// the creation form without a symptom id; SPEC §2.7, decision 065): what its URL says, what it
// reads, and its posts (save, delete), through the services bound to the viewer.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import type { FormState } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { optionalRecordId, readPage, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { conditionFormValues } from '#lib/repair-orders/conditions.ts';
import { postConditionsRecord } from '#lib/repair-orders/conditions.server.ts';
import { diagnosticHref } from '#lib/repair-orders/diagnostic-page.ts';
import { SYMPTOM_FIELDS, symptomSchema } from '#lib/repair-orders/symptoms.ts';

/** `/repair-order/{uuid}/symptom-conditions/{uuid}` (or the creation form): path and query. */
export const querySchema = z
  .object({ orderId: recordId(), symptomId: optionalRecordId(), ...recordPageFields })
  .transform((q) => ({ orderId: q.orderId, symptomId: q.symptomId, ...recordPageValues(q) }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

/** Everything the page reads from its path and query. */
type SymptomPageQuery = ReturnType<typeof read>;

/** The order, its symptom (null for a new one) and what the page decides from them, or null when the URL names neither. */
export async function load(locals: App.Locals, { orderId, symptomId }: SymptomPageQuery) {
  if (!orderId || symptomId === null) return null;
  const { repairOrders, faultCodes, symptoms, base, gearboxModels } = locals.services;
  const [order, codesRead, orderSymptoms, symptomItems, conditionItems, dossierCodes] = await withinBudget(
    locals,
    Promise.all([repairOrders.get(orderId), faultCodes.faultCodesOf(orderId), symptoms.symptomsOf(orderId), base.list('symptom'), base.list('condition')]).then(
      async ([order, ...rest]) =>
        [
          order,
          ...rest,
          // The codes of the order's model dossier, which the symptom may name.
          order ? await gearboxModels.errorCodesOf(order.model.id) : [],
        ] as const,
    ),
  );
  const existing = symptomId ? (orderSymptoms.find((s) => s.id === symptomId) ?? null) : null;
  if (!order || (symptomId !== undefined && !existing)) return null;
  // The codes read on this order come first: a symptom usually goes with one of them.
  const read = codesRead.map((c) => c.errorCode);
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
    codeChoices: [...read, ...dossierCodes.filter((c) => !read.some((r) => r.id === c.id))],
    symptomNames: symptomItems.map((item) => item.name),
    phases: conditionItems.map((item) => item.name),
    form,
  };
}
export type SymptomPage = NonNullable<Awaited<ReturnType<typeof load>>>;

/** Carries out `?action=supprimer` (only for a symptom that exists) or saves the symptom: a redirect with its toast, or the form to show again. */
export async function post(astro: AstroGlobal, page: SymptomPage, { action }: SymptomPageQuery): Promise<Response | (FormState & { status: number })> {
  const { symptoms } = astro.locals.services;
  const { order } = page;
  return postConditionsRecord(astro, page, action, {
    fields: SYMPTOM_FIELDS,
    schema: symptomSchema,
    remove: (symptomId) => symptoms.removeSymptom(symptomId),
    // The form's empty temporality is none: the service takes it absent.
    save: (symptomId, { temporality, ...input }) => {
      const symptom = { ...input, ...(temporality ? { temporality } : {}) };
      return symptomId ? symptoms.updateSymptom(symptomId, symptom) : symptoms.insertSymptom(order.id, symptom);
    },
    deleted: t('symptoms.deleted'),
    saved: t('symptoms.saved'),
  });
}
