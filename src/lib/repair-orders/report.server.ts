import { z } from 'zod';
import type { Curve, CurveReading, OrderCurve, StoredFileInfo } from './curves.ts';
import { conditionsOf } from './conditions.ts';
import { SymptomFields } from './symptoms.ts';
import { formatDate, formatDateTime, formatNumber, formatTime, labelOf } from '#lib/format.ts';
import { gearboxTypeLabels } from '#lib/gearboxes/gearboxes.ts';
import { graphql, type ResultOf } from '#lib/graphql.ts';
import { isRefusal, serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { flag } from '#lib/page-query.ts';
import { boundsText } from '#lib/gearboxes/measures.ts';
import { isCsv, readingOf } from './curves.server.ts';
import { OrderCurveFields } from './curves.ts';
import { checkResultLabels, type CheckResult } from './measures.ts';
import { outageLabel } from '#lib/gearboxes/outages.ts';
import { qrPath } from '#lib/qr.ts';
import { FaultCodeFields } from './fault-codes.ts';
import { OrderFields } from './repair-orders.ts';
import { energyLabels, engineSizeLabels, interventionCategoryLabels, mileageBandLabels, orderStatusLabels } from './repair-orders.ts';

/** A label and its value; `whole` for a number or a date, which never wraps (labels and words may). */
export type ReportField = { label: string; value: string; whole?: boolean };
export type ReportCheckpoint = {
  id: string;
  name: string;
  description: string;
  result: CheckResult | null;
  resultLabel: string;
  value: string;
  comment: string;
  answered: string;
};
export type ReportProcedure = { id: string; name: string; description: string; steps: string[]; checkpoints: ReportCheckpoint[] };
export type ReportMeasure = { id: string; name: string; bounds: string; value: string; result: CheckResult | null; resultLabel: string; comment: string };
export type ReportChart = { title: string; reference: Curve | null; measured: Curve | null };
export type ReportCurve = { id: string; description: string; result: string; comment: string; charts: ReportChart[]; problems: string[] };
export type ReportCondition = { id: string; name: string; detail: string; conditions: ReportField[]; comment: string };

export type Report = {
  id: string;
  number: string;
  /** The order's page, which the QR code opens. */
  url: string;
  qr: { d: string; size: number };
  /** «Édité le DD/MM/YYYY à HH:mm», under the title and in every page's footer. */
  editedOn: string;
  order: ReportField[];
  vehicle: ReportField[];
  gearbox: ReportField[];
  /** Why there are no codes, when the gearbox cannot be read. */
  faultCodesNote: string | null;
  faultCodes: ReportCondition[];
  symptoms: ReportCondition[];
  outages: { id: string; label: string; description: string }[];
  validatedOn: string | null;
  procedures: ReportProcedure[];
  measures: ReportMeasure[];
  curves: ReportCurve[];
  comment: string;
  closing: { comment: string; by: string } | null;
};

const REPORT_QUERY = graphql(
  `query($id: uuid!) { repairOrder(id: $id) {
    ...OrderFields validatedAt
    faultCodes { ...FaultCodeFields }
    symptoms { ...SymptomFields }
    measures { id name unit minimum maximum measuredValue checkResult comment }
    curves { ...OrderCurveFields }
    chosenOutages { id description component { name } outageType { name } }
    procedures {
      id position name description steps procedure { name description steps }
      checkpoints { id position name description checkResult measuredValue comment answeredByName answeredAt }
    }
    events { kind at byName comment }
  } }`,
  [OrderFields, FaultCodeFields, SymptomFields, OrderCurveFields],
);

const dash = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '—' : String(value));
const number = (n: number | null | undefined, unit = '') => (n === null || n === undefined ? '' : `${formatNumber(n)}${unit ? ` ${unit}` : ''}`);

/** Each order curve's CSVs over its reference; a curve with no CSV shows its reference alone. */
async function curvesOf(locals: App.Locals, curves: OrderCurve[]): Promise<ReportCurve[]> {
  const readings = new Map<string, CurveReading>();
  const read = async (file: StoredFileInfo) => {
    if (!readings.has(file.id)) readings.set(file.id, await readingOf(locals, file));
    return readings.get(file.id)!;
  };
  const out: ReportCurve[] = [];
  for (const curve of curves) {
    const problems: string[] = [];
    const charts: ReportChart[] = [];
    const reference = curve.reference ? await read(curve.reference.file) : null;
    if (curve.reference && reference?.error) problems.push(t('report.curveUnreadable', { title: curve.reference.title, reason: reference.error }));
    const csvFiles = curve.files.filter((f) => isCsv(f.file));
    for (const f of csvFiles) {
      const measured = await read(f.file);
      if (measured.curve) charts.push({ title: t('report.chart', { title: f.file.name }), reference: reference?.curve ?? null, measured: measured.curve });
      else problems.push(t('report.curveUnreadable', { title: f.file.name, reason: measured.error }));
    }
    if (csvFiles.length === 0 && reference?.curve)
      charts.push({ title: `${t('report.reference')} : ${curve.reference!.title}`, reference: reference.curve, measured: null });
    out.push({ id: curve.id, description: curve.description, result: curve.result, comment: curve.comment, charts, problems });
  }
  return out;
}

/** The report of an order, or null when the id is malformed or names no order the viewer may read. */
export async function loadReport(locals: App.Locals, id: string | undefined): Promise<Report | null> {
  if (!isUuid(id)) return null;
  let data: ResultOf<typeof REPORT_QUERY>;
  try {
    data = await serverGraphQL(locals).request(REPORT_QUERY, { id });
  } catch (error) {
    // The API refused (not found, rights): the page says so in French; an outage reaches the 503 page.
    if (isRefusal(error)) return null;
    throw error;
  }
  const order = data.repairOrder;
  if (!order) return null;
  const url = new URL(`/repair-order/${order.id}`, locals.services.config.publicUrl).toString();
  // Events come newest first: the closing that stands is the latest, and only while the order is closed.
  const now = new Date();
  const closed = order.status === 'CLOSED' ? order.events.find((e) => e.kind === 'closed') : undefined;
  return {
    id: order.id,
    number: order.number,
    url,
    qr: qrPath(url),
    editedOn: t('report.editedOn', { date: formatDate(now), time: formatTime(now) }),
    order: [
      { label: t('repairOrders.number'), value: order.number, whole: true },
      { label: t('repairOrders.openedOn'), value: formatDate(order.openedOn), whole: true },
      { label: t('repairOrders.closedOn'), value: dash(formatDate(order.closedOn)), whole: true },
      { label: t('repairOrders.status'), value: orderStatusLabels[order.status] },
      { label: t('repairOrders.category'), value: interventionCategoryLabels[order.interventionCategory] },
      { label: t('repairOrders.referent'), value: order.referent?.displayName ?? t('repairOrders.noReferent') },
    ],
    vehicle: [
      { label: t('repairOrders.vehicleBrand'), value: dash(order.vehicleBrand) },
      { label: t('repairOrders.vehicleModel'), value: dash(order.vehicleModel) },
      { label: t('repairOrders.energy'), value: dash(order.energy && labelOf(energyLabels, order.energy)) },
      { label: t('repairOrders.engineSize'), value: dash(order.engineSize && labelOf(engineSizeLabels, order.engineSize)) },
      { label: t('repairOrders.mileage'), value: dash(order.mileage && labelOf(mileageBandLabels, order.mileage)) },
      { label: t('repairOrders.constructionYear'), value: dash(order.constructionYear), whole: true },
    ],
    gearbox: [
      { label: t('report.gearboxModel'), value: order.model.model },
      { label: t('report.gearboxType'), value: gearboxTypeLabels[order.model.type] ?? order.model.type },
      { label: t('report.constructorName'), value: dash(order.model.constructorName) },
      { label: t('report.gearboxCode'), value: dash(order.gearboxCode) },
    ],
    faultCodesNote: order.canReadFaultCodes === false ? t('report.faultCodesNotReadable') : null,
    faultCodes: order.faultCodes.map((c) => ({
      id: c.id,
      name: c.errorCode.code,
      detail: c.errorCode.description,
      conditions: conditionsOf(c),
      comment: c.comment,
    })),
    symptoms: order.symptoms.map((s) => ({ id: s.id, name: s.symptom.name, detail: s.errorCode?.code ?? '', conditions: conditionsOf(s), comment: s.comment })),
    outages: order.chosenOutages.map((o) => ({ id: o.id, label: outageLabel(o), description: o.description })),
    validatedOn: order.validatedAt ? formatDate(order.validatedAt) : null,
    procedures: order.validatedAt
      ? [...order.procedures]
          .sort((a, b) => a.position - b.position)
          .map((p) => ({
            id: p.id,
            name: p.name ?? p.procedure.name,
            description: p.description ?? p.procedure.description,
            steps: p.steps ?? p.procedure.steps,
            checkpoints: [...(p.checkpoints ?? [])]
              .sort((a, b) => a.position - b.position)
              .map((c) => ({
                id: c.id,
                name: c.name,
                description: c.description,
                result: c.checkResult,
                resultLabel: c.checkResult ? checkResultLabels[c.checkResult] : t('report.notAnswered'),
                value: dash(number(c.measuredValue)),
                comment: c.comment,
                answered: c.answeredAt ? [c.answeredByName, formatDateTime(c.answeredAt)].filter(Boolean).join(', ') : '',
              })),
          }))
      : [],
    measures: order.measures.map((m) => ({
      id: m.id,
      name: m.name,
      bounds: boundsText(m, (n) => formatNumber(n)),
      value: m.measuredValue === null ? t('orderMeasures.noValue') : number(m.measuredValue, m.unit),
      result: m.checkResult,
      resultLabel: m.checkResult ? checkResultLabels[m.checkResult] : '—',
      comment: m.comment,
    })),
    curves: await curvesOf(locals, order.curves),
    comment: order.comment,
    closing: closed ? { comment: closed.comment, by: t('report.closedBy', { name: closed.byName || '—', date: formatDateTime(closed.at) }) } : null,
  };
}

/** `/repair-order/{uuid}/report.pdf?ouvrir`: open the PDF in the browser rather than download it. */
export const reportPdfSchema = z.object({ ouvrir: flag() }).transform((q) => ({ open: q.ouvrir }));

/** The PDF's file name: the order number kept to characters any browser and header accept. */
export const reportFileName = (number: string) => `rapport-${number.replace(/[^A-Za-z0-9._-]+/g, '-')}.pdf`;
