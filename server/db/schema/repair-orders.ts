// Repair orders (SPEC §3): the order, its vehicle and its intervention history. The diagnostic
// recorded on an order hangs off it in its own tables.
import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './auth.ts';
import { errorCodes, gearboxModels } from './gearboxes.ts';

export const repairOrders = pgTable(
  'repair_orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The workshop's own number, as written on the paperwork ("OR-2026-0412"). */
    number: text('number').notNull(),
    openedOn: date('opened_on').notNull(),
    closedOn: date('closed_on'),
    status: text('status').notNull().default('IN_PROGRESS'),
    interventionCategory: text('intervention_category').notNull(),
    gearboxModelId: uuid('gearbox_model_id')
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
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('repair_orders_number_key').on(sql`upper(${t.number})`),
    // Search by number or gearbox reference anywhere in the text, fast on 100,000 orders.
    index('repair_orders_number_trgm').using('gin', sql`upper(${t.number}) gin_trgm_ops`),
    index('repair_orders_gearbox_code_trgm').using('gin', sql`upper(${t.gearboxCode}) gin_trgm_ops`),
    index('repair_orders_opened_idx').on(t.openedOn),
    index('repair_orders_model_idx').on(t.gearboxModelId, t.openedOn),
  ],
);

/** Earlier interventions on the vehicle's gearbox: at what mileage, what was done. */
export const interventionHistory = pgTable(
  'intervention_history',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    repairOrderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    mileage: integer('mileage').notNull(),
    intervention: text('intervention').notNull(),
  },
  (t) => [index('intervention_history_order_idx').on(t.repairOrderId, t.position)],
);

/**
 * A fault code read on the order's gearbox (SPEC §3 appearance condition), with the conditions
 * it appeared in. The code is one of the model's error codes (added to the dossier when new).
 */
export const orderFaultCodes = pgTable(
  'order_fault_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    repairOrderId: uuid('repair_order_id')
      .notNull()
      .references(() => repairOrders.id, { onDelete: 'cascade' }),
    errorCodeId: uuid('error_code_id')
      .notNull()
      .references(() => errorCodes.id, { onDelete: 'restrict' }),
    temporality: text('temporality'),
    acceleratorLoad: text('accelerator_load').notNull().default(''),
    bvaMode: text('bva_mode').notNull().default(''),
    gear: text('gear').notNull().default(''),
    /** The operating phase, as the base's conditions name it. */
    action: text('action').notNull().default(''),
    otherCondition: text('other_condition').notNull().default(''),
    comment: text('comment').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('order_fault_codes_order_idx').on(t.repairOrderId), uniqueIndex('order_fault_codes_order_code_key').on(t.repairOrderId, t.errorCodeId), index('order_fault_codes_code_idx').on(t.errorCodeId)],
);
