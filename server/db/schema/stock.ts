// The gearbox stock (SPEC §3 stock item, §4 stock transitions): items on racks, and every
// movement of each kept with who and when.
import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, serial, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './auth.ts';
import { doctorCodes, gearboxCodes, gearboxModels } from './gearboxes.ts';

export const stockItems = pgTable(
  'stock_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** What the rack label shows and people say: S-000123. */
    number: serial('number').notNull().unique(),
    modelId: uuid('gearbox_model_id')
      .notNull()
      .references(() => gearboxModels.id, { onDelete: 'restrict' }),
    doctorCodeId: uuid('doctor_code_id').references(() => doctorCodes.id, { onDelete: 'restrict' }),
    gearboxCodeId: uuid('gearbox_code_id').references(() => gearboxCodes.id, { onDelete: 'restrict' }),
    condition: text('condition').notNull(),
    rack: text('rack').notNull(),
    level: integer('level').notNull(),
    addedOn: date('added_on').notNull(),
    outOn: date('out_on'),
    outReason: text('out_reason').notNull().default(''),
    comment: text('comment').notNull().default(''),
    /** Raised by every change: a move or removal made on an older version is refused. */
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('stock_items_current_idx').on(t.modelId, t.condition).where(sql`${t.outOn} is null`),
    index('stock_items_rack_idx').on(t.rack, t.level, t.number).where(sql`${t.outOn} is null`),
    index('stock_items_out_idx').on(t.outOn, t.number).where(sql`${t.outOn} is not null`),
    index('stock_items_doctor_idx').on(t.doctorCodeId),
    index('stock_items_gearbox_code_idx').on(t.gearboxCodeId),
    check('stock_items_out_after_in', sql`${t.outOn} is null or ${t.outOn} >= ${t.addedOn}`),
  ],
);

export const stockMovements = pgTable(
  'stock_movements',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    itemId: uuid('item_id')
      .notNull()
      .references(() => stockItems.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    fromRack: text('from_rack'),
    fromLevel: integer('from_level'),
    toRack: text('to_rack'),
    toLevel: integer('to_level'),
    fromCondition: text('from_condition'),
    toCondition: text('to_condition'),
    reason: text('reason').notNull().default(''),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    byUserId: uuid('by_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** Kept as it was: the history still says who after an account is deleted. */
    byName: text('by_name').notNull().default(''),
  },
  (t) => [index('stock_movements_item_idx').on(t.itemId, t.at)],
);
