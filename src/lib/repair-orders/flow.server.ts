// The diagnostic flow's form posts (choose outages → procedures → add → visualise → validate) and
// the start guide's checkbox, for the diagnostic page. Each success redirects to the next step's
// URL; a refusal comes back as a failure the page renders with what was typed.
import type { AstroGlobal } from 'astro';
import {
  diagnosticHref,
  diagnosticTabs,
  outageChoiceSchema,
  procedureChoiceSchema,
  STEP_REQUIRED,
  type DiagnosticOrder,
  type DiagnosticPageQuery,
  type FlowStep,
  type TabFailure,
} from './diagnostic-page.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { hasCode } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import { checkProcedureDraft, readProcedureForm, type ProcedureDraft } from '#lib/gearboxes/procedures.ts';
import { redirectWithToast, setFlash } from '#lib/auth/session.server.ts';
import { graphql } from '#lib/graphql.ts';

/** The `diagnostic_step` each step needs: procedures need chosen outages, and so on. */
export const stepNeeds: Record<FlowStep, number> = { pannes: 0, procedures: 1, ajout: 1, visualiser: 2, valider: 3 };
/** The step to take next, from how far the flow went (also where a step asked too early sends). */
export const stepFor = (reached: number): FlowStep => (reached >= 3 ? 'valider' : reached >= 2 ? 'visualiser' : reached >= 1 ? 'procedures' : 'pannes');

export const flowHref = (orderId: string, step: FlowStep) => `/repair-order/${orderId}/diagnostic?etape=${step}`;

/** The steps the "add a procedure" step's own buttons lead to. */
const LEAVING = ['procedures', 'visualiser'] as const;
const isBlankDraft = (draft: ProcedureDraft) => !draft.name.trim() && !draft.description.trim() && !draft.steps.trim() && draft.checkpoints.length === 0;

export type FlowFailure = TabFailure & { draft?: ProcedureDraft; selection?: string[] };

/** A step asked by URL before its turn: back to the step to do, saying why. */
export function refuseSkippedStep(astro: AstroGlobal, order: DiagnosticOrder, step: FlowStep): Response | null {
  if (order.validatedAt || order.diagnosticStep >= stepNeeds[step]) return null;
  // Says what to do first: the step right after the one reached.
  setFlash(astro.cookies, { type: 'error', message: STEP_REQUIRED[order.diagnosticStep + 1]! });
  return astro.redirect(flowHref(order.id, stepFor(order.diagnosticStep)), 303);
}

export async function postFlowAction(
  astro: AstroGlobal,
  order: DiagnosticOrder,
  query: Pick<DiagnosticPageQuery, 'action' | 'moreRows'>,
): Promise<Response | FlowFailure> {
  const { action } = query;
  const api = serverGraphQL(astro.locals);
  const form = await astro.request.formData();
  const o = order.id;
  let failure: FlowFailure = { status: 400, form: action };
  try {
    switch (action) {
      case 'guide': {
        const hidden = form.get('hidden') === '1';
        await api.request(graphql(`mutation($h: Boolean!) { setDiagnosticGuideHidden(hidden: $h) }`), { h: hidden });
        const tab = diagnosticTabs.find((name) => name === form.get('onglet')) ?? 'codes';
        return astro.redirect(diagnosticHref(o, tab), 303);
      }
      case 'pannes': {
        const ids = form.getAll('outageId').map(String);
        failure = { ...failure, selection: ids };
        const parsed = outageChoiceSchema.safeParse({ outageIds: ids });
        if (!parsed.success) return { ...failure, formError: parsed.error.issues[0]!.message };
        await api.request(graphql(`mutation($o: uuid!, $ids: [uuid!]!) { chooseOrderOutages(repairOrderId: $o, outageIds: $ids) }`), { o, ids });
        return redirectWithToast(astro, t('diagnosticFlow.saved'), flowHref(o, 'procedures'));
      }
      case 'procedures': {
        const picked = form.getAll('procedure').map(String);
        failure = { ...failure, selection: picked };
        const parsed = procedureChoiceSchema.safeParse({ procedures: picked });
        if (!parsed.success) return { ...failure, formError: parsed.error.issues[0]!.message };
        const procedures = parsed.data.procedures;
        await api.request(graphql(`mutation($o: uuid!, $p: [order_procedures_input!]!) { chooseOrderProcedures(repairOrderId: $o, procedures: $p) }`), {
          o,
          p: procedures,
        });
        return redirectWithToast(astro, t('diagnosticFlow.saved'), flowHref(o, 'ajout'));
      }
      case 'ajout-existante': {
        const procedureId = String(form.get('procedureId') ?? '');
        if (!procedureId) return { ...failure, errors: { procedureId: t('validation.required') } };
        await api.request(graphql(`mutation($o: uuid!, $p: uuid!) { addOrderProcedure(repairOrderId: $o, procedureId: $p) }`), { o, p: procedureId });
        return redirectWithToast(astro, t('diagnosticFlow.procedureAdded'), flowHref(o, 'ajout'));
      }
      case 'ajout-nouvelle': {
        const draft = readProcedureForm(form);
        // «Précédent» and «Continuer» submit this form too (`suite`): what was typed is saved on the
        // way, never dropped; with nothing typed they only move on.
        const next = LEAVING.find((step) => step === form.get('suite'));
        if (next && isBlankDraft(draft)) return astro.redirect(flowHref(o, next), 303);
        const checked = checkProcedureDraft(draft);
        failure = { ...failure, draft, errors: checked.errors };
        // "More rows" posts back what was typed; nothing is written.
        if (query.moreRows) return { ...failure, errors: {} };
        if (!checked.input) return failure;
        // One transaction: the procedure joins the dossier only if the order takes it.
        await api.request(graphql(`mutation($o: uuid!, $p: repair_procedures_input!) { addNewOrderProcedure(repairOrderId: $o, object: $p) }`), {
          o,
          p: checked.input,
        });
        return redirectWithToast(astro, t('diagnosticFlow.procedureAdded'), flowHref(o, next ?? 'ajout'));
      }
      case 'visualiser':
        await api.request(graphql(`mutation($o: uuid!) { markProceduresVisualised(repairOrderId: $o) }`), { o });
        return astro.redirect(flowHref(o, 'valider'), 303);
      case 'valider':
        await api.request(graphql(`mutation($o: uuid!) { validateDiagnostic(repairOrderId: $o) }`), { o });
        return redirectWithToast(astro, t('diagnosticFlow.validated'), flowHref(o, 'valider'));
      case 'rouvrir':
        await api.request(graphql(`mutation($o: uuid!) { reopenDiagnostic(repairOrderId: $o) }`), { o });
        return redirectWithToast(astro, t('diagnosticFlow.reopened'), flowHref(o, 'visualiser'));
      default:
        return { status: 400, formError: t('errors.generic') };
    }
  } catch (error) {
    // The procedure form names its fields; the others show one message above the form.
    const refusal = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), fields: action === 'ajout-nouvelle' ? undefined : [] });
    const { errors, formError } = refusal;
    if (formError === null) return { ...failure, errors };
    return { ...failure, status: hasCode(refusal, 'conflict') ? 409 : failure.status, formError };
  }
}
