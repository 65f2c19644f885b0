// A gearbox model's dossier page (SPEC §2.8): what its open tab shows, and the forms it posts
// (general data with no `?action=`, the model's deletion, codes, error codes, procedures,
// documents). A post that succeeds redirects with a toast; one refused answers the forms to show
// again with a 400.
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import { CODE_ACTIONS, emptyCodesDraft, postCodeAction, type CodesDraft } from './codes.server.ts';
import { documentsOf, postDocument, type DocumentDraft, DELETE_DOCUMENT } from './documents.server.ts';
import { DocumentFields } from './documents.ts';
import { GEARBOX_FIELDS, gearboxObject, valuesOf } from './form.server.ts';
import { GearboxModelFields } from './gearboxes.ts';
import { errorCodeSchema, gearboxModelSchema, type gearboxPageSchema } from './gearboxes.ts';
import { checkProcedureDraft, readProcedureForm, type ProcedureDraft } from './procedures.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { formFailureOf, submitForm } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { can } from '#lib/permissions.ts';
import { parseCurve, type Curve } from '#lib/repair-orders/curves.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';

export type DossierPageQuery = z.output<typeof gearboxPageSchema>;

// Only the open tab's lists are read.
const DOSSIER_PAGE = graphql(
  `query($id: uuid!, $codes: Boolean!, $errorCodes: Boolean!, $outages: Boolean!, $procedures: Boolean!, $documents: Boolean!) {
    gearboxModel(id: $id) {
      ...GearboxModelFields
      doctorCodes @include(if: $codes) { id code businessName tvsCode engine gearboxCodes { id code } }
      errorCodes @include(if: $errorCodes) { id code description orderCount } orderCount
      outages @include(if: $outages) {
        id component { id name } outageType { id name } description occurrenceRate averageMileage orderCount ordersAverageMileage
      }
      repairProcedures @include(if: $procedures) { id name description steps outageCount checkpoints { id position name description } }
      measures @include(if: $documents) { id name description unit minimum maximum }
      documents @include(if: $documents) { ...DocumentFields }
    }
  }`,
  [GearboxModelFields, DocumentFields],
);

/** The model with its open tab's lists, or null when there is none (a 404). */
export async function loadDossierPage(locals: App.Locals, query: Pick<DossierPageQuery, 'id' | 'tab'>) {
  const { id, tab } = query;
  if (!id) return null;
  const { gearboxModel: model } = await serverGraphQL(locals).request(DOSSIER_PAGE, {
    id,
    codes: tab === 'codes',
    errorCodes: tab === 'codes-defaut',
    outages: tab === 'pannes',
    procedures: tab === 'procedures',
    documents: tab === 'documents',
  });
  return model ? { model, documents: documentsOf(model.documents ?? []) } : null;
}
export type DossierPage = NonNullable<Awaited<ReturnType<typeof loadDossierPage>>>;

/** What the dossier's forms show: the general form, the message above the tabs, each tab's draft. */
export type DossierForms = {
  values: Record<string, string>;
  errors: FieldErrors;
  formError: string | null;
  /** Why a deletion is refused, one line each. */
  reasons: string[];
  codesDraft: CodesDraft;
  errorDraft: Record<string, string>;
  errorErrors: FieldErrors;
  procedureDraft: ProcedureDraft | null;
  procedureErrors: Record<string, string>;
  documentDraft: DocumentDraft | null;
};

/** The forms before any post: the general form holds the saved model. */
export const dossierForms = (page: DossierPage | null): DossierForms => ({
  values: page ? valuesOf(page.model) : {},
  errors: {},
  formError: null,
  reasons: [],
  codesDraft: emptyCodesDraft(),
  errorDraft: {},
  errorErrors: {},
  procedureDraft: null,
  procedureErrors: {},
  documentDraft: null,
});

/**
 * Handles a post of the dossier by its `?action=`: a redirect on success, the forms to show again
 * with their status on a refusal, or null for a user who may not edit dossiers (nothing is done).
 */
export async function postDossierPage(
  astro: AstroGlobal,
  page: DossierPage,
  query: DossierPageQuery,
): Promise<Response | (DossierForms & { status: number }) | null> {
  if (!can(astro.locals.user?.role, 'manageGearboxes')) return null;
  const forms = dossierForms(page);
  if (!query.action) {
    const { model } = page;
    const result = await submitForm(
      astro,
      { fields: GEARBOX_FIELDS, schema: gearboxModelSchema, max: 200, fallback: t('errors.gearboxUpdate') },
      async (input) => {
        await serverGraphQL(astro.locals).request(
          graphql(`mutation($id: uuid!, $object: gearbox_models_input!) { updateGearboxModel(id: $id, object: $object) { id } }`),
          { id: model.id, object: gearboxObject(input) },
        );
        return redirectWithToast(astro, t('gearboxes.saved'), `/gearbox/${model.id}`);
      },
    );
    if (result instanceof Response) return result;
    return { ...forms, ...result, status: 400 };
  }
  const result = await postDossierAction(astro, page, query, forms);
  return result instanceof Response ? result : { ...result, status: 400 };
}

// A document sent from a documents view comes back at that view's form.
const DOCUMENT_FORMS = { courbes: '#nouvelle-courbe', mesures: '#nouvelle-procedure-mesure', autres: '#nouveau-document' } as const;

/**
 * Where a refused post shows again on its tab, the post's address without its action (decision
 * 039): at the form, when it is not the top of the tab.
 */
export function dossierRefusalAnchor({ action, view }: Pick<DossierPageQuery, 'action' | 'view'>): string | undefined {
  if (action === 'ajouter-code-defaut') return '#nouveau-code-defaut';
  if (action === 'ajouter-code-doctor') return '#nouveau-code';
  if (action === 'enregistrer-procedure') return '#procedure-form';
  if (action === 'joindre') return DOCUMENT_FORMS[view];
  return undefined;
}

/** A tab's form (or the deletion): `forms` is filled with what to show again when it is refused. */
async function postDossierAction(astro: AstroGlobal, page: DossierPage, query: DossierPageQuery, forms: DossierForms): Promise<Response | DossierForms> {
  const { action, view } = query;
  const { model, documents } = page;
  const api = serverGraphQL(astro.locals);
  const codesHref = `/gearbox/${model.id}?onglet=codes`;
  const errorCodesHref = `/gearbox/${model.id}?onglet=codes-defaut`;
  // A code form's body, read once: a deletion names an error code or a doctor/gearbox code.
  const codeForm = (CODE_ACTIONS as readonly (string | null)[]).includes(action) ? await astro.request.formData() : null;
  const errorCodeTarget = action === 'supprimer-code' ? String(codeForm?.get('id') ?? '') : '';
  try {
    if (action === 'supprimer') {
      await api.request(graphql(`mutation($id: uuid!) { deleteGearboxModel(id: $id) { id } }`), { id: model.id });
      return redirectWithToast(astro, t('gearboxes.deleted'), '/gearboxes');
    } else if (codeForm && !(model.errorCodes ?? []).some((e) => e.id === errorCodeTarget)) {
      const result = await postCodeAction(
        astro.locals.services.gearboxes,
        codeForm,
        action as (typeof CODE_ACTIONS)[number],
        model.id,
        model.doctorCodes ?? [],
      );
      if ('done' in result) return redirectWithToast(astro, result.done, codesHref);
      forms.codesDraft = result.draft;
      forms.formError = result.draft.formError ?? null;
    } else if (action === 'ajouter-code-defaut') {
      const form = await astro.request.formData();
      forms.errorDraft = { code: String(form.get('code') ?? '').slice(0, 100), description: String(form.get('description') ?? '').slice(0, 400) };
      const parsed = errorCodeSchema.safeParse(forms.errorDraft);
      if (!parsed.success) forms.errorErrors = fieldErrors(parsed.error);
      else {
        await api.request(graphql(`mutation($m: uuid!, $o: error_codes_input!) { insertErrorCode(gearboxModelId: $m, object: $o) { id } }`), {
          m: model.id,
          o: parsed.data,
        });
        return redirectWithToast(astro, t('gearboxes.codeAdded'), errorCodesHref);
      }
    } else if (action === 'enregistrer-procedure') {
      forms.procedureDraft = readProcedureForm(await astro.request.formData());
      const editing = query.editProcedure;
      const checked = checkProcedureDraft(forms.procedureDraft);
      forms.procedureErrors = checked.errors;
      // "More rows" posts what was typed back without saving it.
      if (checked.input && !query.moreRows) {
        const procedures = `/gearbox/${model.id}?onglet=procedures`;
        if (editing && editing !== 'nouvelle') {
          await api.request(graphql(`mutation($id: uuid!, $o: repair_procedures_input!) { updateRepairProcedure(id: $id, object: $o) }`), {
            id: editing,
            o: checked.input,
          });
          return redirectWithToast(astro, t('procedures.saved'), `${procedures}#procedure-${editing}`);
        }
        const { insertRepairProcedure } = await api.request(
          graphql(`mutation($m: uuid!, $o: repair_procedures_input!) { insertRepairProcedure(gearboxModelId: $m, object: $o) }`),
          { m: model.id, o: checked.input },
        );
        return redirectWithToast(astro, t('procedures.added'), `${procedures}#procedure-${insertRepairProcedure}`);
      }
      if (query.moreRows) forms.procedureErrors = {};
    } else if (action === 'supprimer-procedure') {
      const target = String((await astro.request.formData()).get('id') ?? '');
      if (isUuid(target)) {
        await api.request(graphql(`mutation($id: uuid!) { deleteRepairProcedure(id: $id) }`), { id: target });
        return redirectWithToast(astro, t('procedures.deleted'), `/gearbox/${model.id}?onglet=procedures`);
      }
    } else if (action === 'joindre') {
      const categories =
        view === 'courbes'
          ? (['reference-curve'] as const)
          : view === 'mesures'
            ? (['measure-procedure'] as const)
            : (['gearbox-technical-drawing', 'gearbox-manufacturer-information', 'gearbox-scrapyard-file'] as const);
      forms.documentDraft = await postDocument(astro.locals, api, await astro.request.formData(), { gearboxModelId: model.id }, categories);
      if (!forms.documentDraft) return redirectWithToast(astro, t('documents.added'), `/gearbox/${model.id}?onglet=documents&vue=${view}`);
    } else if (action === 'supprimer-fichier') {
      const target = String((await astro.request.formData()).get('id') ?? '');
      if (documents.some((d) => d.id === target)) {
        await api.request(DELETE_DOCUMENT, { id: target });
        return redirectWithToast(astro, t('documents.deleted'), `/gearbox/${model.id}?onglet=documents&vue=${view}`);
      }
    } else if (action === 'supprimer-code') {
      await api.request(graphql(`mutation($id: uuid!) { deleteErrorCode(id: $id) }`), { id: errorCodeTarget });
      return redirectWithToast(astro, t('gearboxes.codeDeleted'), errorCodesHref);
    }
  } catch (error) {
    // The procedure form shows each field's message; the other forms, one message.
    const failure = formFailureOf(error, { fields: action === 'enregistrer-procedure' ? undefined : [] });
    forms.reasons = failure.reasons;
    if (action === 'ajouter-code-defaut') forms.errorErrors = { code: failure.formError! };
    else if (action === 'enregistrer-procedure')
      forms.procedureErrors = failure.formError ? { name: failure.formError } : (failure.errors as Record<string, string>);
    else forms.formError = failure.formError;
  }
  return forms;
}

/** The documents tab's reference curves, read from their CSV to be drawn on the server. */
export async function readReferenceCurves(locals: App.Locals, page: DossierPage | null, query: Pick<DossierPageQuery, 'tab' | 'view'>) {
  const curves = new Map<string, Curve | null>();
  if (!page || query.tab !== 'documents' || query.view !== 'courbes') return curves;
  for (const document of page.documents.filter((d) => d.category === 'reference-curve')) {
    const text = await locals.services.files.readText(document.file.id);
    curves.set(document.id, text ? parseCurve(text) : null);
  }
  return curves;
}

/**
 * A dossier record's page (`/gearbox/{model}/outage/{id}`, `…/measure/{id}`, or the creation form
 * without an id): the record when it is the model's, and whether the page exists for this viewer:
 * for a record of the model, or for the creation form when the viewer may edit dossiers.
 */
export function dossierRecord<R extends { gearboxModelId: string }>(
  locals: App.Locals,
  model: { id: string } | null,
  record: R | null | undefined,
  recordId: string | null | undefined,
): { record: R | null; found: boolean } {
  const own = recordId && model && record && record.gearboxModelId === model.id ? record : null;
  return { record: own, found: !!model && (recordId === undefined ? can(locals.user?.role, 'manageGearboxes') : !!own) };
}
