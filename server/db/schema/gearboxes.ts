// Gearbox models, the root of each technical dossier (SPEC §3).
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { baseItems } from './base.ts';
import { files } from './storage.ts';
import type { GearboxType } from '#lib/gearboxes/gearboxes.ts';
import type { DocumentCategory } from '#lib/gearboxes/documents.ts';

export const gearboxModels = pgTable(
  'gearbox_models',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    model: text('model').notNull(),
    bvaId: text('bva_id').notNull().default(''),
    type: text('type').notNull().$type<GearboxType>(),
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
    modelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    businessName: text('business_name').notNull().default(''),
    tvsCode: text('tvs_code').notNull().default(''),
    engine: text('engine').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('doctor_codes_code_key').on(sql`lower(${t.code})`), index('doctor_codes_model_idx').on(t.modelId)],
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
    modelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    description: text('description').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('error_codes_model_code_key').on(t.modelId, sql`upper(${t.code})`)],
);

/** Outages identified on a model: a component and an outage type from the base. */
export const outages = pgTable(
  'outages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    modelId: uuid('gearbox_model_id')
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
  (t) => [index('outages_model_idx').on(t.modelId)],
);

/**
 * Repair procedures of a model (SPEC §3): ordered steps, and checkpoints whose result and
 * measured value are answered later on each repair order.
 */
export const repairProcedures = pgTable(
  'repair_procedures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    modelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    steps: text('steps').array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('repair_procedures_model_idx').on(t.modelId), uniqueIndex('repair_procedures_model_name_key').on(t.modelId, sql`lower(${t.name})`)],
);

export const procedureCheckpoints = pgTable(
  'procedure_checkpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    procedureId: uuid('procedure_id')
      .notNull()
      .references(() => repairProcedures.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
  },
  (t) => [index('procedure_checkpoints_procedure_idx').on(t.procedureId, t.position)],
);

/** The procedures to apply for an outage, in priority order (1 first). */
export const outageProcedures = pgTable(
  'outage_procedures',
  {
    outageId: uuid('outage_id')
      .notNull()
      .references(() => outages.id, { onDelete: 'cascade' }),
    procedureId: uuid('procedure_id')
      .notNull()
      .references(() => repairProcedures.id, { onDelete: 'restrict' }),
    priority: integer('priority').notNull(),
  },
  (t) => [primaryKey({ columns: [t.outageId, t.procedureId] }), index('outage_procedures_procedure_idx').on(t.procedureId)],
);

/** Measures of a model with their bounds; the value is taken later, on each order. */
export const gearboxMeasures = pgTable(
  'gearbox_measures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    modelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    unit: text('unit').notNull().default(''),
    minimum: doublePrecision('minimum'),
    maximum: doublePrecision('maximum'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('gearbox_measures_model_idx').on(t.modelId)],
);

/**
 * Every file of a dossier, one table: the model's documents (a category of the document type
 * enum, or a reference curve), an outage's files and a measure's procedure files, each with a
 * title and a comment. The bytes stay in the storage API.
 */
export const gearboxDocuments = pgTable(
  'gearbox_documents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    modelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'restrict' }),
    outageId: uuid('outage_id').references(() => outages.id, { onDelete: 'cascade' }),
    measureId: uuid('measure_id').references(() => gearboxMeasures.id, { onDelete: 'cascade' }),
    category: text('category').notNull().$type<DocumentCategory>(),
    fileId: uuid('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    title: text('title').notNull().default(''),
    comment: text('comment').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('gearbox_documents_model_idx').on(t.modelId, t.category),
    index('gearbox_documents_outage_idx').on(t.outageId),
    index('gearbox_documents_measure_idx').on(t.measureId),
    uniqueIndex('gearbox_documents_file_key').on(t.fileId),
  ],
);
