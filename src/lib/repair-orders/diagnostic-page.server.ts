// The diagnostic page of an order (`/repair-order/{uuid}/diagnostic`): what it reads, and its
// posts, which only admins and diagnosticians make while the order is open, each handed to the
// tab or flow step it belongs to.
import type { AstroGlobal } from 'astro';
import { graphql } from '#lib/graphql.ts';
import { t } from '#lib/i18n.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { can } from '#lib/permissions.ts';
import { postCurvesAction } from './curves.server.ts';
import { DiagnosticOrderFields, type DiagnosticPageQuery, diagnosticHref, type TabFailure } from './diagnostic-page.ts';
import { postFaultCodeReading } from './fault-codes.server.ts';
import { FaultCodeFields } from './fault-codes.ts';
import { type FlowFailure, postFlowAction } from './flow.server.ts';
import { postMeasuresAction } from './measures.server.ts';

const DIAGNOSTIC_QUERY = graphql(
  `query($id: uuid!) {
    repairOrder(id: $id) {
      ...DiagnosticOrderFields faultCodes { ...FaultCodeFields } symptoms { id }
      outageCandidates { outage { id component { name } outageType { name } description } similarOrders confirmedOrders dossierRate chosen }
    }
    diagnosticGuideHidden
  }`,
  [DiagnosticOrderFields, FaultCodeFields],
);

/** What a post the page could not carry out renders again: the failed tab's or the flow's failure. */
export type DiagnosticPageFailure = { status: number; tabFailure: TabFailure | null; flowFailure: FlowFailure | null };

/** The order and what the page decides from it, or null when the URL names no order. */
export async function loadDiagnosticPage(locals: App.Locals, { id, step }: Pick<DiagnosticPageQuery, 'id' | 'step'>) {
  const data = id ? await serverGraphQL(locals).request(DIAGNOSTIC_QUERY, { id }) : null;
  if (!data?.repairOrder) return null;
  const order = data.repairOrder;
  const manage = can(locals.user?.role, 'manageOrders') && order.status !== 'CLOSED';
  return {
    order,
    manage,
    guideHidden: data.diagnosticGuideHidden,
    showGuide: manage && !data.diagnosticGuideHidden && !step,
    self: `/repair-order/${order.id}`,
    // How far the flow went: 4 once the diagnostic is validated.
    reached: order.validatedAt ? 4 : order.diagnosticStep,
    topCandidates: order.outageCandidates.slice(0, 6),
    // With no fault code and no symptom recorded, no closed order is similar: the ranking is the dossier's.
    outagesHint: order.faultCodes.length === 0 && order.symptoms.length === 0 ? t('diagnosticFlow.nothingToCompare') : t('diagnosticFlow.outagesHint'),
  };
}
export type DiagnosticPage = NonNullable<Awaited<ReturnType<typeof loadDiagnosticPage>>>;

/** Hands `?action=` to its tab or flow step: a redirect with its toast, or the failure to render; null when the viewer may not edit. */
export async function postDiagnosticPage(
  astro: AstroGlobal,
  page: DiagnosticPage,
  query: DiagnosticPageQuery,
): Promise<Response | DiagnosticPageFailure | null> {
  if (!page.manage) return null;
  const { order } = page;
  const { action } = query;
  // Which tab a post belongs to: its failure re-renders that tab; the others show above the page.
  const owner = action.startsWith('mesure') ? 'mesures' : action.startsWith('courbe') || action.startsWith('import') ? 'courbes' : null;
  const result =
    owner === 'mesures'
      ? await postMeasuresAction(astro, order, query)
      : owner === 'courbes'
        ? await postCurvesAction(astro, order, query)
        : action === 'lecture'
          ? await postFaultCodeReading(astro, { id: order.id, faultCodeCount: order.faultCodes.length }, diagnosticHref(order.id, 'codes')).then((r) =>
              r instanceof Response ? r : { status: 400, formError: r },
            )
          : await postFlowAction(astro, order, query);
  if (result instanceof Response) return result;
  return { status: result.status, tabFailure: owner ? result : null, flowFailure: owner ? null : result };
}
