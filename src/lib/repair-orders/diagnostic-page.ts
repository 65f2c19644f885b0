// The diagnostic page of an order (`/repair-order/{uuid}/diagnostic`): its sub-tabs and what a tab
// hands back to the page when it handles a form post. Each tab is an Astro component that reads
// its own data; the page dispatches `?action=` posts to the tab's `post…Action`.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { choice, moreRows, option, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { maxItems, type FieldErrors } from '#lib/validation.ts';
import { graphql, type ResultOf } from '#lib/graphql.ts';

export const diagnosticTabs = ['codes', 'symptomes', 'mesures', 'courbes'] as const;
export type DiagnosticTab = (typeof diagnosticTabs)[number];
export const flowSteps = ['pannes', 'procedures', 'ajout', 'visualiser', 'valider'] as const;
export type FlowStep = (typeof flowSteps)[number];

/** `/repair-order/{uuid}/diagnostic`: its path and query, read by the page and handed to its tabs. */
export const diagnosticPageSchema = z
  .object({
    orderId: recordId(),
    etape: choice(flowSteps),
    onglet: option(diagnosticTabs, 'codes'),
    ...recordPageFields,
    // The record a form acts on when its body does not name it (a curve's file).
    id: recordId(),
    lignes: moreRows(40),
    courbe: recordId(),
    'confirmer-courbe': recordId(),
    'confirmer-import': recordId(),
    'confirmer-lecture': choice(['non'] as const),
    'confirmer-mesures': choice(['non'] as const),
  })
  .transform((q) => ({
    id: q.orderId,
    step: q.etape,
    tab: q.onglet,
    ...recordPageValues(q),
    recordId: q.id,
    ...q.lignes,
    editCurve: q.courbe,
    confirmCurve: q['confirmer-courbe'],
    confirmImport: q['confirmer-import'],
    confirmNoReading: q['confirmer-lecture'] === 'non',
    confirmNoMeasures: q['confirmer-mesures'] === 'non',
  }));
export type DiagnosticPageQuery = z.output<typeof diagnosticPageSchema>;

export const DiagnosticOrderFields = graphql(`
  fragment DiagnosticOrderFields on repair_orders { id number status canReadFaultCodes measuresDone diagnosticStep validatedAt model { id model } }
`);
/** What every tab receives of the order. */
export type DiagnosticOrder = ResultOf<typeof DiagnosticOrderFields>;

/**
 * A post a tab could not carry out: the page answers with `status` and renders the tab again with
 * this failure, so what was typed (`values`) is kept and each field shows its error.
 */
export type TabFailure = { status: number; formError?: string; values?: Record<string, string>; errors?: FieldErrors; form?: string };
export type TabActionResult = Response | TabFailure;

/**
 * Where a refused post shows again on its tab or step, the post's address without its action
 * (decision 039): at the form, or the curve whose file it sent, when it is not the top of the page.
 */
export function diagnosticRefusalAnchor({ action, recordId }: Pick<DiagnosticPageQuery, 'action' | 'recordId'>): string | undefined {
  if (action === 'courbe-ajout' || action === 'courbe-modif') return '#courbe-formulaire';
  if (action === 'courbe-fichier' && recordId) return `#courbe-${recordId}`;
  if (action === 'import') return '#imports-titre';
  if (action === 'mesure-ajout' || action === 'mesures-dossier' || action === 'ajout-existante' || action === 'ajout-nouvelle') return `#${action}`;
  return undefined;
}

export const diagnosticHref = (orderId: string, tab: DiagnosticTab = 'codes', extra = '') => `/repair-order/${orderId}/diagnostic?onglet=${tab}${extra}`;

/** Why a step of the flow cannot be taken yet, by the `diagnostic_step` it needs (SPEC §4). */
export const STEP_REQUIRED: Record<number, string> = {
  1: t('refusals.stepOutages'),
  2: t('refusals.stepProcedures'),
  3: t('refusals.stepView'),
};

const id = z.string().refine((value) => isUuid(value), t('refusals.itemNotFound'));

/** Step 1's form and API: the outages retained, in the order ticked. */
export const outageChoiceSchema = z.object({ outageIds: z.array(id).min(1, t('refusals.chooseOutage')).max(50, maxItems(50)) });

/**
 * Step 2's form and API: the procedures to apply, each for one of the outages or added by hand.
 * The form posts "procedure:outage" (empty after the colon for one added by hand).
 */
export const procedureChoiceSchema = z.object({
  procedures: z
    .array(
      z.preprocess(
        (v) => (typeof v === 'string' ? { procedureId: v.split(':')[0], outageId: v.split(':')[1] || null } : v),
        z.object({ procedureId: id, outageId: id.nullable().optional() }),
      ),
    )
    .min(1, t('refusals.chooseProcedure'))
    .max(100, maxItems(100)),
});
