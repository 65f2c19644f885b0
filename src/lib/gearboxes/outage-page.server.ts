// An outage's page of a gearbox model (SPEC §2.8), or the form of a new one: what it shows (the
// outage with its statistics, files and procedures, the base's components and outage types) and
// the forms it posts by `&action=` (the outage itself, its deletion, a file, the priorities).
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import { documentsOf, postDocument, type DocumentDraft, DELETE_DOCUMENT } from './documents.server.ts';
import { DocumentFields } from './documents.ts';
import { OutageStatsFields, outageSchema, type outagePageSchema } from './outages.ts';
import { outageProceduresSchema } from './procedures.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { submitAction, submitForm } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { can } from '#lib/permissions.ts';
import { dossierRecord } from './dossier.server.ts';
import type { FieldErrors } from '#lib/validation.ts';

export type OutagePageQuery = z.output<typeof outagePageSchema>;

const OutagePageFields = graphql(
  `
  fragment OutagePageFields on outages {
    id gearboxModelId component { id name } outageType { id name } description ...OutageStatsFields
    files { ...DocumentFields } procedures { priority procedure { id name steps checkpoints { id } } }
  }
`,
  [OutageStatsFields, DocumentFields],
);
const OUTAGE_PAGE = graphql(
  `query($g: uuid!, $o: uuid!, $withOutage: Boolean!) {
    gearboxModel(id: $g) { id model orderCount repairProcedures { id name } }
    gearboxOutage(id: $o) @include(if: $withOutage) { ...OutagePageFields }
    components: baseItems(kind: component) { id kind name }
    types: baseItems(kind: outage_type) { id kind name }
  }`,
  [OutagePageFields],
);

/**
 * The model and its outage (none for the creation form), or null for a 404: an unknown model, an
 * outage of another model, or the creation form for a user who may not edit dossiers.
 */
export async function loadOutagePage(locals: App.Locals, query: Pick<OutagePageQuery, 'gearboxId' | 'outageId'>) {
  const { gearboxId, outageId } = query;
  const data =
    gearboxId && outageId !== null
      ? await serverGraphQL(locals).request(OUTAGE_PAGE, { g: gearboxId, o: outageId ?? gearboxId, withOutage: outageId !== undefined })
      : null;
  const model = data?.gearboxModel ?? null;
  const { record: outage, found } = dossierRecord(locals, model, data?.gearboxOutage, outageId);
  if (!data || !model || !found) return null;
  return {
    data,
    model,
    outage,
    files: documentsOf(outage?.files ?? []),
    dossierHref: `/gearbox/${model.id}?onglet=pannes`,
    outageHref: outage ? `/gearbox/${model.id}/outage/${outage.id}` : '',
  };
}
export type OutagePage = NonNullable<Awaited<ReturnType<typeof loadOutagePage>>>;

/** What the page's forms show: the outage form, the message above it, a file's draft, the priorities' refusal. */
export type OutageForms = {
  values: Record<string, string>;
  errors: FieldErrors;
  formError: string | null;
  documentDraft: DocumentDraft | null;
  prioritiesError: string | null;
};

/** The forms before any post: the outage form holds the saved outage (empty for a new one). */
export function outageForms(page: OutagePage | null): OutageForms {
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
  return { values, errors: {}, formError: null, documentDraft: null, prioritiesError: null };
}

const OUTAGE_FIELDS = ['component', 'outageType', 'description', 'occurrenceRate', 'averageMileage'] as const;

/**
 * Handles a post of the page by its `&action=`: a redirect on success, the forms to show again
 * with their status on a refusal, or null for a user who may not edit dossiers (nothing is done).
 */
export async function postOutagePage(
  astro: AstroGlobal,
  page: OutagePage,
  query: Pick<OutagePageQuery, 'action'>,
): Promise<Response | (OutageForms & { status: number }) | null> {
  if (!can(astro.locals.user?.role, 'manageGearboxes')) return null;
  const { model, outage, files, dossierHref, outageHref } = page;
  const { action } = query;
  const api = serverGraphQL(astro.locals);
  const forms = { ...outageForms(page), status: 400 };
  if (action === 'joindre' && outage) {
    const documentDraft = await postDocument(astro.locals, api, await astro.request.formData(), { gearboxModelId: model.id, outageId: outage.id }, [
      'outage-file',
    ]);
    if (!documentDraft) return redirectWithToast(astro, t('documents.added'), `${outageHref}#fichiers-panne`);
    return { ...forms, documentDraft };
  }
  if (action === 'priorites' && outage) {
    const form = await astro.request.formData();
    const parsed = outageProceduresSchema.safeParse({ procedureIds: form.getAll('procedureId').map(String) });
    const result = !parsed.success
      ? { formError: parsed.error.issues[0]!.message }
      : await submitAction(
          astro,
          async () => {
            await api.request(graphql(`mutation($o: uuid!, $p: [uuid!]!) { setOutageProcedures(outageId: $o, procedureIds: $p) }`), {
              o: outage.id,
              p: parsed.data.procedureIds,
            });
            return redirectWithToast(astro, t('procedures.prioritiesSaved'), `${outageHref}?onglet=procedures`);
          },
          { fields: [] },
        );
    if (result instanceof Response) return result;
    return { ...forms, prioritiesError: result.formError };
  }
  const result =
    action === 'supprimer' && outage
      ? await submitAction(astro, async () => {
          await api.request(graphql(`mutation($id: uuid!) { deleteOutage(id: $id) }`), { id: outage.id });
          return redirectWithToast(astro, t('gearboxes.outageDeleted'), dossierHref);
        })
      : action === 'supprimer-fichier' && outage
        ? await submitAction(astro, async () => {
            const target = String((await astro.request.formData()).get('id') ?? '');
            if (files.some((f) => f.id === target)) await api.request(DELETE_DOCUMENT, { id: target });
            return redirectWithToast(astro, t('documents.deleted'), `${outageHref}#fichiers-panne`);
          })
        : await submitForm(
            astro,
            { fields: OUTAGE_FIELDS, schema: outageSchema, input: (typed, form) => ({ ...typed, addMissing: form.get('addMissing') ?? undefined }) },
            async (data) => {
              if (outage) {
                await api.request(graphql(`mutation($id: uuid!, $o: outages_input!) { updateOutage(id: $id, object: $o) }`), { id: outage.id, o: data });
                return redirectWithToast(astro, t('gearboxes.outageSaved'), outageHref);
              }
              const { insertOutage } = await api.request(graphql(`mutation($g: uuid!, $o: outages_input!) { insertOutage(gearboxModelId: $g, object: $o) }`), {
                g: model.id,
                o: data,
              });
              return redirectWithToast(astro, t('gearboxes.outageAdded'), `/gearbox/${model.id}/outage/${insertOutage}`);
            },
          );
  if (result instanceof Response) return result;
  return { ...forms, errors: result.errors, formError: result.formError, ...('values' in result ? { values: result.values } : {}) };
}
