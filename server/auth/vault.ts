// Secrets at rest (issue 29, item 3; decision 050). What the server must read back (an
// authenticator app's secret, a PKCE verifier) is sealed with AES-256-GCM under a key the database
// does not hold (ENCRYPTION_KEY, or DATA_DIR/secrets/encryption); each sealed value names its key,
// so that a rotation tells old from new. What is only ever compared (recovery codes, personal
// access tokens) is an HMAC-SHA-256 of its SHA-256, keyed by a random hash key that the database
// keeps sealed: a backup alone neither opens a secret nor lets one guess a recovery code, and a
// rotation re-seals that one key instead of hashes it cannot recompute.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { and, eq, isNotNull, like, notLike, sql } from 'drizzle-orm';
import { type Db, queryRows } from '#server/db/client.ts';
import { challenges, messageQueue, personalAccessTokens, recoveryCodes, serverSecrets, users } from '#server/db/schema/index.ts';
import { sha256 } from './tokens.ts';

const FORMAT = 'enc1';
const SEALED = /^enc1:([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]+)$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The name of the hash key's row in auth.server_secrets. */
const HASH_KEY = 'hash-key';
/** The identity provider round trips whose PKCE verifier waits sealed in auth.challenges (oidc.ts). */
export const OIDC_STATE_KIND = 'oidcState';

/** A sealed value this installation cannot open: a key it does not have, or altered bytes. */
export class VaultError extends Error {}

export type Keyring = {
  /** The id of the key that seals. */
  current: string;
  /** Every key that opens, by id. */
  keys: Map<string, Buffer>;
};

/** A key's id: 8 characters derived from it (not a secret: it tells keys apart, never recovers one). */
export function keyIdOf(secret: string): string {
  return createHmac('sha256', secret).update('atelier-bva key id').digest('base64url').slice(0, 8);
}

/** The keyring of `secrets`: the first seals, all open. Each is stretched to 256 bits with HKDF. */
export function createKeyring(secrets: string[]): Keyring {
  if (!secrets.length) throw new VaultError('No encryption key');
  const keys = new Map<string, Buffer>();
  for (const secret of secrets) {
    keys.set(keyIdOf(secret), Buffer.from(hkdfSync('sha256', secret, 'atelier-bva', 'secrets at rest', 32)));
  }
  return { current: keyIdOf(secrets[0]!), keys };
}

/** `enc1:<key id>:<iv | ciphertext | tag>`, bound to `context` (the row it belongs to). */
export function seal(keyring: Keyring, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyring.keys.get(keyring.current)!, iv);
  cipher.setAAD(Buffer.from(`${FORMAT}:${keyring.current}:${context}`));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${FORMAT}:${keyring.current}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
}

export const isSealed = (value: string) => SEALED.test(value);
/** The id of the key that sealed `value`, or null for a value in clear. */
export const keyIdOfSealed = (value: string): string | null => SEALED.exec(value)?.[1] ?? null;

/** The plaintext of `sealed`; throws VaultError when its key is not in the keyring or it was altered. */
export function open(keyring: Keyring, sealed: string, context: string): string {
  const match = SEALED.exec(sealed);
  if (!match) throw new VaultError('Not a sealed value');
  const [, id, payload] = match as unknown as [string, string, string];
  const key = keyring.keys.get(id);
  if (!key) throw new VaultError(`Sealed with encryption key ${id}, which this installation does not have`);
  const bytes = Buffer.from(payload, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new VaultError('A sealed value is cut short');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(`${FORMAT}:${id}:${context}`));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new VaultError(`A value sealed with encryption key ${id} does not open: altered, or moved from another row`);
  }
}

/** The context a TOTP secret is sealed with: its user (a secret copied to another row does not open). */
export const totpContext = (userId: string) => `auth.users.totp_secret:${userId}`;
export const OIDC_VERIFIER_CONTEXT = 'auth.challenges.oidc-verifier';
/** The context a queued message's content (its link, code or text) is sealed with: its row. */
export const messageVarsContext = (messageId: string) => `auth.message_queue.vars:${messageId}`;
/** A queued message whose content is sealed: `vars` is the JSON string `enc1:…`. */
const SEALED_MESSAGE = sql`jsonb_typeof(vars) = 'string' and vars #>> '{}' like 'enc1:%'`;
/** `last_error` of a message whose content could not be opened (mailer.ts UNREADABLE_ERROR). */
const UNREADABLE_MESSAGE = 'unreadable';
const hashKeyContext = `auth.server_secrets:${HASH_KEY}`;

/** HMAC-SHA-256 of an already hashed value: what upgraded rows (a plain SHA-256 on main) become. */
const keyedHash = (key: Buffer, hashed: string) => createHmac('sha256', key).update(hashed).digest('base64url');

type Tx = Pick<Db, 'select' | 'update' | 'insert' | 'execute'>;

/** Key ids the database's sealed values name that `keyring` lacks. */
export async function missingKeys(tx: Pick<Db, 'execute'>, keyring: Keyring): Promise<string[]> {
  // A backup restored from before this version has no auth.server_secrets yet.
  const [table] = await queryRows<{ present: boolean; queue: boolean }>(
    tx as Db,
    sql`select to_regclass('auth.server_secrets') is not null as present, to_regclass('auth.message_queue') is not null as queue`,
  );
  const rows = await queryRows<{ id: string }>(
    tx as Db,
    table?.present
      ? sql`select split_part(totp_secret, ':', 2) as id from auth.users where totp_secret like 'enc1:%'
          union select split_part(value, ':', 2) from auth.server_secrets where value like 'enc1:%'
          ${table.queue ? sql`union select split_part(vars #>> '{}', ':', 2) from auth.message_queue where ${SEALED_MESSAGE}` : sql``}`
      : sql`select distinct split_part(totp_secret, ':', 2) as id from auth.users where totp_secret like 'enc1:%'`,
  );
  return [...new Set(rows.map((row) => row.id))].filter((id) => !keyring.keys.has(id));
}

/**
 * A restore whose encryption key is lost (`db:restore --forget-secrets`): the authenticator apps
 * sealed with a key of `missing` are removed (their users sign in with the password alone and may
 * enrol again), and, when the hash key is among them, every recovery code goes and every personal
 * access token is revoked (they could never be checked); the next start makes a new hash key.
 * Messages still queued with a link or code sealed with such a key are marked failed, emptied
 * (their users ask for a new link or code).
 */
export async function forgetSealedSecrets(tx: Pick<Db, 'execute'>, missing: string[]): Promise<{ apps: number; tokens: number; messages: number }> {
  const lost = sql.join(
    missing.map((id) => sql`${`enc1:${id}:%`}`),
    sql`, `,
  );
  const apps = await queryRows<{ id: string }>(
    tx as Db,
    sql`update auth.users set active_mfa_type = null, totp_secret = null, totp_last_step = null where totp_secret like any (array[${lost}]) returning id`,
  );
  const appUsers = apps.map((row) => row.id);
  if (appUsers.length)
    await tx.execute(
      sql`delete from auth.recovery_codes where user_id in (${sql.join(
        appUsers.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`,
    );
  const [hashKey] = await queryRows<{ present: boolean }>(
    tx as Db,
    sql`select to_regclass('auth.server_secrets') is not null and exists (select 1 from auth.server_secrets where value like any (array[${lost}])) as present`,
  );
  const messages = (
    await queryRows(
      tx as Db,
      sql`update auth.message_queue set vars = null, status = 'failed', last_error = ${UNREADABLE_MESSAGE}, claimed_until = null
          where ${SEALED_MESSAGE} and vars #>> '{}' like any (array[${lost}]) returning id`,
    )
  ).length;
  let tokens = 0;
  if (hashKey?.present) {
    await tx.execute(sql`delete from auth.recovery_codes`);
    // Revoked rather than deleted: the tokens screen still lists them.
    tokens = (await queryRows(tx as Db, sql`update auth.personal_access_tokens set revoked_at = now() where revoked_at is null returning id`)).length;
    await tx.execute(sql`delete from auth.server_secrets where value like any (array[${lost}])`);
  }
  return { apps: appUsers.length, tokens, messages };
}

/**
 * What every start runs (bootstrap.ts), in one transaction that other instances wait for:
 * refuses a keyring that cannot open the database's secrets, makes the hash key on first run
 * (turning the plain SHA-256 of recovery codes and tokens an older version stored into keyed
 * hashes), and seals any TOTP secret or PKCE verifier still in clear. Returns what it changed.
 */
export async function prepareSecrets(db: Db, keyring: Keyring): Promise<{ sealed: number; rehashed: number }> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Tx;
    await tx.execute(sql`lock table auth.server_secrets in exclusive mode`);
    const missing = await missingKeys(tx, keyring);
    if (missing.length) {
      throw new VaultError(
        `The database's secrets are sealed with encryption key ${missing.join(', ')}, which is not ENCRYPTION_KEY (nor in ENCRYPTION_KEY_PREVIOUS): set the key they were sealed with`,
      );
    }
    let rehashed = 0;
    const [row] = await tx.select().from(serverSecrets).where(eq(serverSecrets.name, HASH_KEY));
    if (!row) {
      // First start of this version: every hash in the tables is a plain SHA-256 of old.
      const key = randomBytes(32);
      await tx.insert(serverSecrets).values({ name: HASH_KEY, value: seal(keyring, key.toString('base64url'), hashKeyContext) });
      for (const code of await tx.select({ id: recoveryCodes.id, hash: recoveryCodes.codeHash }).from(recoveryCodes)) {
        await tx
          .update(recoveryCodes)
          .set({ codeHash: keyedHash(key, code.hash) })
          .where(eq(recoveryCodes.id, code.id));
        rehashed++;
      }
      for (const token of await tx.select({ id: personalAccessTokens.id, hash: personalAccessTokens.tokenHash }).from(personalAccessTokens)) {
        await tx
          .update(personalAccessTokens)
          .set({ tokenHash: keyedHash(key, token.hash) })
          .where(eq(personalAccessTokens.id, token.id));
        rehashed++;
      }
    }
    let sealed = 0;
    const clear = await tx
      .select({ id: users.id, secret: users.totpSecret })
      .from(users)
      .where(and(isNotNull(users.totpSecret), notLike(users.totpSecret, 'enc1:%')));
    for (const { id, secret } of clear) {
      await tx
        .update(users)
        .set({ totpSecret: seal(keyring, secret!, totpContext(id)) })
        .where(eq(users.id, id));
      sealed++;
    }
    const trips = await tx
      .select({ id: challenges.id, verifier: sql<string>`${challenges.data}->>'verifier'` })
      .from(challenges)
      .where(and(eq(challenges.kind, OIDC_STATE_KIND), sql`${challenges.data} ? 'verifier'`, sql`${challenges.data}->>'verifier' not like 'enc1:%'`));
    for (const trip of trips) {
      const value = seal(keyring, trip.verifier, OIDC_VERIFIER_CONTEXT);
      await tx
        .update(challenges)
        .set({ data: sql`jsonb_set(${challenges.data}, '{verifier}', to_jsonb(${value}::text))` })
        .where(eq(challenges.id, trip.id));
      sealed++;
    }
    // Messages an older version queued with their link or code in clear.
    const clearMessages = await tx
      .select({ id: messageQueue.id, vars: messageQueue.vars })
      .from(messageQueue)
      .where(and(isNotNull(messageQueue.vars), sql`jsonb_typeof(${messageQueue.vars}) <> 'string'`));
    for (const message of clearMessages) {
      await tx
        .update(messageQueue)
        .set({ vars: seal(keyring, JSON.stringify(message.vars), messageVarsContext(message.id)) })
        .where(eq(messageQueue.id, message.id));
      sealed++;
    }
    return { sealed, rehashed };
  });
}

/**
 * `npm run secrets:rotate`: every value sealed with another key than the keyring's current one is
 * opened and sealed again with it, in one transaction (all or nothing). Returns how many.
 */
export async function resealSecrets(db: Db, keyring: Keyring): Promise<number> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Tx;
    await tx.execute(sql`lock table auth.server_secrets in exclusive mode`);
    const missing = await missingKeys(tx, keyring);
    if (missing.length) throw new VaultError(`Some secrets are sealed with encryption key ${missing.join(', ')}, which is not among the keys given`);
    const stale = `enc1:${keyring.current}:%`;
    let count = 0;
    for (const { id, secret } of await tx
      .select({ id: users.id, secret: users.totpSecret })
      .from(users)
      .where(and(like(users.totpSecret, 'enc1:%'), notLike(users.totpSecret, stale)))) {
      const context = totpContext(id);
      await tx
        .update(users)
        .set({ totpSecret: seal(keyring, open(keyring, secret!, context), context) })
        .where(eq(users.id, id));
      count++;
    }
    for (const { name, value } of await tx.select().from(serverSecrets).where(notLike(serverSecrets.value, stale))) {
      const context = `auth.server_secrets:${name}`;
      await tx
        .update(serverSecrets)
        .set({ value: seal(keyring, open(keyring, value, context), context), updatedAt: new Date() })
        .where(eq(serverSecrets.name, name));
      count++;
    }
    const trips = await tx
      .select({ id: challenges.id, verifier: sql<string>`${challenges.data}->>'verifier'` })
      .from(challenges)
      .where(
        and(eq(challenges.kind, OIDC_STATE_KIND), sql`${challenges.data}->>'verifier' like 'enc1:%'`, sql`${challenges.data}->>'verifier' not like ${stale}`),
      );
    for (const trip of trips) {
      let value: string;
      try {
        value = seal(keyring, open(keyring, trip.verifier, OIDC_VERIFIER_CONTEXT), OIDC_VERIFIER_CONTEXT);
      } catch {
        // A round trip of ten minutes: one that does not open is dropped, the user starts again.
        await tx.update(challenges).set({ usedAt: new Date() }).where(eq(challenges.id, trip.id));
        continue;
      }
      await tx
        .update(challenges)
        .set({ data: sql`jsonb_set(${challenges.data}, '{verifier}', to_jsonb(${value}::text))` })
        .where(eq(challenges.id, trip.id));
      count++;
    }
    const messages = await tx
      .select({ id: messageQueue.id, vars: sql<string>`${messageQueue.vars} #>> '{}'` })
      .from(messageQueue)
      .where(
        and(
          sql`jsonb_typeof(${messageQueue.vars}) = 'string'`,
          sql`${messageQueue.vars} #>> '{}' like 'enc1:%'`,
          sql`${messageQueue.vars} #>> '{}' not like ${stale}`,
        ),
      );
    for (const message of messages) {
      const context = messageVarsContext(message.id);
      let value: string;
      try {
        value = seal(keyring, open(keyring, message.vars, context), context);
      } catch {
        // Altered or moved: it could never be sent; its user asks for a new link or code.
        await tx
          .update(messageQueue)
          .set({ vars: null, status: 'failed', lastError: UNREADABLE_MESSAGE, claimedUntil: null })
          .where(eq(messageQueue.id, message.id));
        continue;
      }
      await tx.update(messageQueue).set({ vars: value }).where(eq(messageQueue.id, message.id));
      count++;
    }
    // Nothing may be left under an old key: the caller drops the old key next.
    const left = await missingKeys(tx, { current: keyring.current, keys: new Map([[keyring.current, keyring.keys.get(keyring.current)!]]) });
    if (left.length) throw new VaultError(`Some secrets are still sealed with encryption key ${left.join(', ')} after the rotation: nothing was changed`);
    return count;
  });
}

export type Vault = ReturnType<typeof createVault>;

/** The services' view: seal and open with the configured keys, and hash with the sealed hash key. */
export function createVault(db: Db, keyring: Keyring) {
  let hashKey: Promise<Buffer> | undefined;
  async function loadHashKey(): Promise<Buffer> {
    let [row] = await db.select().from(serverSecrets).where(eq(serverSecrets.name, HASH_KEY));
    if (!row) {
      // Started without bootstrap (a script): make it as a start would.
      await prepareSecrets(db, keyring);
      [row] = await db.select().from(serverSecrets).where(eq(serverSecrets.name, HASH_KEY));
    }
    return Buffer.from(open(keyring, row!.value, hashKeyContext), 'base64url');
  }
  return {
    seal: (plaintext: string, context: string) => seal(keyring, plaintext, context),
    open: (sealed: string, context: string) => open(keyring, sealed, context),
    /**
     * The keyed hash of a recovery code or a token: HMAC-SHA-256, under the hash key, of its
     * SHA-256 (tokens.ts `sha256`), so that rows an older version hashed could be carried over.
     */
    async hash(value: string): Promise<string> {
      hashKey ??= loadHashKey().catch((error) => {
        hashKey = undefined;
        throw error;
      });
      return keyedHash(await hashKey, sha256(value));
    },
  };
}
