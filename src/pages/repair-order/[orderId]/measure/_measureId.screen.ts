// The screen of a measure taken on a repair order (`/repair-order/{uuid}/measure/{uuid}`, SPEC
// §2.7, §3, decision 065): what its URL says, what it reads, and its posts (save, delete, attach
// a file, delete a file), which only admins and diagnosticians make, and only while the order is
// open; through the services bound to the viewer.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import type { Role } from '#lib/roles.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import {
  clashErrors,
  filledValuesOf,
  formFailureOf,
  formValues,
  isPostedFile,
  isUnread,
  mergeOverSaved,
  postedForm,
  storeAndLink,
  submitAction,
  submitForm,
  textAsRead,
  unsavedFields,
} from '#lib/forms.server.ts';
import { numberField } from '#lib/format.ts';
import type { GearboxDocument } from '#lib/gearboxes/documents.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readPage, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { diagnosticHref } from '#lib/repair-orders/diagnostic-page.ts';
import { type CheckResult, checkResultLabels, ORDER_MEASURE_FIELDS, orderMeasureSchema, proposeCheckResult } from '#lib/repair-orders/measures.ts';
import type { FieldErrors } from '#lib/validation.ts';
import { PHOTOS_FIELD } from '#lib/repair-orders/photos.ts';
import {
  noneAddedMessage,
  photoItemOf,
  photoRefusal,
  photosAdded,
  photosRefused,
  postedKey,
  postedPhotos,
  tooBigMessage,
} from '#lib/repair-orders/photos.server.ts';

/** `/repair-order/{uuid}/measure/{uuid}`: path and query. */
export const querySchema = z
  // `supprimer-photo`: a photo whose deletion the page asks first.
  .object({ orderId: recordId(), measureId: recordId(), ...recordPageFields, 'supprimer-photo': recordId() })
  .transform((q) => ({ orderId: q.orderId, measureId: q.measureId, ...recordPageValues(q), confirmPhoto: q['supprimer-photo'] }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

/** Everything the page reads from its path and query. */
type MeasurePageQuery = ReturnType<typeof read>;

/** A measure of an order, as the service reads it. */
type OrderMeasure = NonNullable<Awaited<ReturnType<App.Locals['services']['orderMeasures']['get']>>>;

/** What the page's forms show: the measure's form and the file form, each with its messages. */
export type OrderMeasureForm = {
  values: Record<string, string>;
  /** What was typed that could not be saved at all (the order closed meanwhile), to copy. */
  unsaved?: { label: string; value: string }[];
  /** That form as posted, to fill it again should the order be reopened (walk16 F5). */
  typed?: { values: Record<string, string>; filled: Record<string, string> };
  /** Said above the form, not as an error: the order reopened since that refusal. */
  formNotice?: string;
  errors: FieldErrors;
  formError: string | null;
  fileValues: { comment: string };
  fileError: string | null;
  /** A refused photo post's message, beside the photo field (decision 088). */
  photoError?: string | null;
  /** The saved measure's version the form was filled over (a colleague's save meanwhile refuses it). */
  version: string;
  /** The values the form was filled with, to merge a colleague's save meanwhile. */
  filled: Record<string, string>;
};

/** The fields a measure copied from the dossier was filled with (SPEC §5: their labels say «(automatique)»). */
const DOSSIER_FIELDS = ['name', 'description', 'unit', 'minimum', 'maximum'] as const;

/** The measure's fields as its form labels them, in the form's order. */
const FIELD_LABELS = {
  name: 'measures.name',
  minimum: 'measures.minimum',
  maximum: 'measures.maximum',
  unit: 'measures.unit',
  measuredValue: 'orderMeasures.value',
  checkResult: 'orderMeasures.result',
  description: 'measures.description',
  comment: 'orderMeasures.comment',
} as const satisfies Record<(typeof ORDER_MEASURE_FIELDS)[number], string>;

/** A field's value as the user reads it: a result by its label («Automatique» when none is chosen), the rest as typed. */
const shownValue = (name: string, value: string) =>
  name === 'checkResult' ? (value ? (checkResultLabels[value as CheckResult] ?? value) : t('orderMeasures.automaticChoice')) : value;

/** A field's value as two readings of the form are compared: a number «5,1» is the saved 5.1, a text as it reads. */
const asCompared = (name: string, value: string) =>
  name === 'minimum' || name === 'maximum' || name === 'measuredValue' ? value.replace(/\s/g, '').replace(',', '.') : textAsRead(value);

/** The result someone chose, or "automatic" (''): a measure saved before results were marked chosen is chosen when it differs from what the bounds propose. */
const chosen = (m: OrderMeasure) =>
  m.checkResult && (m.checkResultChosen || m.checkResult !== proposeCheckResult(m.measuredValue, m.minimum, m.maximum)) ? m.checkResult : '';

/** The measure and what the page decides from it, or null when the URL names no measure of this order. */
export async function load(locals: App.Locals, { orderId, measureId }: MeasurePageQuery) {
  if (!orderId || !measureId) return null;
  const { orderMeasures, repairOrders, orderPhotos } = locals.services;
  const [row, order, orderPhotoRows] = await withinBudget(
    locals,
    Promise.all([orderMeasures.get(measureId), repairOrders.get(orderId), orderPhotos.photosOf(orderId, { measureId })]),
  );
  if (!row || !order || row.orderId !== order.id) return null;
  const measure = { ...row, checkResult: row.checkResult as CheckResult | null };
  const closed = order.status === 'CLOSED';
  const role = locals.user?.role;
  const self = `/repair-order/${order.id}/measure/${measure.id}`;
  const files: GearboxDocument[] = measure.files.map((f) => ({
    id: f.id,
    category: 'measure-file',
    title: '',
    comment: f.comment,
    outageId: null,
    measureId: measure.id,
    createdAt: f.createdAt.toISOString(),
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
    version: row.version,
    filled: {},
  };
  form.filled = form.values;
  return {
    measure,
    order,
    closed,
    manage: can(role, 'manageOrders') && !closed,
    // Commercials and mechanics do not reach the diagnostic: they go back to the order.
    backHref: can(role, 'manageOrders') ? diagnosticHref(order.id, 'mesures') : `/repair-order/${order.id}`,
    self,
    files,
    photos: orderPhotoRows.map((p) => photoItemOf(locals.services.files, p)),
    /** Who may add and delete the measure's photos: who manages orders, while the order is open. */
    managePhotos: can(role, 'manageOrders') && !closed,
    form,
    /** Filled automatically from the dossier's measure; none for a measure typed on the order. */
    automaticFields: new Set<string>(measure.gearboxMeasureId ? DOSSIER_FIELDS : []),
  };
}
export type OrderMeasurePage = NonNullable<Awaited<ReturnType<typeof load>>>;

/** What the measure's page shows again after a refused post. */
export type MeasureRefusal = OrderMeasureForm & { status: number };

/**
 * What the user changed on a measure's form that the measure as saved does not hold, labelled as
 * the form labels it: not what a colleague changed meanwhile, nor the values a refused file or
 * deletion carried back.
 */
function unsavedOf(typed: Pick<OrderMeasureForm, 'values' | 'filled'>, saved: OrderMeasureForm) {
  return unsavedFields(FIELD_LABELS, { typed: typed.values, filled: typed.filled, saved: saved.values }, shownValue, asCompared);
}

/**
 * A refusal read back on a later visit, as the measure stands now (walk15 F1, F2): once the order
 * is reopened, the closed order's refusal fills the form again with what was typed (walk16 F5), to
 * save over what is saved now as any form filled earlier; a measure refused for another reason on
 * an order closed since shows the closed order's refusal, with what was typed to copy.
 */
export function refusalNow(failure: MeasureRefusal | null, page: OrderMeasurePage | null, role: Role | undefined): MeasureRefusal | null {
  if (!failure || !page) return failure;
  // A refused photo post carries nothing typed: its message is said as it was (the order closed meanwhile).
  if (failure.photoError) return failure;
  if (failure.unsaved && !page.closed) {
    // Nothing of the user's was lost: nothing to say once the order is open again.
    if (failure.unsaved.length === 0) return null;
    const { typed } = failure;
    if (typed && page.manage) {
      // What the user changed, over what is saved now, as a save would merge it (walk17 F2).
      const merged = mergeOverSaved(ORDER_MEASURE_FIELDS, { typed: typed.values, filled: typed.filled, saved: page.form.values }, asCompared);
      const errors = clashErrors(merged.clashes, page.form.values, shownValue);
      return { ...page.form, values: merged.values, errors, status: failure.status, formNotice: t('refusals.orderReopenedTyped') };
    }
    // Refused before refusals carried the form: the form as the measure is now, what was typed listed above it.
    return { ...page.form, status: failure.status, formError: t('refusals.orderReopened'), unsaved: failure.unsaved };
  }
  if (failure.unsaved || !page.closed || !can(role, 'manageOrders')) return failure;
  const unsaved = unsavedOf(failure, page.form);
  return unsaved.length ? { ...page.form, status: failure.status, formError: t('refusals.orderClosed'), unsaved } : null;
}

/** Carries out `?action=` (none: save the measure): a redirect with its toast, or the forms to show again; null when the viewer may not edit. */
export async function post(astro: AstroGlobal, page: OrderMeasurePage, { action }: MeasurePageQuery): Promise<Response | MeasureRefusal | null> {
  // Closed while this form was open: said, with what was typed to copy it, rather than dropped (walk14 F1).
  if (page.closed && can(astro.locals.user?.role, 'manageOrders') && !action) {
    const data = await postedForm(astro);
    const typed = {
      values: formValues(data, ORDER_MEASURE_FIELDS) as Record<string, string>,
      // A form from before forms carried what they were filled with: read against the measure as saved.
      filled: filledValuesOf(data) ?? page.form.values,
    };
    return { ...page.form, status: 409, formError: t('refusals.orderClosed'), unsaved: unsavedOf(typed, page.form), typed };
  }
  if (action === 'photos' || action === 'supprimer-photo') return postPhotos(astro, page, action);
  if (!page.manage) return null;
  const { orderMeasures } = astro.locals.services;
  const { measure, self, backHref } = page;
  if (action === 'joindre') {
    const form = await postedForm(astro);
    const file = form.get('file');
    const fileValues = { comment: String(form.get('comment') ?? '').slice(0, 1000) };
    if (!isPostedFile(file)) return { ...page.form, status: 400, fileValues, fileError: t('documents.fileRequired') };
    // Stored first (the measure bucket's formats, SPEC §5), then linked; a refusal of either is said beside the file.
    const result = await submitAction(
      astro,
      async () => {
        await storeAndLink(astro.locals, 'measure', file, (fileId) => orderMeasures.attachFile(measure.id, fileId, fileValues.comment));
        return redirectWithToast(astro, t('documents.added'), `${self}#fichiers-mesure`);
      },
      { fallback: t('errors.fileImport', { file: file.name }), fields: [], fileField: 'file' },
    );
    if (result instanceof Response) return result;
    return { ...page.form, status: 400, fileValues, fileError: result.errors.file ?? result.formError };
  }
  const fallback = t('errors.repairOrderUpdate');
  // The measure's version the form was filled over.
  const version = String((await postedForm(astro)).get('version') ?? '').slice(0, 64);
  const result =
    action === 'supprimer'
      ? await submitAction(
          astro,
          async () => {
            await orderMeasures.removeMeasure(measure.id);
            return redirectWithToast(astro, t('orderMeasures.deleted'), backHref);
          },
          { fallback },
        )
      : action === 'supprimer-fichier'
        ? await submitAction(
            astro,
            async () => {
              const fileId = String((await postedForm(astro)).get('id') ?? '');
              if (measure.files.some((f) => f.id === fileId)) await orderMeasures.removeFile(fileId);
              return redirectWithToast(astro, t('documents.deleted'), `${self}#fichiers-mesure`);
            },
            { fallback },
          )
        : await submitForm(astro, { fields: ORDER_MEASURE_FIELDS, schema: orderMeasureSchema, fallback }, async ({ gearboxMeasureId: _link, ...input }) => {
            await orderMeasures.updateMeasure(measure.id, input, version);
            return redirectWithToast(astro, t('orderMeasures.saved'), backHref);
          });
  if (result instanceof Response) return result;
  const filled = filledValuesOf(await postedForm(astro));
  if ('values' in result && hasReason(result, 'stale') && filled) {
    // Saved meanwhile by a colleague (`load` read the measure as it is now): merged as they would,
    // saved at once when no field was changed by both, else shown with those fields to check.
    const merged = mergeOverSaved(ORDER_MEASURE_FIELDS, { typed: result.values, filled, saved: page.form.values }, asCompared);
    const parsed = orderMeasureSchema.safeParse(merged.values);
    if (!merged.clashes.length && parsed.success) {
      const { gearboxMeasureId: _link, ...input } = parsed.data;
      const again = await submitAction(astro, async () => {
        await orderMeasures.updateMeasure(measure.id, input, page.form.version);
        return redirectWithToast(astro, t('orderMeasures.saved'), backHref);
      });
      if (again instanceof Response) return again;
    }
    const errors = clashErrors(merged.clashes, page.form.values, shownValue);
    return { ...page.form, status: 400, values: merged.values, errors, formError: result.formError, filled: page.form.values };
  }
  return {
    ...page.form,
    status: 400,
    errors: result.errors,
    formError: result.formError,
    version,
    filled: filled ?? page.form.values,
    ...('values' in result ? { values: result.values } : {}),
  };
}

/**
 * The measure's photos (decision 088): added or one deleted, by who manages orders; the service
 * refuses a closed order's, said beside the photo field.
 */
async function postPhotos(astro: AstroGlobal, page: OrderMeasurePage, action: 'photos' | 'supprimer-photo'): Promise<Response | MeasureRefusal | null> {
  if (!can(astro.locals.user?.role, 'manageOrders')) return null;
  const { orderPhotos } = astro.locals.services;
  const { measure, order, self } = page;
  // Over the photo post's cap, left unread (middleware): refused whole beside the field.
  if (action === 'photos' && isUnread(astro))
    return { ...page.form, status: 413, photoError: tooBigMessage(astro.locals.services.config.storageMaxBytes.photo) };
  const form = await postedForm(astro);
  const uploads = postedPhotos(form);
  try {
    if (action === 'supprimer-photo') {
      const photoId = astro.url.searchParams.get('id') ?? '';
      // Only this measure's photos: a sibling measure's id is not found here.
      if (!page.photos.some((p) => p.id === photoId)) return { ...page.form, status: 404, photoError: t('orderPhotos.notFound') };
      await orderPhotos.removeFromMeasure(photoId, order.id);
      return redirectWithToast(astro, t('orderPhotos.removed'), `${self}#photos-mesure`);
    }
    const count = await orderPhotos.addToMeasure(measure.id, uploads, order.id, postedKey(form));
    return photosAdded(astro, count, `${self}#photos-mesure`);
  } catch (error) {
    const failure = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), fields: [PHOTOS_FIELD] });
    const { status, message } = photoRefusal(failure, failure.formError ?? t('errors.repairOrderUpdate'));
    if (action === 'photos') return photosRefused(astro, status, message, uploads) ?? { ...page.form, status, photoError: noneAddedMessage(message) };
    return { ...page.form, status, photoError: message };
  }
}

/** What the bounds propose for what the form holds (what was typed, after a failed save). */
export function proposalOf(values: Record<string, string>, measure: OrderMeasure | null) {
  const typed = orderMeasureSchema.safeParse({ ...values, checkResult: '' });
  if (typed.success) return proposeCheckResult(typed.data.measuredValue, typed.data.minimum, typed.data.maximum);
  return measure ? proposeCheckResult(measure.measuredValue, measure.minimum, measure.maximum) : null;
}
