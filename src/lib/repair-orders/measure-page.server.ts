// The page of a measure taken on a repair order (`/repair-order/{uuid}/measure/{uuid}`): what it
// reads, and its posts (save, delete, attach a file, delete a file), which only admins and
// diagnosticians make, and only while the order is open.
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { isPostedFile, storeAndLink, submitAction, submitForm } from '#lib/forms.server.ts';
import type { DossierDocument } from '#lib/gearboxes/documents.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { can } from '#lib/permissions.ts';
import type { FieldErrors } from '#lib/validation.ts';
import { diagnosticHref } from './diagnostic-page.ts';
import {
  ORDER_MEASURE_FIELDS,
  OrderMeasureFields,
  type OrderMeasure,
  type orderMeasurePageSchema,
  orderMeasureSchema,
  proposeCheckResult,
} from './measures.ts';
import { numberField } from '#lib/format.ts';

type MeasurePageQuery = z.output<typeof orderMeasurePageSchema>;

const MEASURE_QUERY = graphql(`query($id: uuid!) { orderMeasure(id: $id) { ...OrderMeasureFields repairOrder { id number status } } }`, [OrderMeasureFields]);
const UPDATE_MEASURE = graphql(`mutation($id: uuid!, $m: order_measures_input!) { updateOrderMeasure(id: $id, object: $m) }`);
const DELETE_MEASURE = graphql(`mutation($id: uuid!) { deleteOrderMeasure(id: $id) }`);
const INSERT_MEASURE_FILE = graphql(`mutation($m: uuid!, $f: uuid!, $c: String) { insertOrderMeasureFile(measureId: $m, fileId: $f, comment: $c) }`);
const DELETE_MEASURE_FILE = graphql(`mutation($id: uuid!) { deleteOrderMeasureFile(id: $id) }`);

/** What the page's forms show: the measure's form and the file form, each with its messages. */
export type OrderMeasureForm = {
  values: Record<string, string>;
  errors: FieldErrors;
  formError: string | null;
  fileValues: { comment: string };
  fileError: string | null;
};

/** The fields a measure copied from the dossier was filled with (SPEC §5: their labels say «(automatique)»). */
const DOSSIER_FIELDS = ['name', 'description', 'unit', 'minimum', 'maximum'] as const;

/** "Automatic" when the stored result is what the bounds propose. */
const chosen = (m: OrderMeasure) => (m.checkResult && m.checkResult !== proposeCheckResult(m.measuredValue, m.minimum, m.maximum) ? m.checkResult : '');

/** The measure and what the page decides from it, or null when the URL names no measure of this order. */
export async function loadOrderMeasurePage(locals: App.Locals, { orderId, measureId }: Pick<MeasurePageQuery, 'orderId' | 'measureId'>) {
  const data = orderId && measureId ? await serverGraphQL(locals).request(MEASURE_QUERY, { id: measureId }) : null;
  const measure = data?.orderMeasure && data.orderMeasure.repairOrder.id === orderId ? data.orderMeasure : null;
  if (!measure) return null;
  const order = measure.repairOrder;
  const closed = order.status === 'CLOSED';
  const role = locals.user?.role;
  const self = `/repair-order/${order.id}/measure/${measure.id}`;
  const files: DossierDocument[] = measure.files.map((f) => ({
    id: f.id,
    category: 'measure-file',
    title: '',
    comment: f.comment,
    outageId: null,
    measureId: measure.id,
    createdAt: f.createdAt,
    file: { id: f.fileId, name: f.name, mimeType: f.mimeType, size: f.size },
  }));
  const form: OrderMeasureForm = {
    values: {
      name: measure.name,
      description: measure.description,
      unit: measure.unit,
      minimum: numberField(measure.minimum),
      maximum: numberField(measure.maximum),
      measuredValue: numberField(measure.measuredValue),
      checkResult: chosen(measure),
      comment: measure.comment,
    },
    errors: {},
    formError: null,
    fileValues: { comment: '' },
    fileError: null,
  };
  return {
    measure,
    order,
    closed,
    manage: can(role, 'manageOrders') && !closed,
    // Commercials and mechanics do not reach the diagnostic: they go back to the order.
    backHref: can(role, 'manageOrders') ? diagnosticHref(order.id, 'mesures') : `/repair-order/${order.id}`,
    self,
    files,
    form,
    /** Filled automatically from the dossier's measure; none for a measure typed on the order. */
    automaticFields: new Set<string>(measure.gearboxMeasureId ? DOSSIER_FIELDS : []),
  };
}
export type OrderMeasurePage = NonNullable<Awaited<ReturnType<typeof loadOrderMeasurePage>>>;

/** Carries out `?action=` (none: save the measure): a redirect with its toast, or the forms to show again; null when the viewer may not edit. */
export async function postOrderMeasurePage(
  astro: AstroGlobal,
  page: OrderMeasurePage,
  { action }: Pick<MeasurePageQuery, 'action'>,
): Promise<Response | (OrderMeasureForm & { status: number }) | null> {
  if (!page.manage) return null;
  const api = serverGraphQL(astro.locals);
  const { measure, self, backHref } = page;
  if (action === 'joindre') {
    const form = await astro.request.formData().catch(() => new FormData());
    const file = form.get('file');
    const fileValues = { comment: String(form.get('comment') ?? '').slice(0, 1000) };
    if (!isPostedFile(file)) return { ...page.form, status: 400, fileValues, fileError: t('documents.fileRequired') };
    // Stored first (the measure bucket's formats, SPEC §5), then linked.
    const result = await submitAction(
      astro,
      async () => {
        await storeAndLink(astro.locals, 'measure', file, (f) => api.request(INSERT_MEASURE_FILE, { m: measure.id, f, c: fileValues.comment }));
        return redirectWithToast(astro, t('documents.added'), `${self}#fichiers-mesure`);
      },
      { fallback: t('errors.fileImport', { file: file.name }), fields: [] },
    );
    if (result instanceof Response) return result;
    return { ...page.form, status: 400, fileValues, fileError: result.formError };
  }
  const fallback = t('errors.repairOrderUpdate');
  const result =
    action === 'supprimer'
      ? await submitAction(
          astro,
          async () => {
            await api.request(DELETE_MEASURE, { id: measure.id });
            return redirectWithToast(astro, t('orderMeasures.deleted'), backHref);
          },
          { fallback },
        )
      : action === 'supprimer-fichier'
        ? await submitAction(
            astro,
            async () => {
              const target = String((await astro.request.formData()).get('id') ?? '');
              if (measure.files.some((f) => f.id === target)) await api.request(DELETE_MEASURE_FILE, { id: target });
              return redirectWithToast(astro, t('documents.deleted'), `${self}#fichiers-mesure`);
            },
            { fallback },
          )
        : await submitForm(astro, { fields: ORDER_MEASURE_FIELDS, schema: orderMeasureSchema, fallback }, async ({ gearboxMeasureId: _link, ...input }) => {
            const object = {
              ...input,
              minimum: input.minimum ?? null,
              maximum: input.maximum ?? null,
              measuredValue: input.measuredValue ?? null,
              checkResult: input.checkResult ?? null,
            };
            await api.request(UPDATE_MEASURE, { id: measure.id, m: object });
            return redirectWithToast(astro, t('orderMeasures.saved'), backHref);
          });
  if (result instanceof Response) return result;
  return { ...page.form, status: 400, errors: result.errors, formError: result.formError, ...('values' in result ? { values: result.values } : {}) };
}

/** What the bounds propose for what the form holds (what was typed, after a failed save). */
export function proposalOf(values: Record<string, string>, measure: OrderMeasure | null) {
  const typed = orderMeasureSchema.safeParse({ ...values, checkResult: '' });
  if (typed.success) return proposeCheckResult(typed.data.measuredValue, typed.data.minimum, typed.data.maximum);
  return measure ? proposeCheckResult(measure.measuredValue, measure.minimum, measure.maximum) : null;
}
