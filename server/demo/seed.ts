// First run (an admin account) and the demo workshop. Later domains add their demo data here.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Role } from '#lib/roles.ts';
import { hashPassword, passwordPolicyError } from '#server/auth/passwords.ts';
import { ConfigError } from '#server/config.ts';
import type { Db } from '#server/db/client.ts';
import { checkType, type FileStore } from '#server/storage/store.ts';
import { demoDossiers, type DemoDossier } from './dossiers.ts';
import { seedDiagnostics, type DemoFile } from './diagnostics.ts';
import { demoRepairOrders, demoOrderReferents } from './orders.ts';
import { demoStockItems, demoStockPeople } from './stock.ts';
import { referenceOf } from '#server/stock/service.ts';
import { keepAllClosedNames } from '#server/repair-orders/closed-names.ts';
import {
  baseItems,
  doctorCodes,
  errorCodes,
  files,
  gearboxCodes,
  gearboxDocuments,
  gearboxMeasures,
  gearboxModels,
  interventionHistory,
  outageProcedures,
  outages,
  procedureCheckpoints,
  repairOrders,
  repairProcedures,
  stockItems,
  stockMovements,
  users,
} from '#server/db/schema/index.ts';
import type { BaseKind } from '#lib/base/base.ts';

export const DEMO_PASSWORD = 'Demo-Atelier-2026!';

export const demoAccounts: { email: string; displayName: string; role: Role }[] = [
  { email: 'admin@demo.local', displayName: 'Claire Dubois', role: 'app_admin' },
  { email: 'diagnostic@demo.local', displayName: 'Julien Moreau', role: 'diagnostician' },
  { email: 'mecanicien@demo.local', displayName: 'Karim Benali', role: 'mechanic' },
  { email: 'commercial@demo.local', displayName: 'Sophie Laurent', role: 'commercial' },
];

/** The rest of the workshop's staff, so the users screen has more than one page. */
const staff: [string, Role][] = [
  ['Nathalie Garnier', 'diagnostician'],
  ['Thomas Lefèvre', 'mechanic'],
  ['Élodie Roux', 'commercial'],
  ['Mathieu Fournier', 'mechanic'],
  ['Camille Girard', 'diagnostician'],
  ['Nicolas Bonnet', 'mechanic'],
  ['Aurélie Dupont', 'commercial'],
  ['Julie Lambert', 'mechanic'],
  ['Sébastien Fontaine', 'diagnostician'],
  ['Laura Rousseau', 'commercial'],
  ['Pierre Vincent', 'mechanic'],
  ['Manon Muller', 'mechanic'],
  ['Antoine Lefebvre', 'diagnostician'],
  ['Chloé Faure', 'commercial'],
  ['Romain André', 'mechanic'],
  ['Pauline Mercier', 'mechanic'],
  ['Maxime Blanc', 'diagnostician'],
  ['Emma Guérin', 'commercial'],
  ['Hugo Boyer', 'mechanic'],
  ['Léa Garcia', 'mechanic'],
  ['Alexandre Chevalier', 'diagnostician'],
  ['Inès François', 'commercial'],
  ['Lucas Legrand', 'mechanic'],
  ['Sarah Gauthier', 'mechanic'],
  ['Olivier Perrin', 'app_admin'],
];

const emailOf = (name: string) =>
  `${name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '.')}@demo.local`;

/** The base every diagnostic picks from, as a French workshop words it. */
const baseDemo: Record<BaseKind, string[]> = {
  condition: [
    'Moteur froid',
    'Moteur chaud (plus de 80 °C)',
    'Au démarrage',
    'En accélération franche',
    'En décélération',
    'À vitesse stabilisée',
    'En côte',
    'Après un long trajet',
    'En marche arrière',
    'Au passage de N en D',
  ],
  symptom: [
    'Patinage',
    'À-coup au passage de rapport',
    'Passage de rapport retardé',
    'Mode dégradé (secours)',
    'Voyant de boîte allumé',
    'Sifflement',
    'Vibrations au démarrage',
    'Pas de marche arrière',
    'Perte de puissance',
    "Fuite d'huile",
  ],
  component: [
    'Mécatronique',
    'Convertisseur de couple',
    'Bloc hydraulique',
    'Électrovanne de pression',
    'Capteur de régime de sortie',
    'Double embrayage (K1/K2)',
    'Pompe à huile',
    'Calculateur de boîte (TCU)',
    'Faisceau électrique',
    'Courroie de variateur',
    'Carter-filtre',
    'Douille de connecteur (passe-cloison)',
    'Embrayages multidisques',
    'Embrayage',
    'Volant bimasse',
    'Roulement de poulie',
    'Capteur de pression',
    'Échangeur thermique',
    'Joint à lèvre de sortie',
    "Moteur d'embrayage",
    'Robot de sélection des rapports',
  ],
  outage_type: ['Usure', 'Défaut électrique', 'Fuite', 'Grippage', 'Casse mécanique', 'Huile polluée', 'Défaut logiciel', 'Surchauffe'],
};

/** Gearbox models as a French workshop records them; their dossiers are in demo-dossiers.ts. */
const demoGearboxes = [
  {
    model: 'ZF 8HP45',
    bvaId: '8HP45',
    type: 'automatic',
    constructorName: 'ZF',
    doctorCode: 'GA8HP45Z',
    businessName: '8HP',
    startYear: 2009,
    endYear: null,
    gears: 8,
    arrangement: 'Longitudinale',
    propulsion: 'Propulsion',
    optionalPropulsion: 'Intégrale (xDrive)',
  },
  {
    model: 'ZF 6HP26',
    bvaId: '6HP26',
    type: 'automatic',
    constructorName: 'ZF',
    doctorCode: 'GA6HP26Z',
    businessName: '6HP',
    startYear: 2001,
    endYear: 2011,
    gears: 6,
    arrangement: 'Longitudinale',
    propulsion: 'Propulsion',
    optionalPropulsion: 'Intégrale',
  },
  {
    model: 'Aisin TF-80SC',
    bvaId: 'TF-80SC',
    type: 'automatic',
    constructorName: 'Aisin Warner',
    doctorCode: 'AM6',
    businessName: 'AM6 / TF-80SC',
    startYear: 2005,
    endYear: null,
    gears: 6,
    arrangement: 'Transversale',
    propulsion: 'Traction',
    optionalPropulsion: 'Intégrale',
  },
  {
    model: 'Aisin AW55-51SN',
    bvaId: 'AW55-51SN',
    type: 'automatic',
    constructorName: 'Aisin Warner',
    doctorCode: 'AF33',
    businessName: 'AW55',
    startYear: 2000,
    endYear: 2010,
    gears: 5,
    arrangement: 'Transversale',
    propulsion: 'Traction',
    optionalPropulsion: '',
  },
  {
    model: 'VW DQ200 0AM',
    bvaId: '0AM',
    type: 'double_clutch',
    constructorName: 'Volkswagen',
    doctorCode: 'DQ200',
    businessName: 'DSG7 à embrayages secs',
    startYear: 2008,
    endYear: null,
    gears: 7,
    arrangement: 'Transversale',
    propulsion: 'Traction',
    optionalPropulsion: '',
  },
  {
    model: 'VW DQ250 02E',
    bvaId: '02E',
    type: 'double_clutch',
    constructorName: 'Volkswagen',
    doctorCode: 'DQ250',
    businessName: "DSG6 à bain d'huile",
    startYear: 2003,
    endYear: null,
    gears: 6,
    arrangement: 'Transversale',
    propulsion: 'Traction',
    optionalPropulsion: 'Intégrale (4Motion)',
  },
  {
    model: 'Jatco JF011E',
    bvaId: 'JF011E',
    type: 'variator',
    constructorName: 'Jatco',
    doctorCode: 'RE0F10A',
    businessName: 'CVT Xtronic',
    startYear: 2005,
    endYear: null,
    gears: null,
    arrangement: 'Transversale',
    propulsion: 'Traction',
    optionalPropulsion: 'Intégrale',
  },
  {
    model: 'Getrag 6DCT450',
    bvaId: 'MPS6',
    type: 'double_clutch',
    constructorName: 'Getrag',
    doctorCode: '6DCT450',
    businessName: 'Powershift',
    startYear: 2008,
    endYear: null,
    gears: 6,
    arrangement: 'Transversale',
    propulsion: 'Traction',
    optionalPropulsion: '',
  },
  {
    model: 'PSA ETG6',
    bvaId: 'ETG6',
    type: 'robotic',
    constructorName: 'PSA',
    doctorCode: 'MCP',
    businessName: 'BMP6 / ETG6',
    startYear: 2009,
    endYear: 2018,
    gears: 6,
    arrangement: 'Transversale',
    propulsion: 'Traction',
    optionalPropulsion: '',
  },
] satisfies (typeof gearboxModels.$inferInsert)[];

/** Fault codes as the workshop's readers show them, per model. */
const p07: Record<string, string> = {
  P0700: "Système de commande de boîte : défaut mémorisé (demande d'allumage du voyant)",
  P0711: "Capteur de température d'huile de boîte : plage ou performances",
  P0715: 'Capteur de régime de turbine : circuit',
  P0720: 'Capteur de régime de sortie : circuit',
  P0730: 'Rapport engagé incorrect',
  P0741: 'Embrayage de pontage du convertisseur : performances ou bloqué ouvert',
  P0750: 'Électrovanne de passage A : circuit',
  P0780: 'Défaut de passage de rapport',
  P0841: "Capteur de pression d'huile : plage ou performances",
  P0868: "Pression d'huile de boîte trop basse",
  P17BF: 'Embrayage K1 : patinage (VAG)',
  P189C: 'Bloc mécatronique : plage de pression hors tolérance (VAG)',
};
export const demoErrorCodes: Record<string, string[]> = {
  'ZF 8HP45': ['P0700', 'P0715', 'P0730', 'P0741'],
  'ZF 6HP26': ['P0700', 'P0730', 'P0741', 'P0750'],
  'Aisin TF-80SC': ['P0711', 'P0730', 'P0741', 'P0780'],
  'Aisin AW55-51SN': ['P0715', 'P0730', 'P0750'],
  'VW DQ200 0AM': ['P17BF', 'P189C', 'P0841', 'P0868'],
  'VW DQ250 02E': ['P0841', 'P0868', 'P189C'],
  'Jatco JF011E': ['P0711', 'P0720', 'P0841', 'P0868'],
  'Getrag 6DCT450': ['P0700', 'P0780', 'P0868'],
  'PSA ETG6': ['P0700', 'P0780'],
};

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return row?.n ?? 0;
}

/** A password that satisfies the policy of SPEC §5. */
function generatePassword(): string {
  return `${randomBytes(18).toString('base64url')}-Aa1!`;
}

/**
 * With no user at all: the admin of ADMIN_EMAIL / ADMIN_PASSWORD, or with a generated
 * password printed once. Skipped when the demo workshop brings its own admin.
 */
export async function createFirstAdmin(
  db: Db,
  options: { email?: string; password?: string; demoLoaded: boolean },
): Promise<{ email: string; generatedPassword?: string } | null> {
  if (!options.email && options.demoLoaded) return null;
  const email = (options.email ?? 'admin@atelier.local').toLowerCase();
  let password = options.password;
  if (password) {
    const problem = passwordPolicyError(password);
    if (problem) throw new ConfigError(`Invalid ADMIN_PASSWORD: ${problem}`);
  }
  const generatedPassword = password ? undefined : generatePassword();
  password ??= generatedPassword!;
  await db
    .insert(users)
    .values({ email, displayName: 'Administrateur', defaultRole: 'app_admin', emailVerified: true, passwordHash: await hashPassword(password) })
    .onConflictDoNothing();
  return { email, generatedPassword };
}

/** Serialises the demo load when several instances start on one PostgreSQL (DEMO_DATA=1). */
const DEMO_SEED_LOCK = 724_519_002;

/**
 * The demo workshop: accounts, the base, the gearbox models, their technical dossiers, the
 * gearbox stock and the repair orders, in one transaction. Each kind of dossier row, the stock and
 * the orders are skipped when their table already has some.
 */
export async function seedDemoWorkshop(db: Db, deps: { files: FileStore }): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const curves: CheckedFile[] = [];
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_SEED_LOCK})`);
      await tx
        .insert(users)
        .values(demoAccounts.map((a) => ({ email: a.email, displayName: a.displayName, defaultRole: a.role, emailVerified: true, passwordHash })))
        .onConflictDoNothing();
      await tx
        .insert(baseItems)
        .values(Object.entries(baseDemo).flatMap(([kind, names]) => names.map((name) => ({ kind, name }))))
        .onConflictDoNothing();
      await tx.insert(gearboxModels).values(demoGearboxes).onConflictDoNothing();
      const models = (await tx.select({ id: gearboxModels.id, model: gearboxModels.model }).from(gearboxModels)).filter((m) => demoDossiers[m.model]);
      const dossiers = models.map((m) => ({ modelId: m.id, ...demoDossiers[m.model]! }));
      await tx
        .insert(errorCodes)
        .values(models.flatMap((m) => (demoErrorCodes[m.model] ?? []).map((code) => ({ modelId: m.id, code, description: p07[code]! }))))
        .onConflictDoNothing();
      await seedCodes(tx, dossiers);
      await seedOutagesAndProcedures(tx, dossiers);
      await seedMeasuresAndCurves(tx, dossiers, deps.files, curves);
      // Colleagues: every other one has not chosen a password yet (status "e-mail non vérifié").
      await tx
        .insert(users)
        .values(
          staff.map(([name, role], i) => ({
            email: emailOf(name),
            displayName: name,
            defaultRole: role,
            emailVerified: i % 2 === 0,
            passwordHash: i % 2 === 0 ? passwordHash : null,
          })),
        )
        .onConflictDoNothing();
      // After the colleagues: some of them moved boxes.
      await seedStock(tx, models);
      // After the stock: the orders name the boxes it fitted.
      await seedOrders(tx, models, { store: deps.files, files: curves });
    });
    // As an upload does: the rows are in, the bytes move in place.
    for (const curve of curves) await deps.files.blobs.put(curve.id, curve.tmp);
  } finally {
    for (const curve of curves) rmSync(curve.tmp, { force: true });
  }
}

type SeededDossier = DemoDossier & { modelId: string };
type CheckedFile = DemoFile;

const isEmpty = async (
  db: Db,
  table:
    | typeof doctorCodes
    | typeof outages
    | typeof repairProcedures
    | typeof outageProcedures
    | typeof gearboxMeasures
    | typeof gearboxDocuments
    | typeof stockItems
    | typeof repairOrders,
) => (await db.select({ n: count() }).from(table))[0]!.n === 0;

/** Doctor codes and their gearbox codes; ids are made here so both go in one batch each. */
async function seedCodes(db: Db, dossiers: SeededDossier[]) {
  if (!(await isEmpty(db, doctorCodes))) return;
  const doctors = dossiers.flatMap((d) =>
    d.doctorCodes.map(({ gearboxCodes, ...doctor }) => ({ id: randomUUID(), modelId: d.modelId, ...doctor, gearboxCodes })),
  );
  if (doctors.length === 0) return;
  // Both tables are empty here (a gearbox code needs its doctor code): a duplicate is a mistake in the demo.
  await db.insert(doctorCodes).values(doctors.map(({ gearboxCodes: _codes, ...doctor }) => doctor));
  await db.insert(gearboxCodes).values(doctors.flatMap((doctor) => doctor.gearboxCodes.map((code) => ({ doctorCodeId: doctor.id, code }))));
}

/** Outages, procedures with their checkpoints, and which procedures each outage calls for, by priority. */
async function seedOutagesAndProcedures(db: Db, dossiers: SeededDossier[]) {
  const base = await db.select({ id: baseItems.id, kind: baseItems.kind, name: baseItems.name }).from(baseItems);
  const baseId = (kind: string, name: string) => base.find((b) => b.kind === kind && b.name === name)!.id;
  const outageRows = dossiers.flatMap((d) =>
    d.outages.map(([component, type, occurrenceRate, averageMileage, description, procedures]) => ({
      id: randomUUID(),
      modelId: d.modelId,
      componentId: baseId('component', component),
      outageTypeId: baseId('outage_type', type),
      occurrenceRate,
      averageMileage,
      description,
      procedures: procedures.map((name) => `${d.modelId}|${name}`),
    })),
  );
  const procedureRows = dossiers.flatMap((d) => d.procedures.map((p) => ({ id: randomUUID(), modelId: d.modelId, key: `${d.modelId}|${p.name}`, ...p })));
  const outagesAdded = (await isEmpty(db, outages)) && outageRows.length > 0;
  if (outagesAdded) await db.insert(outages).values(outageRows.map(({ procedures: _p, ...row }) => row));
  const proceduresAdded = (await isEmpty(db, repairProcedures)) && procedureRows.length > 0;
  if (proceduresAdded) {
    await db.insert(repairProcedures).values(procedureRows.map(({ id, modelId, name, description, steps }) => ({ id, modelId, name, description, steps })));
    await db
      .insert(procedureCheckpoints)
      .values(procedureRows.flatMap((p) => p.checkpoints.map(([name, description], i) => ({ procedureId: p.id, position: i + 1, name, description }))));
  }
  // Links only between rows made here: older outages and procedures are the workshop's own.
  if (outagesAdded && proceduresAdded && (await isEmpty(db, outageProcedures))) {
    const procedureId = new Map(procedureRows.map((p) => [p.key, p.id]));
    const links = outageRows.flatMap((o) => o.procedures.map((key, i) => ({ outageId: o.id, procedureId: procedureId.get(key)!, priority: i + 1 })));
    const unknown = links.find((l) => !l.procedureId);
    if (unknown) throw new Error('A demo outage names a procedure its model does not have');
    if (links.length) await db.insert(outageProcedures).values(links);
  }
}

/**
 * Measures with their bounds, and each model's reference curve: a CSV checked against the
 * documents bucket as an upload is, its metadata row, and its bytes in a temporary file that
 * the caller moves in place once the transaction is committed.
 */
async function seedMeasuresAndCurves(db: Db, dossiers: SeededDossier[], store: FileStore, curves: CheckedFile[]) {
  if (await isEmpty(db, gearboxMeasures)) {
    const rows = dossiers.flatMap((d) => d.measures.map((m) => ({ modelId: d.modelId, ...m })));
    if (rows.length) await db.insert(gearboxMeasures).values(rows);
  }
  if (!(await isEmpty(db, gearboxDocuments))) return;
  const [uploader] = await db.select({ id: users.id }).from(users).where(eq(users.email, 'diagnostic@demo.local')).limit(1);
  if (!uploader || dossiers.length === 0) return;
  for (const d of dossiers) {
    const bytes = Buffer.from(d.curve.csv, 'utf8');
    const tmp = path.join(store.tmpDir, randomUUID());
    writeFileSync(tmp, bytes);
    const curve = {
      tmp,
      id: randomUUID(),
      name: d.curve.fileName,
      size: bytes.length,
      etag: `"${createHash('md5').update(bytes).digest('hex')}"`,
      mimeType: '',
    };
    curves.push(curve);
    curve.mimeType = await checkType('documents', d.curve.fileName, tmp);
  }
  await db.insert(files).values(curves.map(({ tmp: _tmp, ...c }) => ({ ...c, bucketId: 'documents', uploadedByUserId: uploader.id })));
  await db.insert(gearboxDocuments).values(
    dossiers.map((d, i) => ({
      modelId: d.modelId,
      category: 'reference-curve' as const,
      fileId: curves[i]!.id,
      title: d.curve.title,
      comment: d.curve.comment,
    })),
  );
}

/**
 * The gearbox stock and the movements of each box, a batch each. Codes and people are looked up
 * by name, as the workshop may have changed them: a code gone leaves the box without it, a person
 * gone leaves the name the demo gives.
 */
async function seedStock(db: Db, models: { id: string; model: string }[]) {
  if (!(await isEmpty(db, stockItems))) return;
  const modelId = new Map(models.map((m) => [m.model, m.id]));
  const items = demoStockItems().filter((item) => modelId.has(item.model));
  if (items.length === 0) return;
  const codes = await db
    .select({ modelId: doctorCodes.modelId, doctorId: doctorCodes.id, doctor: doctorCodes.code, gearboxId: gearboxCodes.id, gearbox: gearboxCodes.code })
    .from(doctorCodes)
    .leftJoin(gearboxCodes, eq(gearboxCodes.doctorCodeId, doctorCodes.id))
    .where(
      inArray(
        doctorCodes.modelId,
        models.map((m) => m.id),
      ),
    );
  const people = await db
    .select({ id: users.id, email: users.email, displayName: users.displayName })
    .from(users)
    .where(
      inArray(
        users.email,
        demoStockPeople.map((p) => p.email),
      ),
    );
  const person = new Map<string, { id: string | null; displayName: string }>(demoStockPeople.map((p) => [p.email, { id: null, displayName: p.name }]));
  for (const p of people) if (p.email) person.set(p.email, p);

  const rows = items.map((item) => {
    const model = modelId.get(item.model)!;
    const doctor = item.doctorCode ? codes.find((c) => c.modelId === model && c.doctor === item.doctorCode) : undefined;
    const gearbox = doctor && item.gearboxCode ? codes.find((c) => c.doctorId === doctor.doctorId && c.gearbox === item.gearboxCode) : undefined;
    const last = item.movements[item.movements.length - 1]!;
    return {
      id: randomUUID(),
      modelId: model,
      doctorCodeId: doctor?.doctorId ?? null,
      gearboxCodeId: gearbox?.gearboxId ?? null,
      condition: item.condition,
      rack: item.rack,
      level: item.level,
      addedOn: item.addedOn,
      outOn: item.outOn,
      outReason: item.outReason,
      comment: item.comment,
      version: item.version,
      createdAt: item.movements[0]!.at,
      updatedAt: last.at,
    };
  });
  // In the order the boxes came in: their numbers (S-000001…) follow it.
  await db.insert(stockItems).values(rows);
  await db.insert(stockMovements).values(
    items.flatMap((item, i) =>
      item.movements.map(({ by, ...movement }) => {
        const who = person.get(by)!;
        return { itemId: rows[i]!.id, ...movement, byUserId: who.id, byName: who.displayName };
      }),
    ),
  );
}

/**
 * The repair orders and their intervention history, a batch each. Referents are looked up by
 * e-mail among the diagnosticians and admins, as the workshop may have changed them: one gone
 * leaves the order without a referent. A box of the stock fitted on an order is named by its
 * reference when the stock still has it.
 */
async function seedOrders(db: Db, models: { id: string; model: string }[], deps: { store: FileStore; files: CheckedFile[] }) {
  if (!(await isEmpty(db, repairOrders))) return;
  const modelId = new Map(models.map((m) => [m.model, m.id]));
  const orders = demoRepairOrders().filter((order) => modelId.has(order.model));
  if (orders.length === 0) return;
  const people = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(
      and(
        inArray(
          users.email,
          demoOrderReferents.map((p) => p.email),
        ),
        inArray(users.defaultRole, ['app_admin', 'diagnostician']),
      ),
    );
  const referent = new Map(people.map((p) => [p.email, p.id]));
  const fitted = orders.flatMap((o) => (o.fittedBox ? [o.fittedBox] : []));
  const boxes = fitted.length
    ? await db
        .select({ number: stockItems.number, modelId: stockItems.modelId, reason: stockItems.outReason })
        .from(stockItems)
        .where(inArray(stockItems.outReason, fitted))
    : [];

  const rows = orders.map(({ model, referent: email, history: _history, fittedBox, codes: _codes, symptom: _symptom, ...order }) => {
    const box = fittedBox ? boxes.find((b) => b.reason === fittedBox && b.modelId === modelId.get(model)) : undefined;
    return {
      ...order,
      id: randomUUID(),
      modelId: modelId.get(model)!,
      referentId: referent.get(email) ?? null,
      interventions: box ? order.interventions.map((line) => (line.endsWith(' du stock') ? `${line} ${referenceOf(box.number)}` : line)) : order.interventions,
    };
  });
  // Oldest first, as the workshop numbered them.
  await db.insert(repairOrders).values(rows);
  const history = orders.flatMap((order, i) => order.history.map((entry, j) => ({ orderId: rows[i]!.id, position: j + 1, ...entry })));
  if (history.length) await db.insert(interventionHistory).values(history);
  await seedDiagnostics(
    db,
    orders.map((order, i) => ({ ...order, id: rows[i]!.id, modelId: rows[i]!.modelId })),
    p07,
    deps,
  );
  // The demo's closed orders are records, as if closed through the procedure screen (decision 043).
  await keepAllClosedNames(db);
}
