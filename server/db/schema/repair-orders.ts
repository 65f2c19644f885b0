// Repair orders (SPEC §3): the order, its vehicle and its intervention history. The diagnostic
// recorded on an order hangs off it in its own tables.
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './auth.ts';
import { baseItems } from './base.ts';
import { errorCodes, gearboxDocuments, gearboxMeasures, gearboxModels, outages, procedureCheckpoints, repairProcedures } from './gearboxes.ts';
import { files } from './storage.ts';
import type { InterventionCategory, OrderStatus } from '#lib/repair-orders/repair-orders.ts';
import type { CheckResult } from '#lib/repair-orders/check-results.ts';
import type { Temporality } from '#lib/repair-orders/conditions.ts';

/** Names as a closed order showed them, by the id of what they name. */
export type ClosedNames = {
  /** Base items: symptoms, conditions, components, outage types. */
  base: Record<string, string>;
  errorCodes: Record<string, { code: string; description: string }>;
  outages: Record<string, { description: string }>;
  /** The gearbox model's name and constructor (absent from snapshots taken before decision 045). */
  model?: { model: string; constructorName: string };
};

export const repairOrders = pgTable(
  'repair_orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The workshop's own number, as written on the paperwork ("OR-2026-0412"). */
    number: text('number').notNull(),
    openedOn: date('opened_on').notNull(),
    closedOn: date('closed_on'),
    status: text('status').notNull().default('IN_PROGRESS').$type<OrderStatus>(),
    interventionCategory: text('intervention_category').notNull().$type<InterventionCategory>(),
    modelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'restrict' }),
    /** As read off the gearbox; not necessarily a code of the dossier. */
    gearboxCode: text('gearbox_code').notNull().default(''),
    referentId: uuid('referent_id').references(() => users.id, { onDelete: 'set null' }),
    vehicleBrand: text('vehicle_brand').notNull().default(''),
    vehicleModel: text('vehicle_model').notNull().default(''),
    energy: text('energy'),
    engineSize: text('engine_size'),
    mileage: text('mileage'),
    constructionYear: integer('construction_year'),
    comment: text('comment').notNull().default(''),
    interventions: text('interventions').array().notNull().default(sql`'{}'::text[]`),
    outageParts: text('outage_parts').array().notNull().default(sql`'{}'::text[]`),
    /** SPEC §3: does the gearbox allow fault code reading; null until the diagnostic says. */
    canReadFaultCodes: boolean('can_read_fault_codes'),
    /** SPEC §3: were measures taken; null until the diagnostic says. */
    measuresDone: boolean('measures_done'),
    /** How far the diagnostic steps went: 0 nothing chosen, 1 outages, 2 procedures, 3 visualised. */
    diagnosticStep: integer('diagnostic_step').notNull().default(0),
    /** Set when the diagnostic is validated: the procedures are then the mechanics' to follow. */
    validatedAt: timestamp('validated_at', { withTimezone: true }),
    validatedById: uuid('validated_by_id').references(() => users.id, { onDelete: 'set null' }),
    /**
     * What the order showed when it was closed, by id (decision 043): the names of the base's
     * items and the dossier's codes and outages, read in place of the live ones while it stays
     * closed, so that a later rename does not rewrite a record. Null while the order is open.
     */
    closedNames: jsonb('closed_names').$type<ClosedNames>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('repair_orders_number_key').on(sql`upper(${t.number})`),
    // Search by number or gearbox reference anywhere in the text, fast on 100,000 orders.
    // fastupdate off: a pending list is read in full by every search until a vacuum (or 4 MB of
    // it) merges it, and PGlite has no autovacuum (orders are written a few a day; searches many).
    index('repair_orders_number_trgm').using('gin', sql`upper(${t.number}) gin_trgm_ops`).with({ fastupdate: false }),
    index('repair_orders_gearbox_code_trgm').using('gin', sql`upper(${t.gearboxCode}) gin_trgm_ops`).with({ fastupdate: false }),
    index('repair_orders_opened_idx').on(t.openedOn),
    index('repair_orders_model_idx').on(t.modelId, t.openedOn),
    // The overview (decision 089): the open orders and those closed in a period, without a scan of the history.
    index('repair_orders_open_idx').on(t.openedOn).where(sql`${t.status} <> 'CLOSED'`),
    index('repair_orders_closed_idx').on(t.closedOn).where(sql`${t.closedOn} is not null`),
  ],
);

/**
 * How many orders each gearbox model has, and how many of them are closed, kept by the triggers
 * of migrations 0028 and 0030 in the same transaction as the orders: the list's exact total and
 * the denominator of the dossier's rates without counting 100,000 rows (decision 075).
 */
export const repairOrderCounts = pgTable('repair_order_counts', {
  modelId: uuid('gearbox_model_id')
    .primaryKey()
    .references(() => gearboxModels.id, { onDelete: 'cascade' }),
  n: integer('n').notNull(),
  closed: integer('closed').notNull().default(0),
});

/** Earlier interventions on the vehicle's gearbox: at what mileage, what was done. */
export const interventionHistory = pgTable(
  'intervention_history',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    mileage: integer('mileage').notNull(),
    intervention: text('intervention').notNull(),
  },
  (t) => [index('intervention_history_order_idx').on(t.orderId, t.position)],
);

/**
 * The appearance conditions shared by a fault code read and a symptom (SPEC §3). The operating
 * phase and the other condition are conditions of the base (decision 043): a condition in use
 * cannot be deleted from it, and a rename shows everywhere but on closed orders.
 */
const conditionColumns = () => ({
  temporality: text('temporality').$type<Temporality>(),
  acceleratorLoad: text('accelerator_load').notNull().default(''),
  bvaMode: text('bva_mode').notNull().default(''),
  gear: text('gear').notNull().default(''),
  /** The operating phase: a condition of the base. */
  actionId: uuid('action_id').references(() => baseItems.id, { onDelete: 'restrict' }),
  /** Another condition of the base it appeared in. */
  otherConditionId: uuid('other_condition_id').references(() => baseItems.id, { onDelete: 'restrict' }),
  comment: text('comment').notNull().default(''),
});

/**
 * A fault code read on the order's gearbox (SPEC §3 appearance condition), with the conditions
 * it appeared in. The code is one of the model's error codes (added to the dossier when new).
 */
export const orderFaultCodes = pgTable(
  'order_fault_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    errorCodeId: uuid('error_code_id')
      .notNull()
      .references(() => errorCodes.id, { onDelete: 'restrict' }),
    ...conditionColumns(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('order_fault_codes_order_idx').on(t.orderId),
    uniqueIndex('order_fault_codes_order_code_key').on(t.orderId, t.errorCodeId),
    index('order_fault_codes_code_idx').on(t.errorCodeId),
    index('order_fault_codes_action_idx').on(t.actionId),
    index('order_fault_codes_other_condition_idx').on(t.otherConditionId),
  ],
);

/** A symptom of the base seen on the order's gearbox, with its conditions and the code it came with. */
export const orderSymptoms = pgTable(
  'order_symptoms',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    symptomId: uuid('symptom_id')
      .notNull()
      .references(() => baseItems.id, { onDelete: 'restrict' }),
    errorCodeId: uuid('error_code_id').references(() => errorCodes.id, { onDelete: 'restrict' }),
    ...conditionColumns(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('order_symptoms_order_symptom_key').on(t.orderId, t.symptomId),
    index('order_symptoms_symptom_idx').on(t.symptomId),
    index('order_symptoms_code_idx').on(t.errorCodeId),
    index('order_symptoms_action_idx').on(t.actionId),
    index('order_symptoms_other_condition_idx').on(t.otherConditionId),
  ],
);

/** A measure taken on the order: copied from the dossier's measure (or typed), with its value. */
export const orderMeasures = pgTable(
  'order_measures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    gearboxMeasureId: uuid('gearbox_measure_id').references(() => gearboxMeasures.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    unit: text('unit').notNull().default(''),
    minimum: doublePrecision('minimum'),
    maximum: doublePrecision('maximum'),
    measuredValue: doublePrecision('measured_value'),
    /** ok, nok, not_mesurable, high_tolerance, low_tolerance. */
    checkResult: text('check_result').$type<CheckResult>(),
    /** Chosen by someone, not what the bounds proposed: kept when the value changes (walk15 F5). */
    checkResultChosen: boolean('check_result_chosen').notNull().default(false),
    comment: text('comment').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('order_measures_order_idx').on(t.orderId)],
);

/** A curve or log recorded on the order, read against one of the model's reference curves. */
export const orderCurves = pgTable(
  'order_curves',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    description: text('description').notNull(),
    result: text('result').notNull().default(''),
    comment: text('comment').notNull().default(''),
    referenceDocumentId: uuid('reference_document_id').references(() => gearboxDocuments.id, { onDelete: 'set null' }),
    measureProcedureDocumentId: uuid('measure_procedure_document_id').references(() => gearboxDocuments.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('order_curves_order_idx').on(t.orderId)],
);

/**
 * Every file of an order's diagnostic, one table: a measure's files, a curve's files (its CSV is
 * drawn), and imported diagnostic files (kind import). The bytes stay in the storage API.
 */
export const orderFiles = pgTable(
  'order_files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    measureId: uuid('measure_id').references(() => orderMeasures.id, { onDelete: 'cascade' }),
    curveId: uuid('curve_id').references(() => orderCurves.id, { onDelete: 'cascade' }),
    /** A checkpoint's photo (kind 'photo', decision 088); a measure's photo has its measureId. */
    checkpointId: uuid('checkpoint_id').references((): AnyPgColumn => orderCheckpoints.id, { onDelete: 'cascade' }),
    fileId: uuid('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    /** A photo's thumbnail, a stored file of its own (decision 088); dropped with the photo. */
    thumbnailId: uuid('thumbnail_id').references(() => files.id, { onDelete: 'set null' }),
    comment: text('comment').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('order_files_order_idx').on(t.orderId, t.kind),
    index('order_files_measure_idx').on(t.measureId),
    index('order_files_curve_idx').on(t.curveId),
    index('order_files_checkpoint_idx').on(t.checkpointId),
    uniqueIndex('order_files_thumbnail_key').on(t.thumbnailId),
    uniqueIndex('order_files_file_key').on(t.fileId),
  ],
);

/** The outages the diagnostic retained, in the order chosen; on a closed order, the confirmed ones. */
export const orderOutages = pgTable(
  'order_outages',
  {
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    outageId: uuid('outage_id')
      .notNull()
      .references(() => outages.id, { onDelete: 'restrict' }),
    position: integer('position').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.outageId] }), index('order_outages_outage_idx').on(t.outageId)],
);

/** The repair procedures to apply on the order, in order; the mechanics follow them once validated. */
export const orderProcedures = pgTable(
  'order_procedures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    procedureId: uuid('procedure_id')
      .notNull()
      .references(() => repairProcedures.id, { onDelete: 'restrict' }),
    /** The outage it was chosen for; null for a procedure added by hand. */
    outageId: uuid('outage_id').references(() => outages.id, { onDelete: 'set null' }),
    position: integer('position').notNull(),
    /**
     * The procedure as validated: the mechanics follow, and the report prints, what was validated
     * even if the dossier's procedure changes afterwards. Null until validation.
     */
    name: text('name'),
    description: text('description'),
    steps: text('steps').array(),
  },
  (t) => [uniqueIndex('order_procedures_order_procedure_key').on(t.orderId, t.procedureId), index('order_procedures_procedure_idx').on(t.procedureId)],
);

/**
 * A checkpoint of a validated procedure, as the mechanic answers it on the order (SPEC §2.7):
 * result, measured value, comment; who answered and when. Copied from the dossier at validation.
 */
export const orderCheckpoints = pgTable(
  'order_checkpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    orderProcedureId: uuid('order_procedure_id')
      .notNull()
      .references(() => orderProcedures.id, { onDelete: 'cascade' }),
    /** The dossier's checkpoint it was copied from; kept if the dossier drops it. */
    checkpointId: uuid('checkpoint_id').references(() => procedureCheckpoints.id, { onDelete: 'set null' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** ok, nok, not_mesurable, high_tolerance, low_tolerance; null until answered. */
    checkResult: text('check_result'),
    measuredValue: doublePrecision('measured_value'),
    comment: text('comment').notNull().default(''),
    answeredById: uuid('answered_by_id').references(() => users.id, { onDelete: 'set null' }),
    answeredByName: text('answered_by_name'),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    /** Bumped by every answer: a stale answer (another terminal's) is refused, not lost silently. */
    version: integer('version').notNull().default(0),
  },
  (t) => [index('order_checkpoints_order_idx').on(t.orderId, t.position), index('order_checkpoints_procedure_idx').on(t.orderProcedureId)],
);

/** Closings and reopenings of an order (SPEC §4): who, when, with what comment. */
export const orderEvents = pgTable(
  'order_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    byUserId: uuid('by_user_id').references(() => users.id, { onDelete: 'set null' }),
    byName: text('by_name').notNull().default(''),
    comment: text('comment').notNull().default(''),
  },
  (t) => [
    index('order_events_order_idx').on(t.orderId, t.at),
    // The overview (decision 089): a period's reopenings, among a closing per closed order.
    index('order_events_reopened_idx').on(t.at).where(sql`${t.kind} = 'reopened'`),
  ],
);
