// The screen of a fault code read on an order (`/repair-order/{uuid}/code-conditions/{uuid}`, or
// the creation form without a code id; SPEC §2.7, decision 065): what its URL says, what it
// reads, and its posts (save, delete), through the services bound to the viewer.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import type { FormState } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { choice, optionalRecordId, readPage, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { conditionFormValues } from '#lib/repair-orders/conditions.ts';
import { postConditionsRecord } from '#lib/repair-orders/conditions.server.ts';
import { FAULT_CODE_FIELDS, faultCodeSchema } from '#lib/repair-orders/fault-codes.ts';

/** `/repair-order/{uuid}/code-conditions/{uuid}` (or the creation form): path and query; `?depuis=diagnostic` leads back there. */
export const querySchema = z
  .object({ orderId: recordId(), faultCodeId: optionalRecordId(), depuis: choice(['diagnostic'] as const), ...recordPageFields })
  .transform((q) => ({ orderId: q.orderId, faultCodeId: q.faultCodeId, fromDiagnostic: q.depuis === 'diagnostic', ...recordPageValues(q) }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

/** Everything the page reads from its path and query. */
type FaultCodePageQuery = ReturnType<typeof read>;

/** The order, its code (null for a new one) and what the page decides from them, or null when the URL names neither. */
export async function load(locals: App.Locals, { orderId, faultCodeId, fromDiagnostic }: FaultCodePageQuery) {
  if (!orderId || faultCodeId === null) return null;
  const { repairOrders, faultCodes, base, gearboxModels } = locals.services;
  const [order, codes, phases, dossierCodes] = await withinBudget(
    locals,
    Promise.all([repairOrders.get(orderId), faultCodes.faultCodesOf(orderId), base.list('condition')]).then(
      async ([order, codes, phases]) =>
        [
          order,
          codes,
          phases,
          // The codes of the order's model dossier, which the code may name.
          order ? await gearboxModels.errorCodesOf(order.model.id) : [],
        ] as const,
    ),
  );
  const existing = faultCodeId ? (codes.find((c) => c.id === faultCodeId) ?? null) : null;
  if (!order || (faultCodeId !== undefined && !existing)) return null;
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
    dossierCodes,
    phases: phases.map((item) => item.name),
    form,
  };
}
export type FaultCodePage = NonNullable<Awaited<ReturnType<typeof load>>>;

/** Carries out `?action=supprimer` (only for a code that exists) or saves the code: a redirect with its toast, or the form to show again. */
export async function post(astro: AstroGlobal, page: FaultCodePage, { action }: FaultCodePageQuery): Promise<Response | (FormState & { status: number })> {
  const { faultCodes } = astro.locals.services;
  const { order } = page;
  return postConditionsRecord(astro, page, action, {
    fields: FAULT_CODE_FIELDS,
    schema: faultCodeSchema,
    remove: (faultCodeId) => faultCodes.removeFaultCode(faultCodeId),
    // The form's empty temporality is none: the service takes it absent.
    save: (faultCodeId, { temporality, ...input }) => {
      const code = { ...input, ...(temporality ? { temporality } : {}) };
      return faultCodeId ? faultCodes.updateFaultCode(faultCodeId, code) : faultCodes.insertFaultCode(order.id, code);
    },
    deleted: t('faultCodes.codeDeleted'),
    saved: t('faultCodes.codeSaved'),
  });
}
