// Accounts and their credentials, in the `auth` schema as hasura-auth keeps them.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

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
    /** Always stored lower-cased; null for an anonymous or phone-only account. */
    email: text('email'),
    emailVerified: boolean('email_verified').notNull().default(false),
    newEmail: text('new_email'),
    passwordHash: text('password_hash'),
    defaultRole: text('default_role').notNull(),
    metadata: jsonb('metadata').notNull().default(sql`'{}'::jsonb`),
    /** Anonymous sign-in (off by default): not registered until /user/deanonymize. */
    isAnonymous: boolean('is_anonymous').notNull().default(false),
    /** E.164, for the SMS one-time code. */
    phoneNumber: text('phone_number'),
    phoneNumberVerified: boolean('phone_number_verified').notNull().default(false),
    /** 'totp' once a second factor is active; the secret waits here from generate to activate. */
    activeMfaType: text('active_mfa_type'),
    totpSecret: text('totp_secret'),
    /** Time step of the last code accepted: a code is good once. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email), uniqueIndex('users_phone_number_key').on(t.phoneNumber)],
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
    /** Last proof of the user's second factor in this sign-in: step-up for dangerous actions. */
    elevatedAt: timestamp('elevated_at', { withTimezone: true }),
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

/**
 * One-time tickets: e-mail links (verify, reset, e-mail change, passwordless), MFA tickets
 * between the password and the code, and one-time codes (hashed with their user).
 */
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
    /** Wrong codes tried against this ticket: a one-time code dies after a few. */
    attempts: integer('attempts').notNull().default(0),
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

/** Single-use recovery codes of a user's second factor, shown once at enrolment. */
export const recoveryCodes = auth.table(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('recovery_codes_hash_key').on(t.codeHash), index('recovery_codes_user_idx').on(t.userId)],
);

/** WebAuthn credentials (hasura-auth's `auth.user_security_keys`). */
export const securityKeys = auth.table(
  'user_security_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** base64url, as the browser gives it. */
    credentialId: text('credential_id').notNull(),
    /** COSE public key, base64url. */
    credentialPublicKey: text('credential_public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: text('transports').notNull().default(''),
    nickname: text('nickname'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('user_security_keys_credential_id_key').on(t.credentialId), index('user_security_keys_user_idx').on(t.userId)],
);

/** Accounts at identity providers linked to a user (hasura-auth's `auth.user_providers`). */
export const userProviders = auth.table(
  'user_providers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    providerId: text('provider_id').notNull(),
    /** The provider's `sub`. */
    providerUserId: text('provider_user_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('user_providers_provider_user_key').on(t.providerId, t.providerUserId), index('user_providers_user_idx').on(t.userId)],
);

/**
 * Ceremonies waiting for the browser's answer: WebAuthn challenges (sign-up, sign-in, adding
 * a key, elevation) and identity provider round trips (state, nonce, PKCE verifier). Keyed by
 * a hash of the challenge or state; used once.
 */
export const challenges = auth.table(
  'challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').notNull(),
    keyHash: text('key_hash').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    data: jsonb('data').notNull().default(sql`'{}'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('challenges_key_hash_key').on(t.kind, t.keyHash)],
);

/**
 * Keys the server keeps in the database, each sealed with ENCRYPTION_KEY (decision 050): the
 * hash key of recovery codes and personal access tokens. A rotation re-seals them.
 */
export const serverSecrets = auth.table('server_secrets', {
  name: text('name').primaryKey(),
  /** `enc1:<key id>:…` (server/auth/vault.ts). */
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Mail and SMS waiting to leave (decision 049): written in the transaction of what caused them,
 * sent by the worker of any instance (one sender per message: a claim under SKIP LOCKED). `vars`
 * holds what renders the message (its link or code) until it is sent, then it is blanked.
 */
export const messageQueue = auth.table(
  'message_queue',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The order messages were queued in (two of one transaction share `created_at`). */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** 'email' or 'sms'. */
    channel: text('channel').notNull(),
    /** The mail's kind (templates.ts), or 'sms'. */
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    /**
     * The template's variables (a mail) or the text (an SMS), sealed (decision 050: a JSON string
     * `enc1:…` bound to the row's id); null once sent or given up.
     */
    vars: jsonb('vars'),
    /** 'waiting', 'sent' or 'failed'. */
    status: text('status').notNull().default('waiting'),
    attempts: integer('attempts').notNull().default(0),
    /** When a worker may take it next; a claim pushes it forward (a crashed sender's lease). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set while a worker is handing it over (until its lease ends): «Renvoyer» leaves it alone. */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    lastError: text('last_error'),
    /** Past this its link or code is dead: it is not sent any more. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [index('message_queue_due_idx').on(t.status, t.nextAttemptAt)],
);

/**
 * Rate-limit windows and failure counts, shared by every instance on PostgreSQL (decision 053;
 * the embedded database's one process counts in memory). `key` is the counter's kind, then a
 * keyed hash of what it counts (an address, an account): no address or e-mail in clear, and a
 * bounded size whatever a caller sends. A row past `expires_at` means nothing and is swept.
 */
export const rateCounters = auth.table(
  'rate_counters',
  {
    key: text('key').primaryKey(),
    count: integer('count').notNull(),
    /** The last hit or failure. */
    lastAt: timestamp('last_at', { withTimezone: true }).notNull(),
    /** The end of a window, or when failures are forgotten. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('rate_counters_expires_at_idx').on(t.expiresAt)],
);
