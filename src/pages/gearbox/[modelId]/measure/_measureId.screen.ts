// The screen module of a measure of a gearbox model (`/gearbox/{modelId}/measure/{measureId}`, SPEC
// §2.8, decision 065), or of the form of a new one (no measure id): what its URL may say, what it
// shows (the measure and its procedure files) and the forms it posts by `?action=` (the measure
// itself, its deletion, a file and a file's deletion).
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { formValues, submitAction, submitForm, postedForm } from '#lib/forms.server.ts';
import { numberField } from '#lib/format.ts';
import { postDocument, type DocumentDraft } from '#lib/gearboxes/documents.server.ts';
import { measureSchema } from '#lib/gearboxes/measures.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { optionalRecordId, readPage, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import type { FieldErrors } from '#lib/validation.ts';

/** `/gearbox/{modelId}/measure/{measureId}` (or the creation form without the measure): path and query. */
export const querySchema = z
  .object({ modelId: recordId(), measureId: optionalRecordId(), ...recordPageFields })
  .transform((q) => ({ modelId: q.modelId, measureId: q.measureId, ...recordPageValues(q) }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

export type MeasurePageQuery = ReturnType<typeof read>;

export const MEASURE_FIELDS = ['name', 'description', 'unit', 'minimum', 'maximum'] as const;
export type MeasureField = (typeof MEASURE_FIELDS)[number];

/**
 * The model and its measure (none for the creation form), or null for a 404: an unknown model, a
 * measure of another model, or the creation form for a user who may not edit dossiers.
 */
export async function load(locals: App.Locals, query: Pick<MeasurePageQuery, 'modelId' | 'measureId'>) {
  const { modelId, measureId } = query;
  if (!modelId || measureId === null || (measureId === undefined && !can(locals.user?.role, 'manageGearboxModels'))) return null;
  const { gearboxModels, gearboxMeasures, gearboxDocuments } = locals.services;
  const [model, measure, files] = await withinBudget(
    locals,
    Promise.all([
      gearboxModels.get(modelId),
      measureId ? gearboxMeasures.get(measureId) : Promise.resolve(undefined),
      measureId ? gearboxDocuments.ofMeasure(measureId) : Promise.resolve([]),
    ]),
  );
  if (!model || (measureId && measure?.modelId !== model.id)) return null;
  return {
    model: { id: model.id, model: model.model },
    measure: measure ?? null,
    files,
    listHref: `/gearbox/${model.id}?onglet=documents&vue=mesures`,
    measureHref: measure ? `/gearbox/${model.id}/measure/${measure.id}` : '',
  };
}
export type MeasurePage = NonNullable<Awaited<ReturnType<typeof load>>>;

/** What the page's forms show: the measure form, the message above it, a file's draft. */
export type MeasureForms = { values: Record<string, string>; errors: FieldErrors; formError: string | null; documentDraft: DocumentDraft | null };

/** The forms before any post (the measure form holds the saved measure, empty for a new one), with what a refused post shows again. */
export function forms(page: MeasurePage | null, refused: Partial<MeasureForms> | null): MeasureForms {
  const measure = page?.measure;
  const values: Record<string, string> = measure
    ? { name: measure.name, description: measure.description, unit: measure.unit, minimum: numberField(measure.minimum), maximum: numberField(measure.maximum) }
    : {};
  return { values, errors: {}, formError: null, documentDraft: null, ...refused };
}

type Refused = Partial<MeasureForms> & { status: number };

/**
 * Handles a post of the page by its `?action=`: a redirect on success, the forms to show again
 * with their status on a refusal, or null for a user who may not edit dossiers (nothing is done).
 * The model and the measure were read by `load` (decision 068); a file is deleted only when it is
 * one of the measure's.
 */
export async function post(astro: AstroGlobal, page: MeasurePage, query: MeasurePageQuery): Promise<Response | Refused | null> {
  if (!can(astro.locals.user?.role, 'manageGearboxModels')) return null;
  const { action } = query;
  const modelId = page.model.id;
  const measureId = page.measure?.id;
  const { gearboxMeasures, gearboxDocuments } = astro.locals.services;
  const measureHref = `/gearbox/${modelId}/measure/${measureId}`;
  if (action === 'joindre' && measureId) {
    const documentDraft = await postDocument(astro.locals, await postedForm(astro), { modelId, measureId }, ['measure-file']);
    if (!documentDraft) return redirectWithToast(astro, t('documents.added'), `${measureHref}#fichiers-mesure`);
    return { documentDraft, status: 400 };
  }
  const result =
    action === 'supprimer' && measureId
      ? await submitAction(astro, async () => {
          await gearboxMeasures.remove(measureId);
          return redirectWithToast(astro, t('measures.deleted'), `/gearbox/${modelId}?onglet=documents&vue=mesures`);
        })
      : action === 'supprimer-fichier' && measureId
        ? await submitAction(astro, async () => {
            const { id: documentId } = formValues(await postedForm(astro), ['id']);
            if (page.files.some((f) => f.id === documentId)) await gearboxDocuments.remove(documentId);
            return redirectWithToast(astro, t('documents.deleted'), `${measureHref}#fichiers-mesure`);
          })
        : await submitForm(astro, { fields: MEASURE_FIELDS, schema: measureSchema }, async (data) => {
            if (measureId) {
              await gearboxMeasures.update(measureId, data);
              return redirectWithToast(astro, t('measures.saved'), measureHref);
            }
            const measure = await gearboxMeasures.insert(modelId, data);
            return redirectWithToast(astro, t('measures.added'), `/gearbox/${modelId}/measure/${measure.id}`);
          });
  if (result instanceof Response) return result;
  return { errors: result.errors, formError: result.formError, ...('values' in result ? { values: result.values } : {}), status: 400 };
}
