// The customer's outage sheet of a repair order (issue 32, decision 090): what the order recorded,
// the model's outages as the diagnostic ranks them from the workshop's own closed orders, with the
// evidence behind each, and what was retained. Read from the services that own each part; the
// ranking is the diagnostic's (candidatesOf), never a second definition.
import type { PermissionTable } from '#server/access.ts';
import type { Viewer } from '#server/auth/viewer.ts';
import type { GearboxModelsService } from '#server/gearboxes/service.ts';
import type { DiagnosticService, OutageCandidate } from './diagnostic.ts';
import type { FaultCodesService } from './fault-codes.ts';
import type { RepairOrdersService } from './service.ts';
import type { SymptomsService } from './symptoms.ts';

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
  const { repairOrders, faultCodes, symptoms, diagnostic, gearboxModels } = deps;
  return {
    /**
     * The sheet's facts, or null for no such order. `ranked`: the diagnostic's ranking, kept to the
     * outages the workshop's history has seen (on a closed order of the model, or confirmed by a
     * similar one), the likeliest first; `more`: how many more it has seen.
     */
    sheetOf: async (viewer: Viewer, orderId: string) => {
      const order = await repairOrders.get(viewer, orderId);
      if (!order) return null;
      const [codes, seen, candidates, shared, history, chosen, procedures] = await Promise.all([
        faultCodes.faultCodesOf(viewer, orderId),
        symptoms.symptomsOf(viewer, orderId),
        diagnostic.candidatesOf(viewer, orderId, order.modelId),
        diagnostic.sharedSignsOf(viewer, orderId, order.modelId),
        gearboxModels.orderCountOf(viewer, order.modelId),
        diagnostic.chosenOutagesOf(viewer, orderId),
        diagnostic.proceduresOf(viewer, orderId),
      ]);
      const labels = new Map<string, string>([
        ...codes.map((c) => [`code:${c.errorCode.id}`, c.errorCode.code] as const),
        ...seen.map((s) => [`symptom:${s.symptom.id}`, s.symptom.name] as const),
      ]);
      const observed = candidates.filter((c) => c.confirmedOrders > 0 || Number(c.outage.orderCount) > 0);
      const ranked: SheetOutage[] = observed.slice(0, SHEET_OUTAGES).map((c) => ({
        ...c,
        shared: shared
          .filter((s) => s.outageId === c.outage.id && labels.has(`${s.kind}:${s.signId}`))
          .map((s) => ({ kind: s.kind, label: labels.get(`${s.kind}:${s.signId}`)!, orders: s.orders })),
      }));
      return { order, codes, symptoms: seen, history, ranked, more: observed.length - ranked.length, chosen, procedures };
    },
  };
}

/** Who may call what (decision 061): the sheet is handed to customers (decision 090). */
export const outageSheetPermissions = {
  sheetOf: 'handOutageSheets',
} as const satisfies PermissionTable<OutageSheetService>;
