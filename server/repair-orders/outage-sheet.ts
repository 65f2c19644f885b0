// The customer's outage sheet of a repair order (issue 32, decision 090): what the order recorded,
// the model's outages as the diagnostic ranks them from the workshop's own closed orders, with the
// evidence behind each, and what was retained. Read from the services that own each part; the
// ranking is the diagnostic's (candidatesOf), never a second definition.
import { bindViewer, type PermissionTable } from '#server/access.ts';
import type { Viewer } from '#server/auth/viewer.ts';
import { type GearboxModelsService, gearboxModelsPermissions } from '#server/gearboxes/service.ts';
import { type DiagnosticService, diagnosticPermissions, type OutageCandidate } from './diagnostic.ts';
import { type FaultCodesService, faultCodesPermissions } from './fault-codes.ts';
import { type RepairOrdersService, repairOrdersPermissions } from './service.ts';
import { type SymptomsService, symptomsPermissions } from './symptoms.ts';

/** At most this many outages on the sheet: the likeliest, on one A4 page. */
export const SHEET_OUTAGES = 5;

/** One of this order's signs (a fault code, a symptom) found on the orders that confirmed an outage. */
export type SheetSign = { kind: 'code' | 'symptom'; label: string; orders: number };
export type SheetOutage = OutageCandidate & { shared: SheetSign[] };

export type OutageSheetService = ReturnType<typeof createOutageSheetService>;

export function createOutageSheetService(deps: {
  repairOrders: RepairOrdersService;
  faultCodes: FaultCodesService;
  symptoms: SymptomsService;
  diagnostic: DiagnosticService;
  gearboxModels: GearboxModelsService;
}) {
  /** The services the sheet reads, as the viewer: each one's table applies to the sheet too (decision 090). */
  const as = (viewer: Viewer) => ({
    repairOrders: bindViewer(deps.repairOrders, repairOrdersPermissions, viewer),
    faultCodes: bindViewer(deps.faultCodes, faultCodesPermissions, viewer),
    symptoms: bindViewer(deps.symptoms, symptomsPermissions, viewer),
    diagnostic: bindViewer(deps.diagnostic, diagnosticPermissions, viewer),
    gearboxModels: bindViewer(deps.gearboxModels, gearboxModelsPermissions, viewer),
  });
  return {
    /**
     * The sheet's facts, or null for no such order. `ranked`: the diagnostic's ranking, kept to the
     * outages the workshop's history has seen (on a closed order of the model, or confirmed by a
     * similar one), the likeliest first; `more`: how many more it has seen, the retained ones said apart (`unlisted`) left out. `history` and each
     * outage's count and mileage are over the other boxes: a closed order's own is left out, as
     * its similar orders leave it out (the customer is not told his box is evidence for itself).
     * `unlisted`: the retained outages the history has seen but ranks past the five, with their rank.
     */
    sheetOf: async (viewer: Viewer, orderId: string) => {
      const { repairOrders, faultCodes, symptoms, diagnostic, gearboxModels } = as(viewer);
      const order = await repairOrders.get(orderId);
      if (!order) return null;
      const closed = order.status === 'CLOSED';
      const [codes, seen, candidates, shared, modelHistory, chosen, procedures, elsewhere] = await Promise.all([
        faultCodes.faultCodesOf(orderId),
        symptoms.symptomsOf(orderId),
        diagnostic.candidatesOf(orderId, order.modelId),
        diagnostic.sharedSignsOf(orderId, order.modelId),
        gearboxModels.orderCountOf(order.modelId),
        diagnostic.chosenOutagesOf(orderId),
        diagnostic.proceduresOf(orderId),
        closed ? gearboxModels.retainedElsewhereOf(orderId) : [],
      ]);
      const history = closed ? Math.max(0, modelHistory - 1) : modelHistory;
      const retained = new Set(chosen.map((o) => o.id));
      const others = new Map(elsewhere.map((r) => [r.outageId, r]));
      // Only the outages this closed order retained counted it: theirs are read again without it.
      const counted = candidates.map((c) =>
        closed && retained.has(c.outage.id)
          ? {
              ...c,
              outage: {
                ...c.outage,
                orderCount: others.get(c.outage.id)?.orderCount ?? 0,
                ordersAverageMileage: others.get(c.outage.id)?.ordersAverageMileage ?? null,
              },
            }
          : c,
      );
      const labels = new Map<string, string>([
        ...codes.map((c) => [`code:${c.errorCode.id}`, c.errorCode.code] as const),
        ...seen.map((s) => [`symptom:${s.symptom.id}`, s.symptom.name] as const),
      ]);
      // The diagnostic's order (a stable sort keeps its ties), its rates read over the other boxes.
      const observed = counted
        .filter((c) => c.confirmedOrders > 0 || Number(c.outage.orderCount) > 0)
        .sort((a, b) => b.confirmedOrders - a.confirmedOrders || Number(b.outage.orderCount) - Number(a.outage.orderCount));
      const withShared = (c: OutageCandidate): SheetOutage => ({
        ...c,
        shared: shared
          .filter((s) => s.outageId === c.outage.id && labels.has(`${s.kind}:${s.signId}`))
          .map((s) => ({ kind: s.kind, label: labels.get(`${s.kind}:${s.signId}`)!, orders: s.orders })),
      });
      const ranked = observed.slice(0, SHEET_OUTAGES).map(withShared);
      // A retained outage past the five keeps its place and figures: the sheet says where it stands.
      const unlisted = observed.flatMap((c, i) => (i >= SHEET_OUTAGES && retained.has(c.outage.id) ? [{ ...withShared(c), rank: i + 1 }] : []));
      return { order, codes, symptoms: seen, history, ranked, unlisted, more: observed.length - ranked.length - unlisted.length, chosen, procedures };
    },
  };
}

/** Who may call what (decision 061): the sheet is handed to customers (decision 090). */
export const outageSheetPermissions = {
  sheetOf: 'handOutageSheets',
} as const satisfies PermissionTable<OutageSheetService>;
