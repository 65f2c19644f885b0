// Stored files' metadata, as hasura-storage keeps it; the bytes live under DATA_DIR/files.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';
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

/**
 * Where the bytes of stored files live (issue 30, item 3): one row, written by each start from its
 * settings. A backup run without the bucket settings reads it and refuses, rather than archiving an
 * S3 installation's rows with none of their files; a start on the disk refuses too.
 */
export const filesLocation = storage.table(
  'location',
  {
    id: boolean('id').primaryKey().default(true),
    /** 'disk' or 's3'. */
    kind: text('kind').notNull(),
    bucket: text('bucket'),
    /** The S3 endpoint; null: AWS's for the region. */
    endpoint: text('endpoint'),
    region: text('region'),
    /**
     * This installation's claim on the files' home (decision 057): the same token is in the marker
     * object `installation.json` there; a start or a sweep facing another token stops.
     */
    token: uuid('token'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('location_one_row', sql`${t.id}`)],
);
