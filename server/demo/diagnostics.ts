import { readFileSync } from 'node:fs';
import { and, count, eq, inArray } from 'drizzle-orm';
import { CURVE_BUCKET, parseCurve } from '#lib/repair-orders/curves.ts';
import { checkType, type FileStore } from '#server/storage/store.ts';
import { proposeCheckResult } from '#lib/repair-orders/measures.ts';
import type { Db } from '#server/db/client.ts';
import { generator, pick, seedOf } from './stock.ts';
import type { DemoOrder } from './orders.ts';
import { snapshotProcedures } from '#server/repair-orders/diagnostic.ts';
import { makePhoto, PHOTO_KIND } from '#server/repair-orders/photos.ts';
import { PHOTO_BUCKET } from '#lib/storage/files.ts';
import { loadSharp } from '#server/storage/sharp.ts';
import {
  baseItems,
  errorCodes,
  files,
  gearboxDocuments,
  gearboxMeasures,
  orderCheckpoints,
  orderCurves,
  orderFiles,
  orderEvents,
  orderFaultCodes,
  orderMeasures,
  orderOutages,
  orderProcedures,
  orderSymptoms,
  outageProcedures,
  outages,
  repairOrders,
  repairProcedures,
  users,
} from '#server/db/schema/index.ts';

type SeededOrder = DemoOrder & { id: string; modelId: string };

/** How far an order in progress went, in the order of the diagnostic. */
const stages = ['none', 'codes', 'symptoms', 'measures', 'outages', 'procedures', 'visualised', 'validated'] as const;
type Stage = (typeof stages)[number];
const atLeast = (stage: Stage, than: Stage) => stages.indexOf(stage) >= stages.indexOf(than);

/**
 * The base's symptom a customer's words come to, first match wins. A «choc» alone is a knock on
 * the car («Fuite d'huile après un choc sur un trottoir» is a leak), not a shift's jolt.
 */
const symptomWords: [RegExp, string][] = [
  [/secours|dégradé/i, 'Mode dégradé (secours)'],
  [/patin/i, 'Patinage'],
  [/à-coup|a-coup|claque|choc au passage/i, 'À-coup au passage de rapport'],
  [/vibration|broute/i, 'Vibrations au démarrage'],
  [/marche arrière/i, 'Pas de marche arrière'],
  [/fuite/i, "Fuite d'huile"],
  [/siffl|bruit|ronfl/i, 'Sifflement'],
  [/retard|tard|lent/i, 'Passage de rapport retardé'],
  [/voyant|message/i, 'Voyant de boîte allumé'],
];
const conditionsOf = ['Moteur froid', 'Moteur chaud (plus de 80 °C)', 'Au démarrage', 'En accélération franche', 'En décélération', 'À vitesse stabilisée'];

/** A file written for the demo: moved into the store once the transaction has committed. */
export type DemoFile = { tmp: string; id: string; name: string; size: number; etag: string; mimeType: string };

export async function seedDiagnostics(db: Db, orders: SeededOrder[], descriptions: Record<string, string>, deps: { store: FileStore; files: DemoFile[] }) {
  if (orders.length === 0) return;
  const modelIds = [...new Set(orders.map((o) => o.modelId))];
  const symptoms = await db.select({ id: baseItems.id, name: baseItems.name }).from(baseItems).where(eq(baseItems.kind, 'symptom'));
  const symptomId = new Map(symptoms.map((s) => [s.name, s.id]));
  // The operating phase is one of the base's conditions (decision 043).
  const conditions = await db.select({ id: baseItems.id, name: baseItems.name }).from(baseItems).where(eq(baseItems.kind, 'condition'));
  const conditionId = new Map(conditions.map((c) => [c.name, c.id]));
  const modelOutages = await db
    .select({ id: outages.id, modelId: outages.modelId, component: baseItems.name, rate: outages.occurrenceRate })
    .from(outages)
    .innerJoin(baseItems, eq(baseItems.id, outages.componentId))
    .where(inArray(outages.modelId, modelIds));
  const priorities = await db
    .select({ outageId: outageProcedures.outageId, procedureId: outageProcedures.procedureId, priority: outageProcedures.priority })
    .from(outageProcedures)
    .innerJoin(outages, eq(outages.id, outageProcedures.outageId))
    .where(inArray(outages.modelId, modelIds));
  const procedures = await db
    .select({ id: repairProcedures.id, modelId: repairProcedures.modelId })
    .from(repairProcedures)
    .where(inArray(repairProcedures.modelId, modelIds));
  const measures = await db.select().from(gearboxMeasures).where(inArray(gearboxMeasures.modelId, modelIds));
  const codes = await db
    .select({ id: errorCodes.id, modelId: errorCodes.modelId, code: errorCodes.code })
    .from(errorCodes)
    .where(inArray(errorCodes.modelId, modelIds));
  const [validator] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, 'diagnostic@demo.local')));
  const [mechanic] = await db.select({ id: users.id, name: users.displayName }).from(users).where(eq(users.email, 'mecanicien@demo.local'));

  /** The model's error code, added to its dossier when the workshop read one it did not list. */
  async function codeId(modelId: string, code: string) {
    const known = codes.find((c) => c.modelId === modelId && c.code === code);
    if (known) return known.id;
    const [row] = await db
      .insert(errorCodes)
      .values({ modelId, code, description: descriptions[code] ?? 'Code relevé en atelier' })
      .returning({ id: errorCodes.id });
    codes.push({ id: row!.id, modelId, code });
    return row!.id;
  }

  const inProgress = orders.filter((o) => o.status !== 'CLOSED');
  const faultRows: (typeof orderFaultCodes.$inferInsert)[] = [];
  const symptomRows: (typeof orderSymptoms.$inferInsert)[] = [];
  const measureRows: (typeof orderMeasures.$inferInsert)[] = [];
  const outageRows: (typeof orderOutages.$inferInsert)[] = [];
  const procedureRows: (typeof orderProcedures.$inferInsert)[] = [];

  for (const order of orders) {
    const rand = generator(seedOf(`diagnostic ${order.number}`));
    // The most recent orders in progress are at every stage; one just opened has nothing yet.
    const stage: Stage =
      order.status === 'CLOSED' ? 'validated' : order.outageParts.length === 0 ? 'none' : stages[1 + (inProgress.indexOf(order) % (stages.length - 1))]!;
    const flags: Partial<typeof repairOrders.$inferInsert> = {};
    if (atLeast(stage, 'codes')) {
      flags.canReadFaultCodes = order.codes.length > 0;
      for (const [i, code] of order.codes.entries()) {
        faultRows.push({
          orderId: order.id,
          errorCodeId: await codeId(order.modelId, code),
          temporality: pick(rand, ['pre', 'during', 'post'] as const),
          acceleratorLoad: pick(rand, ['Pied levé', 'Charge partielle', 'Mi-charge', 'Pleine charge']),
          bvaMode: pick(rand, ['D', 'D', 'S (sport)', 'M (manuel)']),
          gear: String(1 + Math.floor(rand() * 4)),
          actionId: conditionId.get(pick(rand, conditionsOf)) ?? null,
          comment: i === 0 ? "Relevé à la valise à l'arrivée." : '',
        });
      }
    }
    if (atLeast(stage, 'symptoms')) {
      const name = symptomWords.find(([words]) => words.test(order.symptom))?.[1] ?? 'Perte de puissance';
      const id = symptomId.get(name);
      if (id)
        symptomRows.push({
          orderId: order.id,
          symptomId: id,
          actionId: conditionId.get(pick(rand, conditionsOf)) ?? null,
          temporality: 'during',
          comment: order.symptom.slice(0, 300),
        });
    }
    if (atLeast(stage, 'measures')) {
      const own = measures.filter((m) => m.modelId === order.modelId);
      flags.measuresDone = own.length > 0;
      for (const m of own.slice(0, 3)) {
        const low = m.minimum ?? 0;
        const high = m.maximum ?? low + 1;
        // Mostly within the bounds; now and then out, as on a faulty box: beyond the maximum by a
        // tenth to nearly half the band, never past what the quantity can read (a wear of 0–80 %
        // reads 82–98 %, not 132 %).
        const out = rand() < 0.25;
        const draw = rand();
        const beyond = m.unit === '%' ? Math.min(high - low, 100 - high) * (0.1 + draw * 0.8) : (high - low) * (0.1 + draw * 0.35);
        const value = Math.round((out ? high + beyond : low + (high - low) * (0.15 + draw * 0.7)) * 100) / 100;
        measureRows.push({
          orderId: order.id,
          gearboxMeasureId: m.id,
          name: m.name,
          description: m.description,
          unit: m.unit,
          minimum: m.minimum,
          maximum: m.maximum,
          measuredValue: value,
          checkResult: proposeCheckResult(value, m.minimum, m.maximum),
        });
      }
    }
    if (atLeast(stage, 'outages')) {
      const own = modelOutages.filter((o) => o.modelId === order.modelId);
      // The outage whose part the workshop found at fault, else the likeliest of the dossier.
      const confirmed =
        own.find((o) =>
          order.outageParts.some((part) => part.toLowerCase().includes(o.component.toLowerCase()) || o.component.toLowerCase().includes(part.toLowerCase())),
        ) ?? [...own].sort((a, b) => (b.rate ?? 0) - (a.rate ?? 0))[0];
      if (confirmed) {
        outageRows.push({ orderId: order.id, outageId: confirmed.id, position: 1 });
        flags.diagnosticStep = 1;
        if (atLeast(stage, 'procedures')) {
          const first = priorities.filter((p) => p.outageId === confirmed.id).sort((a, b) => a.priority - b.priority)[0];
          const procedureId = first?.procedureId ?? procedures.find((p) => p.modelId === order.modelId)?.id;
          if (procedureId) {
            procedureRows.push({ orderId: order.id, procedureId, outageId: first ? confirmed.id : null, position: 1 });
            flags.diagnosticStep = atLeast(stage, 'visualised') ? 3 : 2;
            if (stage === 'validated') Object.assign(flags, { validatedAt: new Date(order.updatedAt), validatedById: validator?.id ?? null });
          }
        }
      }
    }
    if (Object.keys(flags).length) await db.update(repairOrders).set(flags).where(eq(repairOrders.id, order.id));
  }
  if (faultRows.length) await db.insert(orderFaultCodes).values(faultRows).onConflictDoNothing();
  if (symptomRows.length) await db.insert(orderSymptoms).values(symptomRows);
  if (measureRows.length) await db.insert(orderMeasures).values(measureRows);
  if (outageRows.length) await db.insert(orderOutages).values(outageRows);
  if (procedureRows.length) await db.insert(orderProcedures).values(procedureRows);
  await seedCurves(
    db,
    orders.filter((o) => measureRows.some((m) => m.orderId === o.id)),
    deps,
  );

  // Validated orders: their procedures as validated. Closed ones have every checkpoint answered
  // (now and then out of tolerance) and their closing recorded; of the others, some are begun.
  const validated = orders.filter(
    (o) =>
      outageRows.some((r) => r.orderId === o.id) &&
      procedureRows.some((r) => r.orderId === o.id) &&
      (o.status === 'CLOSED' || inProgress.indexOf(o) % (stages.length - 1) === stages.length - 2),
  );
  for (const order of validated) {
    await snapshotProcedures(db, order.id);
    const points = await db
      .select({ id: orderCheckpoints.id })
      .from(orderCheckpoints)
      .where(eq(orderCheckpoints.orderId, order.id))
      .orderBy(orderCheckpoints.position);
    const rand = generator(seedOf(`checkpoints ${order.number}`));
    const answered = order.status === 'CLOSED' ? points.length : Math.floor(points.length / 2);
    const by = { answeredById: mechanic?.id ?? null, answeredByName: mechanic?.name ?? '' };
    for (const point of points.slice(0, answered)) {
      const checkResult = rand() < 0.85 ? 'ok' : pick(rand, ['high_tolerance', 'low_tolerance', 'not_mesurable'] as const);
      await db
        .update(orderCheckpoints)
        .set({
          checkResult,
          comment: checkResult === 'ok' ? '' : 'Contrôlé deux fois, valeur stable.',
          answeredAt: new Date(order.updatedAt),
          version: 1,
          ...by,
        })
        .where(eq(orderCheckpoints.id, point.id));
    }
    if (order.status === 'CLOSED') {
      await db.insert(orderEvents).values({
        orderId: order.id,
        kind: 'closed',
        at: new Date(order.updatedAt),
        byUserId: mechanic?.id ?? null,
        byName: mechanic?.name ?? '',
        comment: pick(rand, ['', 'Essai routier de 20 km concluant.', 'Client prévenu, véhicule prêt.']),
      });
    }
  }
  // Two closed orders show the photos taken on their first checkpoint (decision 088).
  for (const order of validated.filter((o) => o.status === 'CLOSED').slice(0, 2)) {
    const [point] = await db
      .select({ id: orderCheckpoints.id })
      .from(orderCheckpoints)
      .where(eq(orderCheckpoints.orderId, order.id))
      .orderBy(orderCheckpoints.position)
      .limit(1);
    if (point) await seedPhotos(db, order, point.id, deps);
  }
}

/** Drawn photos of a checkpoint, made as an upload makes them (upright, 2048 px at most, no metadata, a thumbnail). */
async function seedPhotos(db: Db, order: SeededOrder, checkpointId: string, deps: { store: FileStore; files: DemoFile[] }) {
  const [mechanic] = await db.select({ id: users.id }).from(users).where(eq(users.email, 'mecanicien@demo.local'));
  const sharp = await loadSharp();
  const drawn = [
    ['embrayage-c1.jpg', '#7c2d12', 'Disques C1 : garnitures usées'],
    ['huile-vidange.jpg', '#3f2a14', 'Huile de vidange noire, odeur de brûlé'],
  ] as const;
  for (const [i, [name, colour, caption]] of drawn.entries()) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><rect width="1200" height="900" fill="${colour}"/><circle cx="600" cy="470" r="300" fill="#292524" stroke="#a8a29e" stroke-width="36"/><circle cx="600" cy="470" r="110" fill="#78716c"/><text x="60" y="110" font-size="50" fill="#fafaf9" font-family="sans-serif">${caption}</text></svg>`;
    const made = await makePhoto(name, await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer(), Number.POSITIVE_INFINITY);
    const ids = [made.photo, made.thumbnail].map((bytes, k) => {
      const file: DemoFile = { ...deps.store.stage(bytes, k === 0 ? name : `miniature-${name}`), mimeType: 'image/jpeg' };
      deps.files.push(file);
      return file;
    });
    await db.insert(files).values(ids.map(({ tmp: _tmp, ...f }) => ({ ...f, bucketId: PHOTO_BUCKET, uploadedByUserId: mechanic?.id ?? null })));
    await db.insert(orderFiles).values({
      orderId: order.id,
      kind: PHOTO_KIND,
      checkpointId,
      fileId: ids[0]!.id,
      thumbnailId: ids[1]!.id,
      createdAt: new Date(new Date(order.updatedAt).getTime() - 60_000 + i),
    });
  }
}

/**
 * A curve recorded on every other order that took measures: the reference band's middle as the
 * gearbox gave it, leaving the band after two thirds of the run on the orders where a measure was
 * out of range, so the chart shows where.
 */
async function seedCurves(db: Db, orders: SeededOrder[], deps: { store: FileStore; files: DemoFile[] }) {
  const references = await db
    .select({ id: gearboxDocuments.id, modelId: gearboxDocuments.modelId, fileId: gearboxDocuments.fileId, title: gearboxDocuments.title })
    .from(gearboxDocuments)
    .where(and(eq(gearboxDocuments.category, 'reference-curve'), inArray(gearboxDocuments.modelId, [...new Set(orders.map((o) => o.modelId))])));
  const [uploader] = await db.select({ id: users.id }).from(users).where(eq(users.email, 'diagnostic@demo.local'));
  if (!uploader) return;
  for (const [i, order] of orders.entries()) {
    if (i % 2 === 1) continue;
    const reference = references.find((r) => r.modelId === order.modelId);
    // The reference's bytes are not in the store yet (they move after the commit): read the pending file.
    const pending = reference && deps.files.find((f) => f.id === reference.fileId);
    const parsed = pending ? parseCurve(readFileSync(pending.tmp, 'utf8')) : null;
    const band = parsed?.band;
    if (!reference || !band) continue;
    const [nok] = await db
      .select({ n: count() })
      .from(orderMeasures)
      .where(and(eq(orderMeasures.orderId, order.id), eq(orderMeasures.checkResult, 'nok')));
    const drifts = nok!.n > 0;
    const fr = (n: number) => (Math.round(n * 100) / 100).toString().replace('.', ',');
    const lines = [
      `${parsed.xLabel};mesure`,
      ...band.points.map(([x, low, high], k) => `${fr(x)};${fr((low + high) / 2 - (drifts && k > (band.points.length * 2) / 3 ? (high - low) * 1.2 : 0))}`),
    ];
    const bytes = Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
    const name = `releve-${order.number.toLowerCase()}.csv`;
    const staged = deps.store.stage(bytes, name);
    const file: DemoFile = { ...staged, mimeType: await checkType(CURVE_BUCKET, name, staged.tmp) };
    deps.files.push(file);
    await db
      .insert(files)
      .values({ id: file.id, name, size: file.size, etag: file.etag, mimeType: file.mimeType, bucketId: CURVE_BUCKET, uploadedByUserId: uploader.id });
    const [curve] = await db
      .insert(orderCurves)
      .values({
        orderId: order.id,
        description: `Relevé au diagnostic : ${reference.title}`,
        result: drifts ? 'Sort de la bande en fin de relevé' : 'Dans la bande',
        referenceDocumentId: reference.id,
      })
      .returning({ id: orderCurves.id });
    await db.insert(orderFiles).values({ orderId: order.id, kind: 'curve', curveId: curve!.id, fileId: file.id });
  }
}
