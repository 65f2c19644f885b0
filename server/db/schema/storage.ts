// Stored files' metadata, as hasura-storage keeps it; the bytes live under DATA_DIR/files.
import { bigint, boolean, index, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './auth.ts';

export const storage = pgSchema('storage');

export const files = storage.table(
  'files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    bucketId: text('bucket_id').notNull(),
    name: text('name').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    mimeType: text('mime_type').notNull(),
    etag: text('etag').notNull(),
    isUploaded: boolean('is_uploaded').notNull().default(true),
    uploadedByUserId: uuid('uploaded_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('files_bucket_idx').on(t.bucketId)],
);
