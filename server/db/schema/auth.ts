// Accounts and their credentials, in the `auth` schema as hasura-auth keeps them.
import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const auth = pgSchema('auth');

export const users = auth.table(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }),
    disabled: boolean('disabled').notNull().default(false),
    displayName: text('display_name').notNull().default(''),
    avatarUrl: text('avatar_url').notNull().default(''),
    locale: text('locale').notNull().default('fr'),
    /** Always stored lower-cased. */
    email: text('email').notNull(),
    emailVerified: boolean('email_verified').notNull().default(false),
    newEmail: text('new_email'),
    passwordHash: text('password_hash'),
    defaultRole: text('default_role').notNull(),
    metadata: jsonb('metadata').notNull().default(sql`'{}'::jsonb`),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email)],
);

/** A sign-in: the family of refresh tokens issued from it, revoked as a whole. */
export const grants = auth.table(
  'grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** How the sign-in was proved: 'password', or the e-mail link's ticket type. */
    method: text('method').notNull().default('password'),
    /** Last request of the sign-in (to the minute): idle for 12 hours, it ends. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('grants_user_id_idx').on(t.userId)],
);

export const refreshTokens = auth.table(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => grants.id, { onDelete: 'cascade' }),
    /** SHA-256 of the token: the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('refresh_tokens_hash_key').on(t.tokenHash), index('refresh_tokens_grant_idx').on(t.grantId)],
);

/** One-time tickets carried by e-mail links (verify, reset, e-mail change). */
export const tickets = auth.table(
  'tickets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    tokenHash: text('token_hash').notNull(),
    newEmail: text('new_email'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('tickets_hash_key').on(t.tokenHash), index('tickets_user_idx').on(t.userId)],
);

/**
 * Personal access tokens (hasura-auth's `/pat`): a workshop's scripts sign in as their user
 * with one, never with a password. Each sign-in opens a grant of its own (method 'pat').
 */
export const personalAccessTokens = auth.table(
  'personal_access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** SHA-256 of the token: the token itself is shown once, at creation. */
    tokenHash: text('token_hash').notNull(),
    metadata: jsonb('metadata').notNull().default(sql`'{}'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('personal_access_tokens_hash_key').on(t.tokenHash), index('personal_access_tokens_user_idx').on(t.userId)],
);
