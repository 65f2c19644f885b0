// The diagnostic page of an order (`/repair-order/{uuid}/diagnostic`): its sub-tabs and diagnostic steps
// steps, their links, and what a tab hands back to the page when it cannot carry out a post. The
// page's screen module (`src/pages/repair-order/[orderId]/_diagnostic.screen.ts`) reads and posts.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { singular } from '#lib/plural.ts';
import { maxItems, type FieldErrors } from '#lib/validation.ts';

export const diagnosticTabs = ['codes', 'symptomes', 'mesures', 'courbes'] as const;
export type DiagnosticTab = (typeof diagnosticTabs)[number];
export const stepSlugs = ['pannes', 'procedures', 'ajout', 'visualiser', 'valider'] as const;
export type StepSlug = (typeof stepSlugs)[number];

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
export function diagnosticRefusalAnchor({ action, recordId }: { action: string; recordId: string | null }): string | undefined {
  if (action === 'courbe-ajout' || action === 'courbe-modif') return '#courbe-formulaire';
  if (action === 'courbe-fichier' && recordId) return `#courbe-${recordId}`;
  if (action === 'import') return '#imports-titre';
  if (action === 'mesure-ajout' || action === 'mesures-dossier' || action === 'ajout-existante' || action === 'ajout-nouvelle') return `#${action}`;
  return undefined;
}

export const diagnosticHref = (orderId: string, tab: DiagnosticTab = 'codes', extra = '') => `/repair-order/${orderId}/diagnostic?onglet=${tab}${extra}`;
export const stepHref = (orderId: string, step: StepSlug) => `/repair-order/${orderId}/diagnostic?etape=${step}`;

/** The `diagnostic_step` each step needs: procedures need chosen outages, and so on. */
export const stepNeeds: Record<StepSlug, number> = { pannes: 0, procedures: 1, ajout: 1, visualiser: 2, valider: 3 };
/** The step to take next, from how far the diagnostic went (also where a step asked too early sends). */
export const stepFor = (reached: number): StepSlug => (reached >= 3 ? 'valider' : reached >= 2 ? 'visualiser' : reached >= 1 ? 'procedures' : 'pannes');

/** Why a step of the diagnostic cannot be taken yet, by the `diagnostic_step` it needs (SPEC §4). */
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

/** «2 OR sur 5 similaires»: how many of the similar closed orders retained an outage («sur 1 similaire» for one). */
export const evidenceOf = (c: { confirmedOrders: number; similarOrders: number }) =>
  t(singular(c.similarOrders) ? 'diagnostic.evidenceOne' : 'diagnostic.evidence', { confirmed: c.confirmedOrders, similar: c.similarOrders });
