// The screen of an order's outage sheet for the customer (`/repair-order/{uuid}/outage-sheet` and
// its PDF, `outage-sheet.pdf`; issue 32, decision 090): the sheet's facts read through the outage
// sheet service, worded once here for the page and the PDF alike.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { formatDate, formatNumber, formatTime, labelOf, wholeNumbers } from '#lib/format.ts';
import { type GearboxType, gearboxTypeLabels } from '#lib/gearboxes/gearboxes.ts';
import { historyRate, outageLabel } from '#lib/gearboxes/outages.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { flag, readPage, recordId } from '#lib/page-query.ts';
import { addressQr } from '#lib/qr.ts';
import { energyLabels, mileageBandLabels, type OrderStatus, orderStatusLabels } from '#lib/repair-orders/repair-orders.ts';
import type { OutageSheet } from '#server/repair-orders/outage-sheet-pdf.ts';
import type { ReportField } from '#server/repair-orders/report-pdf.ts';

/** `/repair-order/{uuid}/outage-sheet` and `/repair-order/{uuid}/outage-sheet.pdf?ouvrir` (open the PDF in the browser rather than download it). */
export const querySchema = z.object({ orderId: recordId(), ouvrir: flag() }).transform((q) => ({ orderId: q.orderId, open: q.ouvrir }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

type SheetFacts = NonNullable<Awaited<ReturnType<App.Locals['services']['outageSheet']['sheetOf']>>>;

const dash = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '—' : String(value));
const printed = (fields: ReportField[]) => fields.map((f) => ({ ...f, value: wholeNumbers(f.value) }));
/**
 * A mileage as a customer reads it: the orders' bands are averaged by their middles, so the figure
 * is rounded to 5,000 km («vers 140 000 km», not 141 667 km).
 */
const roughKm = (km: number) => `${formatNumber(Math.round(km / 5000) * 5000)} km`;
const boxes = (n: number) => (n === 1 ? t('outageSheet.oneBox') : t('outageSheet.boxes', { count: n }));

/** The closed orders alike that confirmed the outage, out of all alike, in words (none when nothing was alike). */
function evidence(confirmed: number, similar: number): string | null {
  if (similar === 0) return null;
  if (similar === 1) return t(confirmed ? 'outageSheet.evidenceOnlyYes' : 'outageSheet.evidenceOnlyNo');
  if (confirmed === 0) return t('outageSheet.evidenceNone', { similar });
  if (confirmed === 1) return t('outageSheet.evidenceOne', { similar });
  if (confirmed === similar) return t('outageSheet.evidenceAll', { similar });
  return t('outageSheet.evidenceMany', { confirmed, similar });
}

/** The rate with the mileage, the evidence and the signs shared of a ranked outage, one sentence each. */
function linesOf(o: SheetFacts['ranked'][number], history: number): string[] {
  const count = Number(o.outage.orderCount ?? 0);
  const rate = formatNumber(historyRate(count, history) ?? 0);
  const only = history === 1 && count === 1;
  const mileage = count > 0 && o.outage.ordersAverageMileage != null ? roughKm(o.outage.ordersAverageMileage) : null;
  // One box has no average: its mileage is said alone.
  const withMileage = only ? 'outageSheet.rateOnlyMileage' : count === 1 ? 'outageSheet.rateOneMileage' : 'outageSheet.rateMileage';
  const lines = [
    wholeNumbers(
      mileage
        ? t(withMileage, { count, total: history, rate, mileage })
        : t(only ? 'outageSheet.rateOnly' : 'outageSheet.rate', { count, total: history, rate }),
    ),
  ];
  const said = evidence(o.confirmedOrders, o.similarOrders);
  if (said) lines.push(said);
  if (o.shared.length)
    lines.push(
      t('outageSheet.shared', {
        signs: o.shared
          .map((s) =>
            s.kind === 'code'
              ? t('outageSheet.sharedCode', { code: s.label, orders: boxes(s.orders) })
              : t('outageSheet.sharedSymptom', { name: s.label, orders: boxes(s.orders) }),
          )
          .join(', '),
      }),
    );
  return lines;
}

/** The sheet of an order, or null when the id is malformed or names no order. */
export async function load(locals: App.Locals, { orderId }: ReturnType<typeof read>): Promise<OutageSheet | null> {
  if (!orderId) return null;
  const facts = await withinBudget(locals, locals.services.outageSheet.sheetOf(orderId));
  if (!facts) return null;
  const { order, history, ranked } = facts;
  const url = new URL(`/repair-order/${order.id}`, locals.services.config.publicUrl).toString();
  const now = new Date();
  const printedOn = t('outageSheet.printedOn', { date: formatDate(now), time: formatTime(now) });
  const similar = ranked[0]?.similarOrders ?? 0;
  const rankingNotes =
    history === 0
      ? [t('outageSheet.noHistory')]
      : ranked.length === 0
        ? [history === 1 ? t('outageSheet.noneObservedOnly') : t('outageSheet.noneObserved', { total: history })]
        : [t('outageSheet.rankedIntro'), ...(similar === 0 ? [t('outageSheet.noSimilar')] : [])];
  const listed = new Set(ranked.map((o) => o.outage.id));
  // A retained outage the list leaves out: its rank and figures past the five, else why the history has not seen it.
  const notesOf = (outageId: string): string[] => {
    if (listed.has(outageId)) return [];
    const far = facts.unlisted.find((o) => o.outage.id === outageId);
    if (far) return [t('outageSheet.retainedRank', { rank: far.rank, listed: ranked.length }), ...linesOf(far, history)];
    return [t(order.status === 'CLOSED' ? 'outageSheet.retainedUnseenElsewhere' : 'outageSheet.retainedUnseen')];
  };
  const vehicle = [order.vehicleBrand, order.vehicleModel].filter(Boolean).join(' ');
  return {
    id: order.id,
    number: order.number,
    url,
    qr: addressQr(url),
    printedOn,
    order: printed([
      { label: t('outageSheet.number'), value: order.number, whole: true },
      { label: t('outageSheet.openedOn'), value: formatDate(order.openedOn), whole: true },
      { label: t('outageSheet.status'), value: orderStatusLabels[order.status as OrderStatus] },
      ...(order.closedOn ? [{ label: t('outageSheet.closedOn'), value: formatDate(order.closedOn), whole: true }] : []),
    ]),
    vehicle: printed([
      { label: t('outageSheet.vehicle'), value: dash(vehicle) },
      { label: t('repairOrders.energy'), value: dash(order.energy && labelOf(energyLabels, order.energy)) },
      { label: t('repairOrders.mileage'), value: dash(order.mileage && labelOf(mileageBandLabels, order.mileage)) },
      { label: t('outageSheet.year'), value: dash(order.constructionYear), whole: true },
    ]),
    gearbox: printed([
      { label: t('report.constructorName'), value: dash(order.model.constructorName) },
      { label: t('report.gearboxType'), value: gearboxTypeLabels[order.model.type as GearboxType] ?? order.model.type },
      { label: t('report.gearboxModel'), value: order.model.model },
      { label: t('report.gearboxCode'), value: dash(order.gearboxCode) },
    ]),
    faultCodesNote: order.canReadFaultCodes === false ? t('outageSheet.faultCodesNotReadable') : null,
    faultCodes: facts.codes.map((c) => ({ id: c.id, code: c.errorCode.code, description: c.errorCode.description })),
    symptoms: facts.symptoms.map((s) => ({ id: s.id, name: s.symptom.name, code: s.errorCode?.code ?? '' })),
    rankingNotes,
    outages: ranked.map((o, i) => ({
      id: o.outage.id,
      rank: i + 1,
      // The dossier's description is the workshop's words: the customer reads it for the outage retained only.
      label: outageLabel(o.outage),
      chosen: o.chosen,
      lines: linesOf(o, history),
    })),
    more: facts.more === 0 ? null : facts.more === 1 ? t('outageSheet.oneMore') : t('outageSheet.more', { count: facts.more }),
    chosen: facts.chosen.map((o) => ({ id: o.id, label: outageLabel(o), description: o.description, notes: notesOf(o.id) })),
    proceduresTitle: t(order.status === 'CLOSED' ? 'outageSheet.proceduresDone' : 'outageSheet.procedures'),
    procedures: facts.procedures.map((p) => ({ id: p.id, name: p.name, description: p.description })),
  };
}

/** The PDF's file name: the order number kept to characters any browser and header accept. */
export const sheetFileName = (number: string) => `fiche-panne-${number.replace(/[^A-Za-z0-9._-]+/g, '-')}.pdf`;
