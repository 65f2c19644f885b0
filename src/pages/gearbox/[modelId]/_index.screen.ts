// The screen module of a gearbox model's dossier (`/gearbox/{modelId}`, SPEC §2.8, decision 065):
// what its URL may say, what its open tab shows, and the forms it posts (general data with no
// `?action=`, the model's deletion, codes, error codes, procedures, documents). A post that
// succeeds redirects with a toast; one refused answers the forms to show again with a 400.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { CODE_ACTIONS, emptyCodesDraft, postCodeAction, type CodesDraft } from '#lib/gearboxes/codes.server.ts';
import { postDocument, type DocumentDraft } from '#lib/gearboxes/documents.server.ts';
import { documentViews } from '#lib/gearboxes/documents.ts';
import { GEARBOX_FIELDS, valuesOf } from '#lib/gearboxes/form.server.ts';
import { errorCodeSchema, gearboxModelSchema } from '#lib/gearboxes/gearboxes.ts';
import { checkProcedureDraft, readProcedureForm, type ProcedureDraft } from '#lib/gearboxes/procedures.ts';
import { formFailureOf, formValues, submitForm, postedForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { moreRows, option, readPage, recordId, recordPageFields, recordPageValues, uuid } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { parseCurve, type Curve } from '#lib/repair-orders/curves.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';

export const tabs = ['general', 'pannes', 'codes-defaut', 'documents', 'codes', 'procedures'] as const;

/** `/gearbox/{modelId}?onglet=&vue=&procedure=&lignes=&confirmer=`: the dossier's path and query. */
export const querySchema = z
  .object({
    modelId: recordId(),
    onglet: option(tabs, 'general'),
    vue: option(documentViews, 'courbes'),
    ...recordPageFields,
    // The procedure being edited: 'nouvelle' or its id.
    procedure: z
      .union([z.literal('nouvelle'), uuid()])
      .nullable()
      .catch(null),
    lignes: moreRows(30),
    confirmer: recordId(),
  })
  .transform((q) => ({
    modelId: q.modelId,
    tab: q.onglet,
    view: q.vue,
    ...recordPageValues(q),
    editProcedure: q.procedure,
    ...q.lignes,
    confirm: q.confirmer,
  }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

export type DossierPageQuery = ReturnType<typeof read>;

/** The model with its open tab's lists (only those are read), or null when there is none (a 404). */
export async function load(locals: App.Locals, query: Pick<DossierPageQuery, 'modelId' | 'tab' | 'view'>) {
  const { modelId, tab } = query;
  if (!modelId) return null;
  const { gearboxModels, repairProcedures, gearboxMeasures, gearboxDocuments } = locals.services;
  const none = Promise.resolve([]);
  const [model, orderCount, doctorCodes, errorCodes, outages, procedureList, measureList, documentList, models] = await withinBudget(
    locals,
    Promise.all([
      gearboxModels.get(modelId),
      tab === 'pannes' || tab === 'codes-defaut' ? gearboxModels.orderCountOf(modelId) : Promise.resolve(0),
      tab === 'codes' ? gearboxModels.codesOf(modelId) : none,
      tab === 'codes-defaut' ? gearboxModels.errorCodesOf(modelId) : none,
      tab === 'pannes' ? gearboxModels.outagesOf(modelId) : none,
      tab === 'procedures' ? repairProcedures.listOf(modelId) : none,
      tab === 'documents' ? gearboxMeasures.listOf(modelId) : none,
      tab === 'documents' ? gearboxDocuments.ofModel(modelId) : none,
      // The general form's parent is one of the other models.
      tab === 'general' ? gearboxModels.catalogue() : none,
    ]),
  );
  if (!model) return null;
  return {
    model,
    orderCount,
    doctorCodes,
    errorCodes,
    outages,
    repairProcedures: procedureList,
    measures: measureList,
    documents: documentList,
    models,
    // Read from their CSV to be drawn on the server.
    curves: await referenceCurves(locals, tab === 'documents' && query.view === 'courbes' ? documentList : []),
  };
}
export type DossierPage = NonNullable<Awaited<ReturnType<typeof load>>>;

/** The documents tab's reference curves. */
async function referenceCurves(locals: App.Locals, documents: { id: string; category: string; file: { id: string } }[]) {
  const curves = new Map<string, Curve | null>();
  for (const document of documents.filter((d) => d.category === 'reference-curve')) {
    const text = await withinBudget(locals, locals.services.files.readText(document.file.id));
    curves.set(document.id, text ? parseCurve(text) : null);
  }
  return curves;
}

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

/** The forms before any post (the general form holds the saved model), with what a refused post shows again. */
export const forms = (page: DossierPage | null, refused: Partial<DossierForms> | null): DossierForms => ({
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
  ...refused,
});

// A document sent from a documents view comes back at that view's form.
const DOCUMENT_FORMS = { courbes: '#nouvelle-courbe', mesures: '#nouvelle-procedure-mesure', autres: '#nouveau-document' } as const;

/**
 * Where a refused post shows again on its tab, the post's address without its action (decision
 * 039): at the form, when it is not the top of the tab.
 */
export function refusalAnchor({ action, view }: Pick<DossierPageQuery, 'action' | 'view'>): string | undefined {
  if (action === 'ajouter-code-defaut') return '#nouveau-code-defaut';
  if (action === 'ajouter-code-doctor') return '#nouveau-code';
  if (action === 'enregistrer-procedure') return '#procedure-form';
  if (action === 'joindre') return DOCUMENT_FORMS[view];
  return undefined;
}

type Refused = Partial<DossierForms> & { status: number };

/**
 * Handles a post of the dossier by its `?action=`: a redirect on success, the forms to show again
 * with their status on a refusal, or null for a user who may not edit dossiers (nothing is done).
 * The model was read by `load` (decision 068); an action reads only what it checks (a code's list,
 * a document's owner), the open tab's lists being those of another tab when it posts.
 */
export async function post(astro: AstroGlobal, page: DossierPage, query: DossierPageQuery): Promise<Response | Refused | null> {
  const modelId = page.model.id;
  if (!can(astro.locals.user?.role, 'manageGearboxModels')) return null;
  if (!query.action) {
    const result = await submitForm(
      astro,
      { fields: GEARBOX_FIELDS, schema: gearboxModelSchema, max: 200, fallback: t('errors.gearboxUpdate') },
      async (input) => {
        await astro.locals.services.gearboxModels.update(modelId, input);
        return redirectWithToast(astro, t('gearboxes.saved'), `/gearbox/${modelId}`);
      },
    );
    if (result instanceof Response) return result;
    return { ...result, status: 400 };
  }
  const result = await postAction(astro, modelId, query);
  return result instanceof Response ? result : { ...result, status: 400 };
}

/** A tab's form (or the deletion): what to show again when it is refused. */
async function postAction(astro: AstroGlobal, modelId: string, query: DossierPageQuery): Promise<Response | Partial<DossierForms>> {
  const { action, view } = query;
  const { gearboxModels, repairProcedures, gearboxDocuments } = astro.locals.services;
  const refused: Partial<DossierForms> = {};
  const codesHref = `/gearbox/${modelId}?onglet=codes`;
  const errorCodesHref = `/gearbox/${modelId}?onglet=codes-defaut`;
  try {
    if (action === 'supprimer') {
      await gearboxModels.remove(modelId);
      return redirectWithToast(astro, t('gearboxes.deleted'), '/gearboxes');
    } else if ((CODE_ACTIONS as readonly string[]).includes(action)) {
      // A code form's body, read once: a deletion names an error code or a doctor/gearbox code.
      const form = await postedForm(astro);
      const { id: codeId } = formValues(form, ['id']);
      const deleting = action === 'supprimer-code' && isUuid(codeId);
      const [doctorCodes, errorCodes] = await Promise.all([
        action === 'ajouter-code-boite' || deleting ? gearboxModels.codesOf(modelId) : Promise.resolve([]),
        deleting ? gearboxModels.errorCodesOf(modelId) : Promise.resolve([]),
      ]);
      if (errorCodes.some((e) => e.id === codeId)) {
        await gearboxModels.removeErrorCode(codeId);
        return redirectWithToast(astro, t('gearboxes.codeDeleted'), errorCodesHref);
      }
      const result = await postCodeAction(gearboxModels, form, action as (typeof CODE_ACTIONS)[number], modelId, doctorCodes);
      if ('done' in result) return redirectWithToast(astro, result.done, codesHref);
      refused.codesDraft = result.draft;
      refused.formError = result.draft.formError ?? null;
    } else if (action === 'ajouter-code-defaut') {
      const form = await postedForm(astro);
      refused.errorDraft = { code: String(form.get('code') ?? '').slice(0, 100), description: String(form.get('description') ?? '').slice(0, 400) };
      const parsed = errorCodeSchema.safeParse(refused.errorDraft);
      if (!parsed.success) refused.errorErrors = fieldErrors(parsed.error);
      else {
        await gearboxModels.insertErrorCode(modelId, parsed.data);
        return redirectWithToast(astro, t('gearboxes.codeAdded'), errorCodesHref);
      }
    } else if (action === 'enregistrer-procedure') {
      refused.procedureDraft = readProcedureForm(await postedForm(astro));
      const editing = query.editProcedure;
      const checked = checkProcedureDraft(refused.procedureDraft);
      refused.procedureErrors = checked.errors;
      // "More rows" posts what was typed back without saving it.
      if (checked.input && !query.moreRows) {
        const list = `/gearbox/${modelId}?onglet=procedures`;
        if (editing && editing !== 'nouvelle') {
          await repairProcedures.update(editing, checked.input);
          return redirectWithToast(astro, t('procedures.saved'), `${list}#procedure-${editing}`);
        }
        const procedureId = await repairProcedures.insert(modelId, checked.input);
        return redirectWithToast(astro, t('procedures.added'), `${list}#procedure-${procedureId}`);
      }
      if (query.moreRows) refused.procedureErrors = {};
    } else if (action === 'supprimer-procedure') {
      const { id: procedureId } = formValues(await postedForm(astro), ['id']);
      if (isUuid(procedureId)) {
        await repairProcedures.remove(procedureId);
        return redirectWithToast(astro, t('procedures.deleted'), `/gearbox/${modelId}?onglet=procedures`);
      }
    } else if (action === 'joindre') {
      const categories =
        view === 'courbes'
          ? (['reference-curve'] as const)
          : view === 'mesures'
            ? (['measure-procedure'] as const)
            : (['gearbox-technical-drawing', 'gearbox-manufacturer-information', 'gearbox-scrapyard-file'] as const);
      refused.documentDraft = await postDocument(astro.locals, await postedForm(astro), { modelId }, categories);
      if (!refused.documentDraft) return redirectWithToast(astro, t('documents.added'), `/gearbox/${modelId}?onglet=documents&vue=${view}`);
    } else if (action === 'supprimer-fichier') {
      // Only one of the model's own documents (not an outage's or a measure's).
      const { id: documentId } = formValues(await postedForm(astro), ['id']);
      const document = isUuid(documentId) ? await gearboxDocuments.get(documentId) : undefined;
      if (document && document.modelId === modelId && !document.outageId && !document.measureId) {
        await gearboxDocuments.remove(documentId);
        return redirectWithToast(astro, t('documents.deleted'), `/gearbox/${modelId}?onglet=documents&vue=${view}`);
      }
    }
  } catch (error) {
    // The procedure form shows each field's message; the other forms, one message.
    const failure = formFailureOf(error, { fields: action === 'enregistrer-procedure' ? undefined : [] });
    refused.reasons = failure.reasons;
    if (action === 'ajouter-code-defaut') refused.errorErrors = { code: failure.formError! };
    else if (action === 'enregistrer-procedure')
      refused.procedureErrors = failure.formError ? { name: failure.formError } : (failure.errors as Record<string, string>);
    else refused.formError = failure.formError;
  }
  return refused;
}
