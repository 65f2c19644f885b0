// The screen of an order's intervention report (`/repair-order/{uuid}/report` and its PDF,
// `report.pdf`; SPEC §2.7, decision 065): what the URL says and what the report shows, read
// through the services bound to the viewer; the page prints it, server/repair-orders/report-pdf.ts draws it.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { formatDate, formatDateTime, formatNumber, formatTime, labelOf, wholeNumbers } from '#lib/format.ts';
import { type GearboxType, gearboxTypeLabels } from '#lib/gearboxes/gearboxes.ts';
import { boundsText } from '#lib/gearboxes/measures.ts';
import { outageLabel } from '#lib/gearboxes/outages.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { flag, readPage, recordId } from '#lib/page-query.ts';
import { addressQr } from '#lib/qr.ts';
import { type AppearanceConditions, conditionsOf, type Temporality } from '#lib/repair-orders/conditions.ts';
import type { CurveReading, StoredFileInfo } from '#lib/repair-orders/curves.ts';
import { isCsv, readingOf } from '#lib/repair-orders/curves.server.ts';
import { type CheckResult, checkResultLabels } from '#lib/repair-orders/measures.ts';
import type { Report, ReportChart, ReportCurve, ReportField, ReportPhoto } from '#server/repair-orders/report-pdf.ts';
import { photoItemOf } from '#lib/repair-orders/photos.server.ts';
import {
  energyLabels,
  engineSizeLabels,
  type InterventionCategory,
  interventionCategoryLabels,
  mileageBandLabels,
  type OrderStatus,
  orderStatusLabels,
} from '#lib/repair-orders/repair-orders.ts';

/** `/repair-order/{uuid}/report` and `/repair-order/{uuid}/report.pdf?ouvrir` (open the PDF in the browser rather than download it). */
export const querySchema = z.object({ orderId: recordId(), ouvrir: flag() }).transform((q) => ({ orderId: q.orderId, open: q.ouvrir }));

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => readPage(querySchema, astro);

/** Everything the report reads from its path and query. */
type ReportQuery = ReturnType<typeof read>;

/** The curves of an order, as the service reads them. */
type OrderCurves = Awaited<ReturnType<App.Locals['services']['orderCurves']['curvesOf']>>;

const dash = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '—' : String(value));
/** Fields as printed, on the page and in the PDF alike: a number never split from its digits or its unit. */
const printed = (fields: ReportField[]) => fields.map((f) => ({ ...f, value: wholeNumbers(f.value) }));
const number = (n: number | null | undefined, unit = '') => (n === null || n === undefined ? '' : `${formatNumber(n)}${unit ? ` ${unit}` : ''}`);
/** A fault code's or a symptom's conditions, labelled. */
const conditions = (c: Omit<AppearanceConditions, 'temporality'> & { temporality: string | null }) =>
  conditionsOf({ ...c, temporality: c.temporality as Temporality | null });

/** Each order curve's CSVs over its reference; a curve with no CSV shows its reference alone. */
async function curvesOf(locals: App.Locals, curves: OrderCurves): Promise<ReportCurve[]> {
  const readings = new Map<string, CurveReading>();
  const reading = async (file: StoredFileInfo) => {
    if (!readings.has(file.id)) readings.set(file.id, await readingOf(locals, file));
    return readings.get(file.id)!;
  };
  const out: ReportCurve[] = [];
  for (const curve of curves) {
    const problems: string[] = [];
    const charts: ReportChart[] = [];
    const reference = curve.reference ? await reading(curve.reference.file) : null;
    if (curve.reference && reference?.error) problems.push(t('report.curveUnreadable', { title: curve.reference.title, reason: reference.error }));
    const csvFiles = curve.files.filter((f) => isCsv(f.file));
    for (const f of csvFiles) {
      const measured = await reading(f.file);
      if (measured.curve) charts.push({ title: t('report.chart', { title: f.file.name }), reference: reference?.curve ?? null, measured: measured.curve });
      else problems.push(t('report.curveUnreadable', { title: f.file.name, reason: measured.error }));
    }
    if (csvFiles.length === 0 && reference?.curve)
      charts.push({ title: `${t('report.reference')} : ${curve.reference!.title}`, reference: reference.curve, measured: null });
    out.push({ id: curve.id, description: curve.description, result: curve.result, comment: curve.comment, charts, problems });
  }
  return out;
}

/** The report of an order, or null when the id is malformed or names no order. */
export async function load(locals: App.Locals, { orderId }: ReportQuery): Promise<Report | null> {
  if (!orderId) return null;
  const { repairOrders, faultCodes, symptoms, orderMeasures, orderCurves, diagnostic, orderProcedure, orderPhotos } = locals.services;
  const [order, codes, seen, measures, curves, outages, { procedures, events }, photos] = await withinBudget(
    locals,
    Promise.all([
      repairOrders.get(orderId),
      faultCodes.faultCodesOf(orderId),
      symptoms.symptomsOf(orderId),
      orderMeasures.measuresOf(orderId),
      orderCurves.curvesOf(orderId),
      diagnostic.chosenOutagesOf(orderId),
      // The procedures with their checkpoints, and the closings, in one read.
      orderProcedure.followedOf(orderId),
      // The photos of every checkpoint and measure: one indexed read, none of their bytes (decision 088).
      orderPhotos.photosOf(orderId),
    ]),
  );
  if (!order) return null;
  const photosOf = (has: (p: (typeof photos)[number]) => boolean): ReportPhoto[] =>
    photos.filter(has).map((p) => ({ ...photoItemOf(locals.services.files, p), thumbnailId: p.thumbnailId ?? p.fileId }));
  const url = new URL(`/repair-order/${order.id}`, locals.services.config.publicUrl).toString();
  // Events come newest first: the closing that stands is the latest, and only while the order is closed.
  const now = new Date();
  const closed = order.status === 'CLOSED' ? events.find((e) => e.kind === 'closed') : undefined;
  return {
    id: order.id,
    number: order.number,
    url,
    qr: addressQr(url),
    editedOn: t('report.editedOn', { date: formatDate(now), time: formatTime(now) }),
    order: printed([
      { label: t('repairOrders.number'), value: order.number, whole: true },
      { label: t('repairOrders.openedOn'), value: formatDate(order.openedOn), whole: true },
      { label: t('repairOrders.closedOn'), value: dash(formatDate(order.closedOn)), whole: true },
      { label: t('repairOrders.status'), value: orderStatusLabels[order.status as OrderStatus] },
      { label: t('repairOrders.category'), value: interventionCategoryLabels[order.interventionCategory as InterventionCategory] },
      { label: t('repairOrders.referent'), value: order.referent?.displayName ?? t('repairOrders.noReferent') },
    ]),
    vehicle: printed([
      { label: t('repairOrders.vehicleBrand'), value: dash(order.vehicleBrand) },
      { label: t('repairOrders.vehicleModel'), value: dash(order.vehicleModel) },
      { label: t('repairOrders.energy'), value: dash(order.energy && labelOf(energyLabels, order.energy)) },
      { label: t('repairOrders.engineSize'), value: dash(order.engineSize && labelOf(engineSizeLabels, order.engineSize)) },
      { label: t('repairOrders.mileage'), value: dash(order.mileage && labelOf(mileageBandLabels, order.mileage)) },
      { label: t('repairOrders.constructionYear'), value: dash(order.constructionYear), whole: true },
    ]),
    gearbox: printed([
      { label: t('report.gearboxModel'), value: order.model.model },
      { label: t('report.gearboxType'), value: gearboxTypeLabels[order.model.type as GearboxType] ?? order.model.type },
      { label: t('report.constructorName'), value: dash(order.model.constructorName) },
      { label: t('report.gearboxCode'), value: dash(order.gearboxCode) },
    ]),
    history: order.history.map((e) => ({ id: e.id, mileage: wholeNumbers(number(e.mileage, 'km')), intervention: e.intervention })),
    faultCodesNote: order.canReadFaultCodes === false ? t('report.faultCodesNotReadable') : null,
    faultCodes: codes.map((c) => ({
      id: c.id,
      name: c.errorCode.code,
      detail: c.errorCode.description,
      conditions: conditions(c),
      comment: c.comment,
    })),
    symptoms: seen.map((s) => ({ id: s.id, name: s.symptom.name, detail: s.errorCode?.code ?? '', conditions: conditions(s), comment: s.comment })),
    outages: outages.map((o) => ({ id: o.id, label: outageLabel(o), description: o.description })),
    validatedOn: order.validatedAt ? formatDate(order.validatedAt) : null,
    procedures: order.validatedAt
      ? [...procedures]
          .sort((a, b) => a.position - b.position)
          .map((p) => ({
            id: p.id,
            name: p.name,
            description: p.description,
            steps: p.steps,
            checkpoints: [...p.checkpoints]
              .sort((a, b) => a.position - b.position)
              .map((c) => ({
                id: c.id,
                name: c.name,
                description: c.description,
                result: c.checkResult as CheckResult | null,
                resultLabel: c.checkResult ? checkResultLabels[c.checkResult as CheckResult] : t('report.notAnswered'),
                value: dash(number(c.measuredValue)),
                comment: c.comment,
                answered: c.answeredAt ? [c.answeredByName, formatDateTime(c.answeredAt)].filter(Boolean).join(', ') : '',
                photos: photosOf((photo) => photo.checkpointId === c.id),
              })),
          }))
      : [],
    measures: measures.map((m) => ({
      id: m.id,
      // «(à 20 °C)» kept whole in a measure's name and value, as in a field (walk17 F5).
      name: wholeNumbers(m.name),
      bounds: boundsText(m, (n) => formatNumber(n)),
      value: m.measuredValue === null ? t('orderMeasures.noValue') : wholeNumbers(number(m.measuredValue, m.unit)),
      result: m.checkResult as CheckResult | null,
      resultLabel: m.checkResult ? checkResultLabels[m.checkResult as CheckResult] : '—',
      comment: m.comment,
      photos: photosOf((photo) => photo.measureId === m.id),
    })),
    curves: await curvesOf(locals, curves),
    comment: order.comment,
    closing: closed ? { comment: closed.comment, by: t('report.closedBy', { name: closed.byName || '—', date: formatDateTime(closed.at) }) } : null,
  };
}

/** The report with its photos' thumbnails read for the PDF, which embeds them; none read for a report without photos. */
export async function withPhotoBytes(locals: App.Locals, report: Report): Promise<Report> {
  const read = async (photo: ReportPhoto): Promise<ReportPhoto> => {
    const bytes = await locals.services.files.blobs.read(photo.thumbnailId);
    return bytes ? { ...photo, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) } : photo;
  };
  const withBytes = (photos: ReportPhoto[]) => Promise.all(photos.map(read));
  return {
    ...report,
    procedures: await Promise.all(
      report.procedures.map(async (p) => ({
        ...p,
        checkpoints: await Promise.all(p.checkpoints.map(async (c) => ({ ...c, photos: await withBytes(c.photos) }))),
      })),
    ),
    measures: await Promise.all(report.measures.map(async (m) => ({ ...m, photos: await withBytes(m.photos) }))),
  };
}

/** The PDF's file name: the order number kept to characters any browser and header accept. */
export const reportFileName = (number: string) => `rapport-${number.replace(/[^A-Za-z0-9._-]+/g, '-')}.pdf`;
