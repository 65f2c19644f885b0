// A measure's page of a gearbox model (SPEC §2.8), or the form of a new one: what it shows (the
// measure and its procedure files) and the forms it posts by `?action=` (the measure itself, its
// deletion, a file and a file's deletion).
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import { documentsOf, postDocument, type DocumentDraft, DELETE_DOCUMENT } from './documents.server.ts';
import { DocumentFields } from './documents.ts';
import { measureSchema, type measurePageSchema } from './measures.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { submitAction, submitForm } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { can } from '#lib/permissions.ts';
import { dossierRecord } from './dossier.server.ts';
import type { FieldErrors } from '#lib/validation.ts';
import { numberField } from '#lib/format.ts';

export type MeasurePageQuery = z.output<typeof measurePageSchema>;

export const MEASURE_FIELDS = ['name', 'description', 'unit', 'minimum', 'maximum'] as const;
export type MeasureField = (typeof MEASURE_FIELDS)[number];

const MEASURE_PAGE = graphql(
  `query($g: uuid!, $m: uuid!, $withMeasure: Boolean!) {
    gearboxModel(id: $g) { id model }
    gearboxMeasure(id: $m) @include(if: $withMeasure) { id gearboxModelId name description unit minimum maximum files { ...DocumentFields } }
  }`,
  [DocumentFields],
);

/**
 * The model and its measure (none for the creation form), or null for a 404: an unknown model, a
 * measure of another model, or the creation form for a user who may not edit dossiers.
 */
export async function loadMeasurePage(locals: App.Locals, query: Pick<MeasurePageQuery, 'gearboxId' | 'measureId'>) {
  const { gearboxId, measureId } = query;
  const data =
    gearboxId && measureId !== null
      ? await serverGraphQL(locals).request(MEASURE_PAGE, { g: gearboxId, m: measureId ?? gearboxId, withMeasure: measureId !== undefined })
      : null;
  const model = data?.gearboxModel ?? null;
  const { record: measure, found } = dossierRecord(locals, model, data?.gearboxMeasure, measureId);
  if (!model || !found) return null;
  return {
    model,
    measure,
    files: documentsOf(measure?.files ?? []),
    listHref: `/gearbox/${model.id}?onglet=documents&vue=mesures`,
    measureHref: measure ? `/gearbox/${model.id}/measure/${measure.id}` : '',
  };
}
export type MeasurePage = NonNullable<Awaited<ReturnType<typeof loadMeasurePage>>>;

/** What the page's forms show: the measure form, the message above it, a file's draft. */
export type MeasureForms = { values: Record<string, string>; errors: FieldErrors; formError: string | null; documentDraft: DocumentDraft | null };

/** The forms before any post: the measure form holds the saved measure (empty for a new one). */
export function measureForms(page: MeasurePage | null): MeasureForms {
  const measure = page?.measure;
  const values: Record<string, string> = measure
    ? { name: measure.name, description: measure.description, unit: measure.unit, minimum: numberField(measure.minimum), maximum: numberField(measure.maximum) }
    : {};
  return { values, errors: {}, formError: null, documentDraft: null };
}

/**
 * Handles a post of the page by its `?action=`: a redirect on success, the forms to show again
 * with their status on a refusal, or null for a user who may not edit dossiers (nothing is done).
 */
export async function postMeasurePage(
  astro: AstroGlobal,
  page: MeasurePage,
  query: Pick<MeasurePageQuery, 'action'>,
): Promise<Response | (MeasureForms & { status: number }) | null> {
  if (!can(astro.locals.user?.role, 'manageGearboxes')) return null;
  const { model, measure, files, listHref, measureHref } = page;
  const { action } = query;
  const api = serverGraphQL(astro.locals);
  const forms = { ...measureForms(page), status: 400 };
  if (action === 'joindre' && measure) {
    const documentDraft = await postDocument(astro.locals, api, await astro.request.formData(), { gearboxModelId: model.id, measureId: measure.id }, [
      'measure-file',
    ]);
    if (!documentDraft) return redirectWithToast(astro, t('documents.added'), `${measureHref}#fichiers-mesure`);
    return { ...forms, documentDraft };
  }
  const result =
    action === 'supprimer' && measure
      ? await submitAction(astro, async () => {
          await api.request(graphql(`mutation($id: uuid!) { deleteGearboxMeasure(id: $id) }`), { id: measure.id });
          return redirectWithToast(astro, t('measures.deleted'), listHref);
        })
      : action === 'supprimer-fichier' && measure
        ? await submitAction(astro, async () => {
            const target = String((await astro.request.formData()).get('id') ?? '');
            if (files.some((f) => f.id === target)) await api.request(DELETE_DOCUMENT, { id: target });
            return redirectWithToast(astro, t('documents.deleted'), `${measureHref}#fichiers-mesure`);
          })
        : await submitForm(astro, { fields: MEASURE_FIELDS, schema: measureSchema }, async (data) => {
            const object = { ...data, minimum: data.minimum ?? null, maximum: data.maximum ?? null };
            if (measure) {
              await api.request(graphql(`mutation($id: uuid!, $o: gearbox_measures_input!) { updateGearboxMeasure(id: $id, object: $o) { id } }`), {
                id: measure.id,
                o: object,
              });
              return redirectWithToast(astro, t('measures.saved'), measureHref);
            }
            const { insertGearboxMeasure } = await api.request(
              graphql(`mutation($g: uuid!, $o: gearbox_measures_input!) { insertGearboxMeasure(gearboxModelId: $g, object: $o) { id } }`),
              { g: model.id, o: object },
            );
            return redirectWithToast(astro, t('measures.added'), `/gearbox/${model.id}/measure/${insertGearboxMeasure.id}`);
          });
  if (result instanceof Response) return result;
  return { ...forms, errors: result.errors, formError: result.formError, ...('values' in result ? { values: result.values } : {}) };
}
