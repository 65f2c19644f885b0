// The symptoms and conditions base: conditions, symptoms, components and outage types.
// Later domains reference these rows (ON DELETE RESTRICT): an item in use cannot be deleted.
import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const baseItems = pgTable(
  'base_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('base_items_kind_name_key').on(t.kind, sql`lower(${t.name})`), index('base_items_kind_idx').on(t.kind)],
);
