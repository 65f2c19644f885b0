// Gearbox models, the root of each technical dossier (SPEC §3).
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { baseItems } from './base.ts';

export const gearboxModels = pgTable(
  'gearbox_models',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    model: text('model').notNull(),
    bvaId: text('bva_id').notNull().default(''),
    type: text('type').notNull(),
    constructorName: text('constructor_name').notNull(),
    doctorCode: text('doctor_code').notNull().default(''),
    businessName: text('business_name').notNull().default(''),
    parentId: uuid('parent_id').references((): AnyPgColumn => gearboxModels.id, { onDelete: 'restrict' }),
    startYear: integer('start_year').notNull(),
    endYear: integer('end_year'),
    gears: integer('gears'),
    arrangement: text('arrangement').notNull().default(''),
    propulsion: text('propulsion').notNull().default(''),
    optionalPropulsion: text('optional_propulsion').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('gearbox_models_model_key').on(sql`lower(${t.model})`), index('gearbox_models_type_idx').on(t.type)],
);

/** Doctor codes of a model (doctor code, business name, TVS code, engine); they go with it. */
export const doctorCodes = pgTable(
  'doctor_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    gearboxModelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    businessName: text('business_name').notNull().default(''),
    tvsCode: text('tvs_code').notNull().default(''),
    engine: text('engine').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('doctor_codes_code_key').on(sql`lower(${t.code})`), index('doctor_codes_model_idx').on(t.gearboxModelId)],
);

/** Gearbox codes, each under a doctor code; deleting a doctor code that has some is refused ('Code utilisé'). */
export const gearboxCodes = pgTable(
  'gearbox_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    doctorCodeId: uuid('doctor_code_id')
      .notNull()
      .references(() => doctorCodes.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('gearbox_codes_code_key').on(sql`lower(${t.code})`), index('gearbox_codes_doctor_idx').on(t.doctorCodeId)],
);

/** Fault codes known for a model (P07xx and the makers' own), unique within the model. */
export const errorCodes = pgTable(
  'error_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    gearboxModelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    description: text('description').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('error_codes_model_code_key').on(t.gearboxModelId, sql`upper(${t.code})`)],
);

/** Outages identified on a model: a component and an outage type from the base. */
export const outages = pgTable(
  'outages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    gearboxModelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'restrict' }),
    componentId: uuid('component_id')
      .notNull()
      .references(() => baseItems.id, { onDelete: 'restrict' }),
    outageTypeId: uuid('outage_type_id')
      .notNull()
      .references(() => baseItems.id, { onDelete: 'restrict' }),
    description: text('description').notNull().default(''),
    /** Share of this model's orders with this outage, in percent. */
    occurrenceRate: integer('occurrence_rate'),
    averageMileage: integer('average_mileage'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('outages_model_idx').on(t.gearboxModelId)],
);
