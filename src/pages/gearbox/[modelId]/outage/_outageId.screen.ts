// The screen module of an outage of a gearbox model (`/gearbox/{modelId}/outage/{outageId}`, SPEC
// §2.8, decision 065), or of the form of a new one (no outage id): what its URL may say, what it
// shows (the outage with its statistics, files and procedures, the base's components and outage
// types) and the forms it posts by `&action=` (the outage itself, its deletion, a file, the priorities).
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { formValues, submitAction, submitForm, postedForm } from '#lib/forms.server.ts';
import { postDocument, type DocumentDraft } from '#lib/gearboxes/documents.server.ts';
import { outageSchema } from '#lib/gearboxes/outages.ts';
import { outageProceduresSchema } from '#lib/gearboxes/procedures.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { option, optionalRecordId, readPage, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import type { FieldErrors } from '#lib/validation.ts';

/** `/gearbox/{modelId}/outage/{outageId}?onglet=` (or the creation form without the outage): path and query. */
export const querySchema = z
  .object({ modelId: recordId(), outageId: optionalRecordId(), onglet: option(['general', 'procedures'] as const, 'general'), ...recordPageFields })
  .transform((q) => ({ modelId: q.modelId, outageId: q.outageId, tab: q.outageId ? q.onglet : 'general', ...recordPageValues(q) }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

export type OutagePageQuery = ReturnType<typeof read>;

const none = Promise.resolve([]);

/**
 * The model and its outage (none for the creation form), or null for a 404: an unknown model, an
 * outage of another model, or the creation form for a user who may not edit dossiers.
 */
export async function load(locals: App.Locals, query: Pick<OutagePageQuery, 'modelId' | 'outageId' | 'tab'>) {
  const { modelId, outageId, tab } = query;
  const manage = can(locals.user?.role, 'manageGearboxModels');
  if (!modelId || outageId === null || (outageId === undefined && !manage)) return null;
  const { gearboxModels, gearboxDocuments, repairProcedures, base } = locals.services;
  const withForm = manage && tab === 'general';
  const [model, orderCount, outage, files, prioritised, available, components, types] = await withinBudget(
    locals,
    Promise.all([
      gearboxModels.get(modelId),
      gearboxModels.orderCountOf(modelId),
      outageId ? gearboxModels.getOutage(outageId) : Promise.resolve(undefined),
      outageId ? gearboxDocuments.ofOutage(outageId) : none,
      outageId ? repairProcedures.ofOutage(outageId) : none,
      outageId && tab === 'procedures' ? repairProcedures.listOf(modelId) : none,
      // The form offers the base's names.
      withForm ? base.list('component') : none,
      withForm ? base.list('outage_type') : none,
    ]),
  );
  if (!model || (outageId && outage?.modelId !== model.id)) return null;
  return {
    model: { id: model.id, model: model.model, orderCount },
    outage: outage ? { ...outage, procedures: prioritised } : null,
    files,
    available,
    components: components.map((c) => c.name),
    outageTypes: types.map((c) => c.name),
    dossierHref: `/gearbox/${model.id}?onglet=pannes`,
    outageHref: outage ? `/gearbox/${model.id}/outage/${outage.id}` : '',
  };
}
export type OutagePage = NonNullable<Awaited<ReturnType<typeof load>>>;

/** What the page's forms show: the outage form, the message above it, a file's draft, the priorities' refusal. */
export type OutageForms = {
  values: Record<string, string>;
  errors: FieldErrors;
  formError: string | null;
  documentDraft: DocumentDraft | null;
  prioritiesError: string | null;
};

/** The forms before any post (the outage form holds the saved outage, empty for a new one), with what a refused post shows again. */
export function forms(page: OutagePage | null, refused: Partial<OutageForms> | null): OutageForms {
  const outage = page?.outage;
  const values: Record<string, string> = outage
    ? {
        component: outage.component.name,
        outageType: outage.outageType.name,
        description: outage.description,
        occurrenceRate: outage.occurrenceRate?.toString() ?? '',
        averageMileage: outage.averageMileage?.toString() ?? '',
      }
    : {};
  return { values, errors: {}, formError: null, documentDraft: null, prioritiesError: null, ...refused };
}

const OUTAGE_FIELDS = ['component', 'outageType', 'description', 'occurrenceRate', 'averageMileage'] as const;

type Refused = Partial<OutageForms> & { status: number };

/**
 * Handles a post of the page by its `&action=`: a redirect on success, the forms to show again
 * with their status on a refusal, or null for a user who may not edit dossiers (nothing is done).
 * The model and the outage were read by `load` (decision 068); a file is deleted only when it is
 * one of the outage's.
 */
export async function post(astro: AstroGlobal, page: OutagePage, query: OutagePageQuery): Promise<Response | Refused | null> {
  if (!can(astro.locals.user?.role, 'manageGearboxModels')) return null;
  const { action } = query;
  const modelId = page.model.id;
  const outageId = page.outage?.id;
  const { gearboxModels, gearboxDocuments, repairProcedures } = astro.locals.services;
  const outageHref = `/gearbox/${modelId}/outage/${outageId}`;
  if (action === 'joindre' && outageId) {
    const documentDraft = await postDocument(astro.locals, await postedForm(astro), { modelId, outageId }, ['outage-file']);
    if (!documentDraft) return redirectWithToast(astro, t('documents.added'), `${outageHref}#fichiers-panne`);
    return { documentDraft, status: 400 };
  }
  if (action === 'priorites' && outageId) {
    const form = await postedForm(astro);
    const parsed = outageProceduresSchema.safeParse({ procedureIds: form.getAll('procedureId').map(String) });
    const result = !parsed.success
      ? { formError: parsed.error.issues[0]!.message }
      : await submitAction(
          astro,
          async () => {
            await repairProcedures.setOutageProcedures(outageId, parsed.data.procedureIds);
            return redirectWithToast(astro, t('procedures.prioritiesSaved'), `${outageHref}?onglet=procedures`);
          },
          { fields: [] },
        );
    if (result instanceof Response) return result;
    return { prioritiesError: result.formError, status: 400 };
  }
  const result =
    action === 'supprimer' && outageId
      ? await submitAction(astro, async () => {
          await gearboxModels.removeOutage(outageId);
          return redirectWithToast(astro, t('gearboxes.outageDeleted'), `/gearbox/${modelId}?onglet=pannes`);
        })
      : action === 'supprimer-fichier' && outageId
        ? await submitAction(astro, async () => {
            const { id: documentId } = formValues(await postedForm(astro), ['id']);
            if (page.files.some((f) => f.id === documentId)) await gearboxDocuments.remove(documentId);
            return redirectWithToast(astro, t('documents.deleted'), `${outageHref}#fichiers-panne`);
          })
        : await submitForm(
            astro,
            { fields: OUTAGE_FIELDS, schema: outageSchema, input: (typed, form) => ({ ...typed, addMissing: form.get('addMissing') ?? undefined }) },
            async (data) => {
              if (outageId) {
                await gearboxModels.updateOutage(outageId, data);
                return redirectWithToast(astro, t('gearboxes.outageSaved'), outageHref);
              }
              const newId = await gearboxModels.insertOutage(modelId, data);
              return redirectWithToast(astro, t('gearboxes.outageAdded'), `/gearbox/${modelId}/outage/${newId}`);
            },
          );
  if (result instanceof Response) return result;
  return { errors: result.errors, formError: result.formError, ...('values' in result ? { values: result.values } : {}), status: 400 };
}
