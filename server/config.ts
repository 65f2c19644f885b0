// Environment of ARCHITECTURE.md, validated once at start. A wrong value stops the
// process with one clear line (see main.ts), never a stack trace.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_TIME_ZONE, isTimeZone } from '#lib/format.ts';

/** The application's folder (package.json, dist/): the build, the server and the backups' version read it. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The sender of the mails when MAIL_FROM is not set. */
export const DEFAULT_MAIL_FROM = 'Atelier BVA <no-reply@atelier.local>';
const NAMED_MAILBOX = /^([^<>\r\n]*?)\s*<([^<>\s]+)>$/;
/** `address@domain`, or `Name <address@domain>`: what a mail's From header takes. */
export function isMailbox(value: string): boolean {
  const address = NAMED_MAILBOX.exec(value)?.[2] ?? value;
  return !/[\r\n]/.test(value) && z.email().safeParse(address).success;
}

const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4321),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  // The From of every mail: an address, or a name and an address (`Atelier Dupont <atelier@dupont.fr>`).
  MAIL_FROM: z
    .string()
    .trim()
    .refine(isMailbox, 'must be an e-mail address, or a name and an address in angle brackets, such as Atelier BVA <no-reply@example.com>')
    .default(DEFAULT_MAIL_FROM),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  // Seals the secrets the database keeps (decision 050): authenticator apps' secrets and the key of
  // recovery codes' and tokens' hashes. ENCRYPTION_KEY_PREVIOUS: keys still read during a rotation.
  ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  ENCRYPTION_KEY_PREVIOUS: z
    .string()
    .refine((v) => v.split(',').every((key) => key.trim().length >= 32), 'must be keys of at least 32 characters, separated by commas')
    .optional(),
  // Authenticates backup archives (decision 051); without it, DATA_DIR/secrets/backup.
  BACKUP_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  DEMO_DATA: flag.optional(),
  // SPEC §9: 15 s by default.
  AUTH_ACCESS_TOKEN_EXPIRES_IN: z.coerce.number().int().min(10).max(86400).default(15),
  LOG_LEVEL: z.enum(['silent', 'error', 'info']).default('info'),
  // The workshop's clock (decision 038): every date shown, printed, exported or mailed, and every
  // date typed, is in this zone, whatever the server's own TZ.
  WORKSHOP_TIME_ZONE: z
    .string()
    .trim()
    .refine(isTimeZone, 'must be an IANA time zone name, such as Europe/Paris or America/Montreal')
    .default(DEFAULT_TIME_ZONE),
  AUTH_RATE_LIMIT_FACTOR: z.coerce.number().min(1).max(1000).default(1),
  STORAGE_MAX_FILE_MB: z.coerce.number().int().min(1).max(10_000).optional(),
  // Uploads are refused while the disk of DATA_DIR would keep less than this.
  STORAGE_MIN_FREE_MB: z.coerce.number().int().min(0).max(10_000_000).default(64),
  // Stored bytes no row claims are removed once this old (decision 036): a crash's leftovers.
  STORAGE_ORPHAN_GRACE_MINUTES: z.coerce.number().min(0).max(100_000).default(60),
  // Files in an S3-compatible bucket instead of DATA_DIR/files (decision 033): one URL, or the S3_* settings.
  STORAGE_URL: z
    .string()
    .regex(/^s3(\+https?)?:\/\//, 'must start with s3:// (s3+http:// for a server without TLS)')
    .optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)')
    .optional(),
  S3_REGION: z.string().min(1).max(64).optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  // MinIO and Garage answer at <endpoint>/<bucket>, not <bucket>.<endpoint>.
  S3_FORCE_PATH_STYLE: flag.optional(),
  // GET /files/{id}/presignedurl: a link to this app (default) or the bucket's own presigned URL.
  STORAGE_PRESIGNED_URLS: z.enum(['app', 'bucket']).default('app'),
  // How many reverse proxies stand in front (each appends to X-Forwarded-For); 0: none.
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  // Sign-in methods (issue 18; hasura-auth's names where it has one). Decision 027.
  AUTH_EMAIL_PASSWORD_ENABLED: flag.default(true),
  AUTH_MFA_ENABLED: flag.default(true),
  AUTH_WEBAUTHN_ENABLED: flag.default(true),
  AUTH_EMAIL_PASSWORDLESS_ENABLED: flag.default(true),
  AUTH_OTP_EMAIL_ENABLED: flag.default(true),
  AUTH_SMS_PASSWORDLESS_ENABLED: flag.default(false),
  AUTH_ANONYMOUS_USERS_ENABLED: flag.default(false),
  AUTH_PAT_ENABLED: flag.default(true),
  // The relying party of security keys: PUBLIC_URL's host and this name unless set.
  AUTH_WEBAUTHN_RP_ID: z.string().min(1).max(253).optional(),
  AUTH_WEBAUTHN_RP_NAME: z.string().min(1).max(64).default('Atelier BVA'),
  // SMS one-time codes through Twilio (hasura-auth's names); without them, DATA_DIR/outbox.
  AUTH_SMS_TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio Account SID (AC followed by 32 hexadecimal digits)')
    .optional(),
  AUTH_SMS_TWILIO_AUTH_TOKEN: z.string().min(16).max(128).optional(),
  // A Messaging Service SID (MG…) or the sending number (E.164).
  AUTH_SMS_TWILIO_MESSAGING_SERVICE_ID: z
    .string()
    .regex(/^(MG[0-9a-fA-F]{32}|\+[1-9]\d{6,14})$/, 'must be a Messaging Service SID (MG…) or a phone number in E.164 form')
    .optional(),
});

export type RateLimitRule = { max: number; windowMs: number };
/** Wrong passwords: free attempts per account and address, then growing delays up to `maxDelayMs`. */
export type ThrottleRule = { accountFree: number; addressFree: number; maxDelayMs: number; forgetMs: number };

/** Which ways in are on (issue 18, item 8); identity providers are on when named in config. */
export type AuthMethods = {
  emailPassword: boolean;
  totp: boolean;
  webauthn: boolean;
  emailLink: boolean;
  emailOtp: boolean;
  sms: boolean;
  anonymous: boolean;
  personalAccessTokens: boolean;
};

/**
 * An OpenID Connect identity provider (decision 029): AUTH_PROVIDERS names them, each with its
 * AUTH_PROVIDER_<NAME>_ISSUER, _CLIENT_ID, _CLIENT_SECRET, and optional _LABEL, _EMAIL_DOMAINS, _PROMPT.
 */
export type AuthProvider = {
  /** Lower-case letters and digits: the `{provider}` of the paths and of auth.user_providers. */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The sign-in button's text: "Se connecter avec {label}". */
  label: string;
  /** When set, only a verified e-mail of these domains gets in. */
  emailDomains: string[] | null;
  /** OpenID's `prompt`: `login` (the default) makes the provider ask again on a shared terminal. */
  prompt: 'login' | 'select_account' | null;
};

/** A message's n-th failure waits firstDelayMs·2^(n-1), at most maxDelayMs; after maxAttempts it has failed. */
export type MessageRetry = { firstDelayMs: number; maxDelayMs: number; maxAttempts: number };
/** 30 s, 1 min, 2 min… then hourly: the 30th attempt comes about 24 hours after the first. */
export const defaultMessageRetry: MessageRetry = { firstDelayMs: 30_000, maxDelayMs: 3_600_000, maxAttempts: 30 };

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  smtpUrl: string | undefined;
  /** The From of every mail (MAIL_FROM). */
  mailFrom: string;
  /** How the message queue tries again (decision 049). */
  messageRetry: MessageRetry;
  publicUrl: string;
  sessionSecret: string;
  jwtSecret: string;
  /**
   * The keys of secrets at rest (decision 050): the first seals, every one opens. ENCRYPTION_KEY
   * then ENCRYPTION_KEY_PREVIOUS, or the lines of DATA_DIR/secrets/encryption (embedded mode).
   */
  encryptionKeys: string[];
  /** BACKUP_KEY when set; else the backup commands read DATA_DIR/secrets/backup (`backupKeyOf`). */
  backupKey: string | undefined;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /** undefined: decided by the kind of database (on for a new embedded one). */
  demoData: boolean | undefined;
  accessTokenExpiresIn: number;
  /** How often open WebSockets are checked against their sign-in (ms). */
  sessionSweepMs: number;
  /** How long /readyz keeps the bucket's answer (ms): a proxy's health checks do not each reach S3. */
  readyBucketCacheMs: number;
  /** What one GraphQL caller may ask for (issue 14, item 3). */
  graphqlLimits: GraphQLLimits;
  logLevel: 'silent' | 'error' | 'info';
  /** The workshop's IANA time zone: the one clock of every date shown and typed. */
  workshopTimeZone: string;
  /** Free space an upload must leave on the disk of DATA_DIR, in bytes. */
  storageMinFreeBytes: number;
  /** Bytes no row claims are removed once older than this (a crash between the two writes). */
  storageOrphanGraceMs: number;
  /** Largest file each storage bucket accepts, in bytes. */
  storageMaxBytes: Record<'diagnostic-import' | 'measure' | 'outage' | 'documents' | 'photo', number>;
  /** Where the bytes of stored files live: DATA_DIR/files, or an S3-compatible bucket. */
  storage: StorageConfig;
  /** Reverse proxies in front: the client address comes from X-Forwarded-For only when > 0. */
  trustProxy: number;
  /** Password guesses: free failures per (account, address) and per address, then doubling delays. */
  signInThrottle: ThrottleRule;
  /** Second-factor guesses at one user from every address together: the slower ceiling (decision 052). */
  secondFactorCeiling: ThrottleRule;
  authMethods: AuthMethods;
  /** Identity providers, none unless named in AUTH_PROVIDERS. */
  authProviders: AuthProvider[];
  /** Security keys' relying party: its id (a host name) and the name authenticators show. */
  webauthn: { rpId: string; rpName: string };
  /** Where SMS one-time codes go: Twilio when configured, else DATA_DIR/outbox (server/auth/sms.ts). */
  sms: SmsConfig;
  rateLimits: {
    /** E-mail link tickets tried from one address. */
    ticketPerIp: RateLimitRule;
    signUpPerIp: RateLimitRule;
    emailPerAddress: RateLimitRule;
    emailPerIp: RateLimitRule;
    refreshPerIp: RateLimitRule;
    /** Sign-in links and one-time codes by e-mail (decision 030). */
    signInEmailPerAddress: RateLimitRule;
    signInEmailPerIp: RateLimitRule;
    /** SMS codes cost money and reach a phone: tighter. */
    signInSmsPerNumber: RateLimitRule;
    signInSmsPerIp: RateLimitRule;
  };
};

/** An S3-compatible bucket (AWS, MinIO, Garage…); `endpoint` undefined: AWS's for the region. */
export type S3Config = {
  kind: 's3';
  endpoint: string | undefined;
  bucket: string;
  region: string;
  /** undefined: the AWS SDK's own chain (AWS_* variables, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  /** 'bucket': presigned URLs of the storage API point at the bucket, which clients must reach. */
  presignedUrls: 'app' | 'bucket';
  /** Set from STORAGE_URL rather than the S3_* settings: what a refusal names. */
  fromUrl?: boolean;
};
export type StorageConfig = { kind: 'disk' } | S3Config;

export type SmsConfig = {
  twilio?: { accountSid: string; authToken: string; messagingServiceId: string; apiUrl: string };
};

export type GraphQLLimits = {
  /** An operation still running after this is stopped (subscriptions: each event's execution). */
  timeBudgetMs: number;
  subscriptionsPerConnection: number;
  /** Across the user's sockets on this instance. */
  subscriptionsPerUser: number;
  /** Request bodies of /graphql, signed in and anonymous. */
  maxBodyBytes: number;
  maxAnonymousBodyBytes: number;
};

export const defaultGraphQLLimits: GraphQLLimits = {
  timeBudgetMs: 5_000,
  subscriptionsPerConnection: 25,
  subscriptionsPerUser: 50,
  maxBodyBytes: 1024 * 1024,
  maxAnonymousBodyBytes: 16 * 1024,
};

export class ConfigError extends Error {}

const MINUTE = 60_000;

export const defaultSignInThrottle: ThrottleRule = {
  // Five free guesses per account and address, then 1 s, 2 s, 4 s… up to 15 min between guesses.
  accountFree: 5,
  // A workshop's terminals usually share one public address: wider across accounts.
  addressFree: 50,
  maxDelayMs: 15 * MINUTE,
  // Failures older than this are forgotten.
  forgetMs: 15 * MINUTE,
};

const HOUR = 60 * MINUTE;

/**
 * Wrong second-factor codes at one user, whatever the address (decision 052): thirty free a
 * day, then 1 s, 2 s… up to 15 min between guesses, forgotten after a quiet day. Per (user,
 * address) the codes follow `signInThrottle`, so the owner elsewhere waits only past this.
 */
export const defaultSecondFactorCeiling: ThrottleRule = {
  accountFree: 30,
  addressFree: 30,
  maxDelayMs: 15 * MINUTE,
  forgetMs: 24 * HOUR,
};

export const defaultRateLimits: Config['rateLimits'] = {
  ticketPerIp: { max: 100, windowMs: 5 * MINUTE },
  signUpPerIp: { max: 10, windowMs: 5 * MINUTE },
  // hasura-auth's e-mail limit: 10 per hour.
  emailPerAddress: { max: 10, windowMs: 60 * MINUTE },
  emailPerIp: { max: 10, windowMs: 60 * MINUTE },
  refreshPerIp: { max: 600, windowMs: MINUTE },
  // A user may ask again a few times; a workshop's terminals share one public address.
  signInEmailPerAddress: { max: 5, windowMs: 15 * MINUTE },
  signInEmailPerIp: { max: 60, windowMs: 60 * MINUTE },
  signInSmsPerNumber: { max: 3, windowMs: 15 * MINUTE },
  signInSmsPerIp: { max: 20, windowMs: 60 * MINUTE },
};

/** Twilio takes all three settings or none. */
function smsConfig(e: z.infer<typeof envSchema>): SmsConfig {
  const sid = e.AUTH_SMS_TWILIO_ACCOUNT_SID;
  const token = e.AUTH_SMS_TWILIO_AUTH_TOKEN;
  const sender = e.AUTH_SMS_TWILIO_MESSAGING_SERVICE_ID;
  if (!sid && !token && !sender) return {};
  if (!sid || !token || !sender) {
    const missing = !sid ? 'AUTH_SMS_TWILIO_ACCOUNT_SID' : !token ? 'AUTH_SMS_TWILIO_AUTH_TOKEN' : 'AUTH_SMS_TWILIO_MESSAGING_SERVICE_ID';
    throw new ConfigError(`Missing ${missing}: Twilio needs the account SID, the auth token and the sender`);
  }
  return { twilio: { accountSid: sid, authToken: token, messagingServiceId: sender, apiUrl: 'https://api.twilio.com' } };
}

const S3_SETTINGS = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'] as const;

/**
 * STORAGE_URL (`s3://KEY:SECRET@host[:port]/bucket?region=…&forcePathStyle=1`, `s3+http://` without
 * TLS) or the S3_* settings, not both; neither: the local disk.
 */
function storageConfig(e: z.infer<typeof envSchema>): StorageConfig {
  const storage = bucketConfig(e);
  if (storage.kind === 'disk' && e.STORAGE_PRESIGNED_URLS === 'bucket')
    throw new ConfigError('Invalid STORAGE_PRESIGNED_URLS: bucket needs files in S3 (STORAGE_URL or S3_BUCKET)');
  return storage;
}

function bucketConfig(e: z.infer<typeof envSchema>): StorageConfig {
  const settings = S3_SETTINGS.filter((key) => e[key] !== undefined);
  if (e.STORAGE_URL) {
    if (settings.length) throw new ConfigError(`Invalid ${settings[0]}: STORAGE_URL already says where files go`);
    let url: URL;
    try {
      url = new URL(e.STORAGE_URL);
    } catch {
      throw new ConfigError('Invalid STORAGE_URL: not a URL (write a / or @ of a key as %2F or %40)');
    }
    const decode = (part: string) => {
      try {
        return decodeURIComponent(part);
      } catch {
        throw new ConfigError('Invalid STORAGE_URL: a % must start a %XX escape');
      }
    };
    const bucket = decode(url.pathname.replace(/^\/+|\/+$/g, ''));
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError('Invalid STORAGE_URL: its path must be a bucket name');
    const pathStyle = url.searchParams.get('forcePathStyle');
    if (pathStyle !== null && !['0', '1', 'true', 'false'].includes(pathStyle)) throw new ConfigError('Invalid STORAGE_URL: forcePathStyle is 1 or 0');
    if (url.username && !url.password) throw new ConfigError('Invalid STORAGE_URL: the key needs its secret (s3://KEY:SECRET@host/bucket)');
    const tls = url.protocol !== 's3+http:';
    return {
      kind: 's3',
      endpoint: url.host ? `${tls ? 'https' : 'http'}://${url.host}` : undefined,
      bucket,
      region: url.searchParams.get('region') || 'us-east-1',
      credentials: url.username ? { accessKeyId: decode(url.username), secretAccessKey: decode(url.password) } : undefined,
      forcePathStyle: pathStyle === '1' || pathStyle === 'true',
      presignedUrls: e.STORAGE_PRESIGNED_URLS,
      fromUrl: true,
    };
  }
  if (!settings.length) return { kind: 'disk' };
  if (!e.S3_BUCKET) throw new ConfigError('Missing S3_BUCKET: the S3_* settings need a bucket');
  if (!e.S3_ACCESS_KEY_ID !== !e.S3_SECRET_ACCESS_KEY)
    throw new ConfigError(`Missing ${e.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'}: S3 keys go in pairs`);
  return {
    kind: 's3',
    endpoint: e.S3_ENDPOINT?.replace(/\/+$/, ''),
    bucket: e.S3_BUCKET,
    region: e.S3_REGION ?? 'us-east-1',
    credentials: e.S3_ACCESS_KEY_ID ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY! } : undefined,
    forcePathStyle: e.S3_FORCE_PATH_STYLE ?? false,
    presignedUrls: e.STORAGE_PRESIGNED_URLS,
  };
}

const MB = 1024 * 1024;
/** Documents and images up to 20 MB; buckets that take videos up to 200 MB, unless capped. */
function storageCaps(capMb: number | undefined): Config['storageMaxBytes'] {
  const cap = (mb: number) => Math.min(mb, capMb ?? mb) * MB;
  return { 'diagnostic-import': cap(20), measure: cap(20), outage: cap(200), documents: cap(200), photo: cap(20) };
}

/** The key file of secrets at rest: the current key on its first line, keys being retired after. */
export const encryptionKeyFile = (dataDir: string) => path.join(dataDir, 'secrets', 'encryption');

/** The keys of DATA_DIR/secrets/encryption, one a line, the file created with one on first use. */
export function keptKeys(dataDir: string): string[] {
  const keys = keptSecret(dataDir, 'encryption')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (!keys.length || keys.some((key) => key.length < 32))
    throw new ConfigError(`Invalid ${encryptionKeyFile(dataDir)}: one key of at least 32 characters a line`);
  return keys;
}

/** Reads a secret from DATA_DIR, creating it on first use (embedded mode only). */
function keptSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, 'secrets', name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = randomBytes(48).toString('base64url');
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/** The key file of backup archives' MAC (decision 051). */
export const backupKeyFile = (dataDir: string) => path.join(dataDir, 'secrets', 'backup');

/**
 * The key that authenticates backup archives (decision 051): BACKUP_KEY, or DATA_DIR/secrets/backup,
 * which the first backup of an embedded database creates (`create`). With DATABASE_URL, BACKUP_KEY
 * is required to take a backup, like the other secrets of several instances. A restore never
 * makes one (null: none here): a new key could not check an archive made with the old one.
 */
export function backupKeyOf(config: Pick<Config, 'backupKey' | 'databaseUrl' | 'dataDir'>, create: boolean): string | null {
  if (config.backupKey) return config.backupKey;
  if (config.databaseUrl && create) throw new ConfigError('Missing BACKUP_KEY: it is required when DATABASE_URL is set');
  const file = backupKeyFile(config.dataDir);
  if (!create && !existsSync(file)) return null;
  const key = keptSecret(config.dataDir, 'backup');
  if (key.length < 32) throw new ConfigError(`Invalid ${file}: one key of at least 32 characters`);
  return key;
}

/**
 * The settings of `db:backup` and `db:restore` (issue 30): the database, the storage and the keys
 * of archives, without the session and token secrets they never use; the encryption keys only
 * for a restore, which checks it can open the archive's sealed secrets (decision 050).
 */
export type BackupCommandConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'storage' | 'backupKey' | 'encryptionKeys' | 'logLevel'>;
export function loadBackupCommandConfig(env: NodeJS.ProcessEnv, command: 'backup' | 'restore'): BackupCommandConfig {
  const e = parseEnv(env);
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    dataDir,
    databaseUrl: e.DATABASE_URL,
    storage: storageConfig(e),
    backupKey: e.BACKUP_KEY,
    // A restore reads the key file without making one: a key made now could open nothing of the archive.
    encryptionKeys: command === 'restore' ? encryptionKeysOf(e, e.DATABASE_URL, dataDir, false) : [],
    logLevel: e.LOG_LEVEL,
  };
}

function parseEnv(env: NodeJS.ProcessEnv): z.infer<typeof envSchema> {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid ${key}: ${issue.message}`);
  }
  return parsed.data;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const e = parseEnv(env);
  const dataDir = path.resolve(overrides.dataDir ?? e.DATA_DIR);
  const databaseUrl = overrides.databaseUrl ?? e.DATABASE_URL;
  const secret = (value: string | undefined, name: string, file: string) => {
    if (value) return value;
    if (databaseUrl) {
      // Several instances share one PostgreSQL: a per-machine secret would break their tokens.
      throw new ConfigError(`Missing ${name}: it is required when DATABASE_URL is set`);
    }
    return keptSecret(dataDir, file);
  };
  if (env.NODE_ENV === 'production') refuseUnsafeSwitches(e);
  const port = overrides.port ?? e.PORT;
  const publicUrl = (overrides.publicUrl ?? e.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    host: e.HOST,
    dataDir,
    databaseUrl,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    messageRetry: overrides.messageRetry ?? defaultMessageRetry,
    publicUrl,
    sessionSecret: overrides.sessionSecret ?? secret(e.SESSION_SECRET, 'SESSION_SECRET', 'session'),
    jwtSecret: overrides.jwtSecret ?? secret(e.JWT_SECRET, 'JWT_SECRET', 'jwt'),
    encryptionKeys: overrides.encryptionKeys ?? encryptionKeysOf(e, databaseUrl, dataDir),
    backupKey: e.BACKUP_KEY,
    adminEmail: e.ADMIN_EMAIL?.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    demoData: e.DEMO_DATA,
    accessTokenExpiresIn: e.AUTH_ACCESS_TOKEN_EXPIRES_IN,
    sessionSweepMs: 5_000,
    readyBucketCacheMs: 5_000,
    graphqlLimits: defaultGraphQLLimits,
    logLevel: e.LOG_LEVEL,
    workshopTimeZone: e.WORKSHOP_TIME_ZONE,
    storageMaxBytes: storageCaps(e.STORAGE_MAX_FILE_MB),
    storageMinFreeBytes: e.STORAGE_MIN_FREE_MB * MB,
    storageOrphanGraceMs: e.STORAGE_ORPHAN_GRACE_MINUTES * 60_000,
    storage: storageConfig(e),
    trustProxy: e.TRUST_PROXY,
    authMethods: {
      emailPassword: e.AUTH_EMAIL_PASSWORD_ENABLED,
      totp: e.AUTH_MFA_ENABLED,
      webauthn: e.AUTH_WEBAUTHN_ENABLED,
      emailLink: e.AUTH_EMAIL_PASSWORDLESS_ENABLED,
      emailOtp: e.AUTH_OTP_EMAIL_ENABLED,
      sms: e.AUTH_SMS_PASSWORDLESS_ENABLED,
      anonymous: e.AUTH_ANONYMOUS_USERS_ENABLED,
      personalAccessTokens: e.AUTH_PAT_ENABLED,
    },
    authProviders: providersOf(env),
    webauthn: { rpId: e.AUTH_WEBAUTHN_RP_ID ?? new URL(publicUrl).hostname, rpName: e.AUTH_WEBAUTHN_RP_NAME },
    sms: smsConfig(e),
    signInThrottle: {
      ...defaultSignInThrottle,
      accountFree: defaultSignInThrottle.accountFree * e.AUTH_RATE_LIMIT_FACTOR,
      addressFree: defaultSignInThrottle.addressFree * e.AUTH_RATE_LIMIT_FACTOR,
    },
    // Not widened by AUTH_RATE_LIMIT_FACTOR: it is what stops a code guessed from many addresses.
    secondFactorCeiling: defaultSecondFactorCeiling,
    // A large workshop behind one address, or a test run, may need wider limits.
    rateLimits: Object.fromEntries(
      Object.entries(defaultRateLimits).map(([name, rule]) => [name, { ...rule, max: rule.max * e.AUTH_RATE_LIMIT_FACTOR }]),
    ) as Config['rateLimits'],
    ...overrides,
  };
}

/**
 * What production refuses to start with (issue 30, decision 056), where development and the tests
 * are served: SMS sign-in without a provider, whose codes would reach only DATA_DIR/outbox and the
 * log. (An identity provider over http outside this machine is refused everywhere: providersOf.)
 */
function refuseUnsafeSwitches(e: z.infer<typeof envSchema>): void {
  if (e.AUTH_SMS_PASSWORDLESS_ENABLED && !smsConfig(e).twilio)
    throw new ConfigError(
      'Invalid AUTH_SMS_PASSWORDLESS_ENABLED: in production SMS sign-in needs a provider (AUTH_SMS_TWILIO_ACCOUNT_SID, _AUTH_TOKEN and _MESSAGING_SERVICE_ID); without one the codes only reach DATA_DIR/outbox and the log',
    );
}

/**
 * ENCRYPTION_KEY (and the keys being retired), or the key file of the embedded mode; with
 * `create` false (a restore), none when that file does not exist yet rather than a new key.
 */
function encryptionKeysOf(e: z.infer<typeof envSchema>, databaseUrl: string | undefined, dataDir: string, create = true): string[] {
  const previous = (e.ENCRYPTION_KEY_PREVIOUS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (e.ENCRYPTION_KEY) return [e.ENCRYPTION_KEY, ...previous.filter((key) => key !== e.ENCRYPTION_KEY)];
  if (previous.length) throw new ConfigError('Missing ENCRYPTION_KEY: ENCRYPTION_KEY_PREVIOUS names keys being replaced by it');
  // Every instance on one PostgreSQL must open what the others sealed.
  if (databaseUrl) throw new ConfigError('Missing ENCRYPTION_KEY: it is required when DATABASE_URL is set');
  if (!create && !existsSync(encryptionKeyFile(dataDir))) return [];
  return keptKeys(dataDir);
}

const PROVIDER_NAME = /^[a-z][a-z0-9]{0,29}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const knownLabels: Record<string, string> = { google: 'Google', entra: 'Microsoft', microsoft: 'Microsoft' };
/** A host reached without TLS only on this machine (identity providers' http:// in tests). */
export const isLoopback = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/** AUTH_PROVIDERS and each provider's AUTH_PROVIDER_<NAME>_* (decision 029). */
function providersOf(env: NodeJS.ProcessEnv): AuthProvider[] {
  const read = (key: string) => env[key]?.trim() || undefined;
  const names = (read('AUTH_PROVIDERS') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!PROVIDER_NAME.test(name))
      throw new ConfigError(`Invalid AUTH_PROVIDERS: "${name}" is not a provider name (lower-case letters and digits, from a letter)`);
  }
  if (new Set(names).size !== names.length) throw new ConfigError('Invalid AUTH_PROVIDERS: a provider is named twice');
  // Settings of a provider left out of AUTH_PROVIDERS would be ignored without a word.
  for (const key of Object.keys(env)) {
    const match = key.match(/^AUTH_PROVIDER_([A-Z0-9]+)_(ISSUER|CLIENT_ID|CLIENT_SECRET|LABEL|EMAIL_DOMAINS|PROMPT)$/);
    if (match && read(key) && !names.includes(match[1]!.toLowerCase())) {
      throw new ConfigError(`Invalid ${key}: ${match[1]!.toLowerCase()} is not named in AUTH_PROVIDERS`);
    }
  }
  return names.map((name) => {
    const prefix = `AUTH_PROVIDER_${name.toUpperCase()}_`;
    const required = (setting: string) => {
      const value = read(prefix + setting);
      if (!value) throw new ConfigError(`Missing ${prefix}${setting}: provider ${name} is named in AUTH_PROVIDERS`);
      return value;
    };
    // Verbatim: the tokens' `iss` must equal it to the last slash.
    const issuer = required('ISSUER');
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw new ConfigError(`Invalid ${prefix}ISSUER: not a URL`);
    }
    // OpenID Connect Discovery needs https; plain http only to a provider on this machine.
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      throw new ConfigError(`Invalid ${prefix}ISSUER: must start with https://`);
    }
    if (url.search || url.hash || url.username) throw new ConfigError(`Invalid ${prefix}ISSUER: no query, fragment or user name`);
    const label = read(`${prefix}LABEL`) ?? knownLabels[name] ?? name.charAt(0).toUpperCase() + name.slice(1);
    if (label.length > 40) throw new ConfigError(`Invalid ${prefix}LABEL: at most 40 characters`);
    const domains = read(`${prefix}EMAIL_DOMAINS`)
      ?.split(',')
      .map((domain) => domain.trim().toLowerCase())
      .filter(Boolean);
    for (const domain of domains ?? []) {
      if (!DOMAIN.test(domain)) throw new ConfigError(`Invalid ${prefix}EMAIL_DOMAINS: "${domain}" is not a domain name`);
    }
    const prompt = read(`${prefix}PROMPT`) ?? 'login';
    if (prompt !== 'login' && prompt !== 'select_account' && prompt !== 'auto') {
      throw new ConfigError(`Invalid ${prefix}PROMPT: login, select_account or auto`);
    }
    return {
      name,
      issuer,
      clientId: required('CLIENT_ID'),
      clientSecret: required('CLIENT_SECRET'),
      label,
      emailDomains: domains?.length ? domains : null,
      prompt: prompt === 'auto' ? null : prompt,
    };
  });
}
