// The curves sub-tab of an order's diagnostic: what it reads (curves, imported files, the model's
// reference curves and measure procedures, the CSVs to draw) and the posts it handles. A posted
// file is stored first, then linked through the API; when the link fails the stored file goes.
import type { AstroGlobal } from 'astro';
import { ClientError } from 'graphql-request';
import {
  CURVE_BUCKET,
  IMPORT_BUCKET,
  isCurveFileName,
  MAX_CURVE_BYTES,
  MAX_CURVE_ROWS,
  ORDER_CURVE_FIELDS,
  orderCurveSchema,
  readCurve,
  type CurveReading,
  type StoredFileInfo,
} from './curves.ts';
import { diagnosticHref, type DiagnosticOrder, type DiagnosticPageQuery, type TabActionResult, type TabFailure } from './diagnostic-page.ts';
import { documentsOf } from '#lib/gearboxes/documents.server.ts';
import { DocumentFields } from '#lib/gearboxes/documents.ts';
import { formatNumber } from '#lib/format.ts';
import { singular } from '#lib/plural.ts';
import { type FormFailure, formFailureOf, storeAndLink } from '#lib/forms.server.ts';
import { hasCode } from '#lib/errors.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { DomainError } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';
import { graphql, type TadaDocumentNode } from '#lib/graphql.ts';
import { OrderCurveFields, OrderFileFields } from './curves.ts';

export const isCsv = (file: StoredFileInfo) => file.mimeType === 'text/csv';

/** A stored CSV read as a curve, or why it cannot be drawn (the curves tab and the report). */
export async function readingOf(locals: App.Locals, file: StoredFileInfo): Promise<CurveReading> {
  if (file.size > MAX_CURVE_BYTES) return { curve: null, error: t('curves.tooLong', { max: formatNumber(MAX_CURVE_ROWS) }) };
  const text = await locals.services.files.readText(file.id, MAX_CURVE_BYTES);
  return text === null ? { curve: null, error: t('curves.notText') } : readCurve(text);
}

const DELETE_CURVE = graphql(`mutation($id: uuid!) { deleteOrderCurve(id: $id) }`);
const DELETE_ORDER_FILE = graphql(`mutation($id: uuid!) { deleteOrderFile(id: $id) }`);
const CURVES_TAB = graphql(
  `query($id: uuid!, $m: uuid!) {
    repairOrder(id: $id) { curves { ...OrderCurveFields } diagnosticFiles { ...OrderFileFields } }
    gearboxModel(id: $m) { documents { ...DocumentFields } }
  }`,
  [OrderCurveFields, OrderFileFields, DocumentFields],
);

/** Everything the tab shows; each CSV (the curves' and their references') read once. */
export async function loadCurvesTab(locals: App.Locals, order: DiagnosticOrder) {
  const api = serverGraphQL(locals);
  const data = await api.request(CURVES_TAB, { id: order.id, m: order.model.id });
  const documents = documentsOf(data.gearboxModel?.documents ?? []);
  const curves = data.repairOrder?.curves ?? [];
  const readings = new Map<string, CurveReading>();
  const toRead = curves.flatMap((c) => [...(c.reference ? [c.reference.file] : []), ...c.files.map((f) => f.file).filter(isCsv)]);
  for (const file of toRead) if (!readings.has(file.id)) readings.set(file.id, await readingOf(locals, file));
  return {
    curves,
    imports: data.repairOrder?.diagnosticFiles ?? [],
    referenceCurves: documents.filter((d) => d.category === 'reference-curve'),
    measureProcedures: documents.filter((d) => d.category === 'measure-procedure'),
    readings,
  };
}

/** What went wrong, in French, whatever threw: nothing reaches the page as a 500. */
function reasonOf(error: unknown): { code?: FormFailure['code']; message: string; fields: FieldErrors } {
  if (!(error instanceof ClientError) && !(error instanceof DomainError)) return { message: t('errors.generic'), fields: {} };
  const refusal = formFailureOf(error, { rename: { fileId: 'file' }, fileField: 'file' });
  const { code, errors, formError } = refusal;
  if (hasCode(refusal, 'not-found')) return { code, message: t('curves.notFound'), fields: {} };
  return { code, message: formError ?? Object.values(errors)[0] ?? t('errors.generic'), fields: errors };
}

const failure = (form: string, values: Record<string, string>, reason: { code?: FormFailure['code']; message: string; fields: FieldErrors }): TabFailure => ({
  status: hasCode(reason, 'forbidden') ? 403 : 400,
  form,
  values,
  errors: reason.fields,
  // A refusal tied to a field shows there; the others (closed order, rights) above the form.
  formError: Object.keys(reason.fields).length ? undefined : reason.message,
});

/** The posted file, when one was chosen. */
const fileOf = (form: FormData, name = 'file') => {
  const file = form.get(name);
  return file instanceof File && file.size > 0 && file.name ? file : null;
};

/** A curve file is checked before anything is written: its format, and a CSV must read as a curve. */
async function checkCurveFile(file: File): Promise<string | null> {
  if (!isCurveFileName(file.name)) return t('validation.unsupportedFormat');
  if (!file.name.toLowerCase().endsWith('.csv')) return null;
  if (file.size > MAX_CURVE_BYTES) return t('curves.tooLong', { max: formatNumber(MAX_CURVE_ROWS) });
  return readCurve(await file.text()).error ?? null;
}

/** Handles the tab's `?action=courbe…` and `?action=import…` posts. */
export async function postCurvesAction(
  astro: AstroGlobal,
  order: DiagnosticOrder,
  query: Pick<DiagnosticPageQuery, 'action' | 'recordId'>,
): Promise<TabActionResult> {
  const { locals } = astro;
  const { action } = query;
  const href = diagnosticHref(order.id, 'courbes');
  const api = serverGraphQL(locals);
  let form: FormData;
  try {
    form = await astro.request.formData();
  } catch {
    return { status: 400, form: action, formError: t('errors.generic') };
  }
  const id = String(form.get('id') ?? query.recordId ?? '');
  const attach = (file: File, bucketId: typeof CURVE_BUCKET | typeof IMPORT_BUCKET, object: { kind: 'curve' | 'import'; curveId?: string; comment?: string }) =>
    storeAndLink(locals, bucketId, file, (fileId) =>
      api.request(graphql(`mutation($o: uuid!, $f: order_files_input!) { insertOrderFile(repairOrderId: $o, object: $f) }`), {
        o: order.id,
        f: { ...object, fileId },
      }),
    );

  if (action === 'courbe-ajout' || action === 'courbe-modif') {
    const values = Object.fromEntries(ORDER_CURVE_FIELDS.map((name) => [name, String(form.get(name) ?? '').slice(0, 4000)]));
    if (action === 'courbe-modif') values.id = id;
    const parsed = orderCurveSchema.safeParse(values);
    const errors: FieldErrors = parsed.success ? {} : fieldErrors(parsed.error);
    const file = action === 'courbe-ajout' ? fileOf(form) : null;
    const fileError = file ? await checkCurveFile(file) : null;
    if (fileError) errors.file = fileError;
    if (!parsed.success || Object.keys(errors).length) return { status: 400, form: action, values, errors };
    const object = { ...parsed.data };
    if (action === 'courbe-modif') {
      try {
        await api.request(graphql(`mutation($id: uuid!, $c: order_curves_input!) { updateOrderCurve(id: $id, object: $c) }`), { id, c: object });
        return redirectWithToast(astro, t('curves.saved'), href);
      } catch (error) {
        return failure(action, values, reasonOf(error));
      }
    }
    let curveId: string | null = null;
    try {
      curveId = (
        await api.request(graphql(`mutation($o: uuid!, $c: order_curves_input!) { insertOrderCurve(repairOrderId: $o, object: $c) }`), {
          o: order.id,
          c: object,
        })
      ).insertOrderCurve;
      if (file) await attach(file, CURVE_BUCKET, { kind: 'curve', curveId });
      return redirectWithToast(astro, t('curves.added'), href);
    } catch (error) {
      // A curve whose file could not be kept is not kept either.
      if (curveId) await api.request(DELETE_CURVE, { id: curveId }).catch(() => undefined);
      return failure(action, values, reasonOf(error));
    }
  }

  if (action === 'courbe-fichier') {
    const values = { id, comment: String(form.get('comment') ?? '').slice(0, 1000) };
    const file = fileOf(form);
    const fileError = file ? await checkCurveFile(file) : t('curves.fileRequired');
    if (!file || fileError) return { status: 400, form: action, values, errors: { file: fileError ?? undefined } };
    try {
      await attach(file, CURVE_BUCKET, { kind: 'curve', curveId: id, comment: values.comment });
      return redirectWithToast(astro, t('curves.fileAdded'), href);
    } catch (error) {
      return failure(action, values, reasonOf(error));
    }
  }

  if (action === 'import') {
    const chosen = form.getAll('files').filter((f): f is File => f instanceof File && f.size > 0 && !!f.name);
    if (chosen.length === 0) return { status: 400, form: action, values: {}, errors: { files: t('curves.filesRequired') } };
    // Each file on its own: one refused does not keep the others out (SPEC §8).
    const failed: { name: string; reason: string }[] = [];
    for (const file of chosen) {
      try {
        await attach(file, IMPORT_BUCKET, { kind: 'import' });
      } catch (error) {
        failed.push({ name: file.name, reason: reasonOf(error).message });
      }
    }
    if (failed.length === 0)
      return redirectWithToast(
        astro,
        singular(chosen.length) ? t('curves.importedOne', { count: chosen.length }) : t('curves.imported', { count: chosen.length }),
        href,
      );
    return {
      status: 400,
      form: action,
      values: {},
      formError: failed.map((f) => t('errors.fileImport', { file: f.name })).join('\n'),
      errors: { files: failed.map((f) => `${f.name} : ${f.reason}`).join('\n') },
    };
  }

  const deletions: Record<string, { mutation: TadaDocumentNode<unknown, { id: string }>; done: string }> = {
    'courbe-suppr': { mutation: DELETE_CURVE, done: t('curves.deleted') },
    'courbe-fichier-suppr': { mutation: DELETE_ORDER_FILE, done: t('curves.fileDeleted') },
    'import-suppr': { mutation: DELETE_ORDER_FILE, done: t('curves.importDeleted') },
  };
  const deletion = Object.hasOwn(deletions, action) ? deletions[action] : undefined;
  if (deletion) {
    try {
      await api.request(deletion.mutation, { id });
      return redirectWithToast(astro, deletion.done, href);
    } catch (error) {
      return failure(action, { id }, { ...reasonOf(error), fields: {} });
    }
  }
  return astro.redirect(href, 303);
}
