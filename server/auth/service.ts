// The authentication service: verbs over accounts, grants, refresh tokens and tickets.
// The HTTP routes (routes.ts) and, in process, the Astro pages call these.
import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { prepared } from '#server/db/prepared.ts';
import { challenges, grants, personalAccessTokens, refreshTokens, securityKeys, tickets, users } from '#server/db/schema/index.ts';
import { randomUUID } from 'node:crypto';
import { isUuid } from '#lib/ids.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { can } from '#lib/permissions.ts';
import { isRole } from '#lib/roles.ts';
import type { AuthMethods, Config } from '#server/config.ts';
import type { Mailer } from './mailer.ts';
import type { RateLimiter, SignInThrottle, Turns } from './rate-limit.ts';
import { hashPassword, passwordPolicyError, verifyPassword } from './passwords.ts';
import { createTokenIssuer, randomToken, sha256, successorToken, type AccessClaims } from './tokens.ts';

import type { MailKind } from './templates.ts';
import type { Vault } from './vault.ts';
import { endSessions } from './sessions.ts';
import { conflict, DomainError } from '#server/errors.ts';
import { recordEmailChange, recordPasswordChange, recordSignUp } from '#server/audit/auth-events.ts';
import { tokenNameOf } from '#lib/auth/tokens.ts';
import { createWayInAnnouncer } from './ways-in.ts';

const DAY = 86_400_000;
export const REFRESH_TOKEN_LIFETIME_MS = 30 * DAY;
export const ROTATION_GRACE_MS = 10_000;
/** A password sign-in this recent proves the user for a password change (the API's "sudo mode"). */
export const FRESH_SIGN_IN_MS = 5 * 60_000;
/** A sign-in unused this long ends (ASVS 7.3.1): a shift and more, not a terminal left for the night. */
export const IDLE_TIMEOUT_MS = 12 * 3_600_000;
/** Activity is written at most this often per sign-in. */
const ACTIVITY_WRITE_MS = 60_000;
/** A sign-in from a reset or set-password link proves the user for this long. */
const LINK_PROOF_MS = 3_600_000;

const TICKET_LIFETIME_MS: Record<TicketType, number> = {
  verifyEmail: 7 * DAY,
  passwordReset: 3_600_000,
  setPassword: 7 * DAY,
  emailConfirmChange: DAY,
  // A sign-in link is a password for its lifetime: short (decision 030).
  signinPasswordless: 15 * 60_000,
};

export type TicketType = 'verifyEmail' | 'passwordReset' | 'setPassword' | 'emailConfirmChange' | 'signinPasswordless';

/** The `type` of the /verify link and of its redirect, in hasura-auth's words. */
const linkTypes: Record<TicketType, string> = {
  verifyEmail: 'emailVerify',
  passwordReset: 'passwordReset',
  setPassword: 'setPassword',
  emailConfirmChange: 'emailConfirmChange',
  signinPasswordless: 'signinPasswordless',
};
export type UserRow = typeof users.$inferSelect;

/** The user object of hasura-auth's session and GET /user. */
export type AuthUser = {
  id: string;
  createdAt: string;
  displayName: string;
  avatarUrl: string;
  locale: string;
  email: string | null;
  isAnonymous: boolean;
  defaultRole: string;
  roles: string[];
  metadata: Record<string, unknown>;
  emailVerified: boolean;
  phoneNumber: string | null;
  phoneNumberVerified: boolean;
  activeMfaType: string | null;
};

export type Session = {
  accessToken: string;
  accessTokenExpiresIn: number;
  refreshToken: string;
  refreshTokenId: string;
  user: AuthUser;
};

/** hasura-auth's sign-in answer: a session, or the ticket the second factor's code redeems. */
export type SignInResult = { session: Session; mfa: null } | { session: null; mfa: { ticket: string } };

export const authErrors = {
  invalidEmailPassword: () => new DomainError('unauthenticated', 'invalid-email-password', 'Incorrect email or password'),
  unverifiedUser: () => new DomainError('unauthenticated', 'unverified-user', 'Email is not verified'),
  disabledUser: () => new DomainError('unauthenticated', 'disabled-user', 'User is disabled'),
  invalidRefreshToken: () => new DomainError('unauthenticated', 'invalid-refresh-token', 'Invalid or expired refresh token'),
  unauthenticated: () => new DomainError('unauthenticated', 'unauthenticated-user', 'User is not authenticated'),
  invalidTicket: () => new DomainError('unauthenticated', 'invalid-ticket', 'Invalid or expired ticket'),
  emailInUse: () => conflict('email-already-in-use', 'Email already in use'),
  // hasura-auth's words, as every other refusal of the API (SPEC §8): the screens say it in French.
  invalidPassword: () => new DomainError('invalid', 'invalid-password', 'Password is incorrectly formatted'),
  invalidCurrentPassword: () => new DomainError('invalid', 'invalid-current-password', 'The current password is incorrect'),
  proofRequired: () => new DomainError('forbidden', 'elevated-claim-required', 'The current password is required', { proof: 'password' }),
  redirectNotAllowed: () => new DomainError('invalid', 'redirectTo-not-allowed', 'The value of "options.redirectTo" is not allowed.'),
  roleNotAllowed: () => new DomainError('invalid', 'role-not-allowed', 'Role not allowed'),
  /** hasura-auth's answer for a method the configuration switched off. */
  disabledEndpoint: () => new DomainError('conflict', 'disabled-endpoint', 'This endpoint is disabled'),
  elevationRequired: () => new DomainError('forbidden', 'elevated-claim-required', 'The request requires the elevated claim', { proof: 'secondFactor' }),
  /** An account without password nor second factor: a sign-in of the last minutes is the proof (decision 048). */
  recentSignInRequired: () => new DomainError('forbidden', 'elevated-claim-required', 'A recent sign-in is required', { proof: 'signIn' }),
  /** A personal access token's sign-in is for scripts: it never manages the account (decision 048). */
  patSession: () => new DomainError('forbidden', 'forbidden-pat', 'A personal access token cannot manage the account'),
  /** SPEC §6: the mechanic's profile is read-only, their address included. */
  profileReadOnly: () => new DomainError('forbidden', 'forbidden', 'This account cannot change its e-mail'),
  invalidMfaTicket: () => new DomainError('unauthenticated', 'invalid-mfa-ticket', 'MFA ticket is invalid'),
  invalidPat: () => new DomainError('unauthenticated', 'invalid-pat', 'Invalid or expired personal access token'),
  pastExpiry: () => new DomainError('invalid', 'invalid-expiry', 'expiresAt must be in the future'),
};

/** Throttle key of personal access token sign-ins: guesses count per address (rate-limit.ts). */
const PAT_ACCOUNT = 'personal-access-token';

export function toAuthUser(u: UserRow): AuthUser {
  return {
    id: u.id,
    createdAt: u.createdAt.toISOString(),
    displayName: u.displayName,
    avatarUrl: u.avatarUrl,
    locale: u.locale,
    email: u.email,
    isAnonymous: u.isAnonymous,
    defaultRole: u.defaultRole,
    roles: [u.defaultRole],
    metadata: (u.metadata ?? {}) as Record<string, unknown>,
    emailVerified: u.emailVerified,
    phoneNumber: u.phoneNumber,
    phoneNumberVerified: u.phoneNumberVerified,
    activeMfaType: u.activeMfaType,
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

/** Who is calling, for the rate limits: the HTTP routes and the pages pass the client address. */
export type Caller = { ip: string };

/** An open sign-in and its account, as every request checks them. */
export type SessionRow = { user: UserRow; sessionId: string; method: string; createdAt: Date; lastUsedAt: Date; elevatedAt: Date | null };

/** What a change of a way in still lacks (decision 048). */
export type ProofKind = 'pat' | 'secondFactor' | 'password' | 'signIn';

/** A proof of the second factor this recent lets a sign-in do what step-up guards (item 7). */
export const ELEVATION_MS = 5 * 60_000;
/** Second-factor tickets (password given, code awaited) and ceremonies last this long. */
const MFA_TICKET_MS = 5 * 60_000;

/** One new ceremony in this many sweeps out the old ones. */
const CHALLENGE_SWEEP_RATE = 1 / 100;

const isElevated = (elevatedAt: Date | null | undefined) => !!elevatedAt && Date.now() - elevatedAt.getTime() < ELEVATION_MS;

export function createAuthService(deps: {
  db: Db;
  mailer: Mailer;
  publicUrl: string;
  jwtSecret: string;
  accessTokenExpiresIn: number;
  limiter: RateLimiter;
  limits: Config['rateLimits'];
  throttle: SignInThrottle;
  /** Second-factor guesses per user from every address: the slower ceiling (decision 052). */
  secondFactorCeiling: SignInThrottle;
  /** One check-and-count at a time per user, across instances (decision 053). */
  turns: Turns;
  /** Role given to self-registered accounts, which stay disabled until an admin enables them. */
  signUpRole?: string;
  methods: AuthMethods;
  /** Secrets at rest: sealed TOTP secrets and verifiers, keyed hashes of codes and tokens (decision 050). */
  vault: Vault;
}) {
  const { db, mailer, publicUrl, limiter, limits, throttle } = deps;
  const announceWayIn = createWayInAnnouncer({ mailer, publicUrl });
  const limitEmail = async (caller: Caller, address: string) => {
    await limiter.hit('email-ip', caller.ip, limits.emailPerIp);
    await limiter.hit('email-address', address.toLowerCase(), limits.emailPerAddress);
  };
  const issuer = createTokenIssuer({
    secret: deps.jwtSecret,
    issuer: `${publicUrl}/api/auth`,
    audience: publicUrl,
    expiresIn: deps.accessTokenExpiresIn,
  });
  const rotationSecret = `${deps.jwtSecret}:refresh`;

  const findUserByEmail = async (email: string) => (await db.select().from(users).where(eq(users.email, email.toLowerCase())).limit(1))[0];
  const findUserById = async (id: string) => (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];

  const claimsOf = (u: UserRow, sessionId: string, elevatedAt: Date | null): AccessClaims => ({
    userId: u.id,
    defaultRole: u.defaultRole,
    allowedRoles: [u.defaultRole],
    isAnonymous: u.isAnonymous,
    sessionId,
    elevated: isElevated(elevatedAt),
  });

  async function sessionFor(u: UserRow, refreshToken: string, refreshTokenId: string, grantId: string, elevatedAt: Date | null): Promise<Session> {
    return {
      accessToken: await issuer.sign(claimsOf(u, grantId, elevatedAt)),
      accessTokenExpiresIn: issuer.expiresIn,
      refreshToken,
      refreshTokenId,
      user: toAuthUser(u),
    };
  }

  /**
   * Opens a new grant (a sign-in, proved by `method`) and its first refresh token; `elevated`
   * when the proof included the second factor (a code, a security key).
   */
  async function startSession(u: UserRow, method = 'password', options: { elevated?: boolean } = {}): Promise<Session> {
    const token = randomToken();
    const elevatedAt = options.elevated ? new Date() : null;
    const { id, grantId } = await db.transaction(async (tx) => {
      const [grant] = await tx
        .insert(grants)
        .values({ userId: u.id, method, elevatedAt, expiresAt: new Date(Date.now() + REFRESH_TOKEN_LIFETIME_MS) })
        .returning({ id: grants.id });
      const [row] = await tx
        .insert(refreshTokens)
        .values({ grantId: grant!.id, tokenHash: sha256(token) })
        .returning({ id: refreshTokens.id });
      await tx.update(users).set({ lastSeen: new Date() }).where(eq(users.id, u.id));
      return { id: row!.id, grantId: grant!.id };
    });
    return sessionFor(u, token, id, grantId, elevatedAt);
  }

  /**
   * The end of a first factor: a session, or, when the user has an active second factor, an
   * MFA ticket (`mfaTotp:<uuid>`) that POST /signin/mfa/totp redeems with a code.
   */
  async function completeSignIn(u: UserRow, method: string): Promise<SignInResult> {
    if (deps.methods.totp && u.activeMfaType === 'totp') {
      const ticket = `mfaTotp:${randomUUID()}`;
      await createChallenge('mfaTotp', ticket, { userId: u.id, data: { method }, ttlMs: MFA_TICKET_MS });
      return { session: null, mfa: { ticket } };
    }
    return { session: await startSession(u, method), mfa: null };
  }

  /** Deletes the ceremonies over for a day; returns how many. */
  async function sweepChallenges(): Promise<number> {
    const gone = await db.delete(challenges).where(sql`${challenges.expiresAt} < now() - interval '1 day'`).returning({ id: challenges.id });
    return gone.length;
  }

  /** Keeps a ceremony's secret (a WebAuthn challenge, an OIDC state, an MFA ticket) hashed, for `ttlMs`. */
  async function createChallenge(kind: string, key: string, options: { userId?: string; data?: Record<string, unknown>; ttlMs: number }) {
    // Ceremonies a stranger may start (a sign-in's options): the table would only grow. Now and
    // then, those over for a day go (no job to schedule, on one instance or several).
    if (Math.random() < CHALLENGE_SWEEP_RATE) await sweepChallenges();
    await db.insert(challenges).values({
      kind,
      keyHash: sha256(key),
      userId: options.userId ?? null,
      data: options.data ?? {},
      expiresAt: new Date(Date.now() + options.ttlMs),
    });
  }

  /** The ceremony of `key`, marked used; undefined when unknown, used or expired. */
  async function consumeChallenge(kind: string, key: string) {
    const [row] = await db
      .update(challenges)
      .set({ usedAt: new Date() })
      .where(and(eq(challenges.kind, kind), eq(challenges.keyHash, sha256(key)), isNull(challenges.usedAt), sql`${challenges.expiresAt} > now()`))
      .returning();
    return row;
  }

  /**
   * Counts a wrong answer to a ceremony; at `max`, it is used up. True when it is (or was already):
   * a ceremony a right answer used meanwhile stays used (a late wrong code never revives it).
   */
  async function failChallenge(id: string, max: number): Promise<boolean> {
    const attempts = sql`coalesce((${challenges.data}->>'attempts')::int, 0) + 1`;
    const [row] = await db
      .update(challenges)
      .set({
        data: sql`jsonb_set(${challenges.data}, '{attempts}', to_jsonb(${attempts}))`,
        usedAt: sql`coalesce(${challenges.usedAt}, case when ${attempts} >= ${max} then now() end)`,
      })
      .where(and(eq(challenges.id, id), isNull(challenges.usedAt)))
      .returning({ usedAt: challenges.usedAt });
    return !row || row.usedAt !== null;
  }

  /** The ceremony of `key` while it holds, without using it (a wrong code may be tried again). */
  async function findChallenge(kind: string, key: string) {
    const [row] = await db
      .select()
      .from(challenges)
      .where(and(eq(challenges.kind, kind), eq(challenges.keyHash, sha256(key)), isNull(challenges.usedAt), sql`${challenges.expiresAt} > now()`))
      .limit(1);
    return row;
  }

  /**
   * The user's second factors among the methods switched on: the one answer the service, the
   * step-up screens and the dialogs rely on (a factor switched off neither asks nor proves).
   */
  async function secondFactorsOf(u: Pick<UserRow, 'id' | 'activeMfaType'>): Promise<{ totp: boolean; securityKey: boolean }> {
    const totp = deps.methods.totp && u.activeMfaType === 'totp';
    if (!deps.methods.webauthn) return { totp, securityKey: false };
    const [key] = await db.select({ id: securityKeys.id }).from(securityKeys).where(eq(securityKeys.userId, u.id)).limit(1);
    return { totp, securityKey: !!key };
  }

  /** Whether the user has a second factor: a TOTP app or a security key. */
  async function hasSecondFactor(u: Pick<UserRow, 'id' | 'activeMfaType'>): Promise<boolean> {
    const factors = await secondFactorsOf(u);
    return factors.totp || factors.securityKey;
  }

  /**
   * Step-up (issue 18, item 7): a dangerous action by a user with a second factor needs a proof
   * of it in the last five minutes (elevated-claim-required otherwise). A token's sign-in never
   * may (decision 048): it is for scripts, and an admin's leaked token must not plant ways into
   * other accounts whether or not the admin has a second factor.
   */
  async function requireElevated(session: SessionRow): Promise<void> {
    if (session.method === 'pat') throw authErrors.patSession();
    if (await needsElevation(session)) throw authErrors.elevationRequired();
  }

  /**
   * The sign-in's proof and the account's ways in, read afresh: a proof given earlier in the
   * same request (a code typed with the form) counts.
   */
  async function proofOf(session: SessionRow): Promise<{ proved: boolean; account: Pick<UserRow, 'id' | 'activeMfaType' | 'passwordHash'> }> {
    const account = { id: session.user.id, activeMfaType: session.user.activeMfaType, passwordHash: session.user.passwordHash };
    if (isElevated(session.elevatedAt)) return { proved: true, account };
    const [row] = await db
      .select({ elevatedAt: grants.elevatedAt, activeMfaType: users.activeMfaType, passwordHash: users.passwordHash })
      .from(grants)
      .innerJoin(users, eq(users.id, grants.userId))
      .where(eq(grants.id, session.sessionId))
      .limit(1);
    if (!row) return { proved: false, account };
    return { proved: isElevated(row.elevatedAt), account: { ...account, activeMfaType: row.activeMfaType, passwordHash: row.passwordHash } };
  }

  /** Whether a step-up guarded action from this sign-in would be refused now. */
  async function needsElevation(session: SessionRow): Promise<boolean> {
    if (session.method === 'pat') return true;
    const { proved, account } = await proofOf(session);
    return !proved && (await hasSecondFactor(account));
  }

  /**
   * What a change of a way in (e-mail, phone, password, second factor, key, token) from this
   * sign-in still lacks (decision 048): null when proved; 'pat' for a token's sign-in, which
   * never may; else the account's strongest factor, proved in the last five minutes: 'secondFactor'
   * (a code or a key), 'password' (the current password, or a password sign-in that recent), or,
   * for an account with neither, 'signIn' (any sign-in that recent: its link or code was the proof).
   */
  async function proofNeeded(session: SessionRow): Promise<ProofKind | null> {
    if (session.method === 'pat') return 'pat';
    const { proved, account } = await proofOf(session);
    if (proved) return null;
    if (await hasSecondFactor(account)) return 'secondFactor';
    const recent = Date.now() - session.createdAt.getTime() < FRESH_SIGN_IN_MS;
    if (account.passwordHash) return recent && session.method === 'password' ? null : 'password';
    return recent ? null : 'signIn';
  }

  /** Refuses a change of a way in that this sign-in has not proved (proofNeeded). */
  async function requireProof(session: SessionRow): Promise<void> {
    const missing = await proofNeeded(session);
    if (missing === 'pat') throw authErrors.patSession();
    if (missing === 'secondFactor') throw authErrors.elevationRequired();
    if (missing === 'password') throw authErrors.proofRequired();
    if (missing === 'signIn') throw authErrors.recentSignInRequired();
  }

  /** requireProof for the sign-in behind an API call (GraphQL's viewer). */
  async function requireProofSession(sessionId: string, userId: string): Promise<void> {
    const session = await openSession(sessionId, userId);
    if (!session) throw authErrors.unauthenticated();
    await requireProof(session);
  }

  /** Refuses a token's sign-in: for an action whose own form carries the proof (a TOTP code). */
  function refusePat(session: SessionRow): void {
    if (session.method === 'pat') throw authErrors.patSession();
  }

  /** refusePat for the sign-in behind an API call (GraphQL's viewer): told before the role or the proof. */
  async function refusePatSession(sessionId: string, userId: string): Promise<void> {
    const session = await openSession(sessionId, userId);
    if (!session) throw authErrors.unauthenticated();
    refusePat(session);
  }

  /**
   * The current password as proof (decision 048): for an account without a second factor, it
   * counts as a step-up for five minutes. Throttled as sign-in guesses are.
   */
  async function proveWithPassword(session: SessionRow, password: string, caller: Caller): Promise<void> {
    refusePat(session);
    const u = await requireActive(await findUserById(session.user.id));
    if (await hasSecondFactor(u)) throw authErrors.elevationRequired();
    if (!u.passwordHash) throw authErrors.invalidCurrentPassword();
    await checkCurrentPassword(u, password, caller);
    await elevate(session.sessionId);
  }

  /** The current password, from a sign-in that may be stolen: guesses throttled as sign-in guesses are. */
  async function checkCurrentPassword(u: Pick<UserRow, 'id' | 'passwordHash'>, password: string, caller: Caller): Promise<void> {
    await throttle.guess(
      `user:${u.id}`,
      caller.ip,
      async (wrong) => {
        if (!(await verifyPassword(u.passwordHash ?? undefined, password))) throw wrong(authErrors.invalidCurrentPassword());
      },
      { forgets: true },
    );
  }

  /** requireElevated for the sign-in behind an API call (GraphQL's viewer). */
  async function requireElevatedSession(sessionId: string, userId: string): Promise<void> {
    const session = await openSession(sessionId, userId);
    if (!session) throw authErrors.unauthenticated();
    await requireElevated(session);
  }

  /** Records a fresh proof of the second factor on an open sign-in. */
  async function elevate(sessionId: string): Promise<void> {
    await db.update(grants).set({ elevatedAt: new Date() }).where(eq(grants.id, sessionId));
  }

  /**
   * A fresh session for an open sign-in, its new refresh token heading the grant's family (the
   * earlier ones count as rotated): after a step-up the client takes this one, whose access
   * token carries the elevation.
   */
  async function renewSession(session: SessionRow): Promise<Session> {
    const token = randomToken();
    const { id, elevatedAt } = await db.transaction(async (tx) => {
      const [grant] = await tx.select({ elevatedAt: grants.elevatedAt }).from(grants).where(eq(grants.id, session.sessionId)).for('update').limit(1);
      await tx
        .update(refreshTokens)
        .set({ rotatedAt: new Date() })
        .where(and(eq(refreshTokens.grantId, session.sessionId), isNull(refreshTokens.rotatedAt)));
      const [row] = await tx
        .insert(refreshTokens)
        .values({ grantId: session.sessionId, tokenHash: sha256(token) })
        .returning({ id: refreshTokens.id });
      return { id: row!.id, elevatedAt: grant?.elevatedAt ?? null };
    });
    return sessionFor(session.user, token, id, session.sessionId, elevatedAt);
  }

  /** What an open sign-in reads: the account and the grant's times (`openSessions`, `openSession`). */
  const sessionColumns = {
    user: users,
    sessionId: grants.id,
    method: grants.method,
    createdAt: grants.createdAt,
    lastUsedAt: grants.lastUsedAt,
    elevatedAt: grants.elevatedAt,
  };

  /**
   * The open sign-ins among `sessionIds`, with their accounts: a revoked, expired or idle
   * grant, or a disabled account, is left out. One query, for a page, a bearer call or a
   * socket sweep.
   */
  async function openSessions(sessionIds: string[]): Promise<Map<string, SessionRow>> {
    const ids = [...new Set(sessionIds)].filter((id) => isUuid(id));
    if (!ids.length) return new Map();
    const idleSince = new Date(Date.now() - IDLE_TIMEOUT_MS);
    const rows = await db
      .select(sessionColumns)
      .from(grants)
      .innerJoin(users, eq(users.id, grants.userId))
      .where(
        and(inArray(grants.id, ids), isNull(grants.revokedAt), sql`${grants.expiresAt} > now()`, gt(grants.lastUsedAt, idleSince), eq(users.disabled, false)),
      );
    return new Map(rows.map((row) => [row.sessionId, row]));
  }

  /**
   * openSessions' query for one sign-in, the one every signed-in request asks: its SQL is built
   * once (building it again was as long as PGlite's running it, in the server's thread).
   */
  const openSessionQuery = prepared(() =>
    db
      .select(sessionColumns)
      .from(grants)
      .innerJoin(users, eq(users.id, grants.userId))
      .where(
        and(
          eq(grants.id, sql.placeholder('sessionId')),
          isNull(grants.revokedAt),
          sql`${grants.expiresAt} > now()`,
          gt(grants.lastUsedAt, sql.placeholder('idleSince')),
          eq(users.disabled, false),
        ),
      ),
  );

  /**
   * The account behind an open sign-in of `userId`, or undefined once it has ended. A request
   * is activity: it keeps the sign-in from going idle (written once a minute at most).
   */
  async function openSession(sessionId: string, userId: string): Promise<SessionRow | undefined> {
    if (!isUuid(sessionId)) return undefined;
    const idleSince = new Date(Date.now() - IDLE_TIMEOUT_MS);
    const [row] = await openSessionQuery().execute({ sessionId, idleSince: idleSince.toISOString() });
    if (row?.user.id !== userId) return undefined;
    if (Date.now() - row.lastUsedAt.getTime() > ACTIVITY_WRITE_MS) {
      await db.update(grants).set({ lastUsedAt: new Date() }).where(eq(grants.id, sessionId));
    }
    return row;
  }

  /** Whether a password change from this sign-in must first give the current password. */
  function needsCurrentPassword(session: SessionRow): boolean {
    if (!session.user.passwordHash) return false;
    const age = Date.now() - session.createdAt.getTime();
    return !((session.method === 'passwordReset' || session.method === 'setPassword') && age < LINK_PROOF_MS);
  }

  /** The e-mail link's target on PUBLIC_URL (one rule: safeRedirect); the default when absent. */
  function checkRedirect(redirectTo: string | undefined, fallback: string): string {
    if (!redirectTo) return `${publicUrl}${fallback}`;
    const target = safeRedirect(redirectTo, publicUrl);
    if (!target) throw authErrors.redirectNotAllowed();
    return target.href;
  }

  /**
   * A refresh token's row, its grant and its user, if it may still open a session: the one place
   * of the rules (grant revoked, expired or idle; user gone or disabled) that `refresh` and
   * `whoseRefreshToken` both apply, so neither can miss one. `lock` holds the rows for the
   * rotation's transaction (its user's too: the rotation writes `lastSeen` anyway).
   */
  async function liveRefreshToken(executor: Pick<Db, 'select'>, token: string, lock = false) {
    const query = executor
      .select({ id: refreshTokens.id, grantId: refreshTokens.grantId, rotatedAt: refreshTokens.rotatedAt, grant: grants, user: users })
      .from(refreshTokens)
      .innerJoin(grants, eq(grants.id, refreshTokens.grantId))
      .innerJoin(users, eq(users.id, grants.userId))
      .where(eq(refreshTokens.tokenHash, sha256(token)))
      .limit(1);
    const [found] = await (lock ? query.for('update') : query);
    const idle = found && Date.now() - found.grant.lastUsedAt.getTime() > IDLE_TIMEOUT_MS;
    if (!found || found.grant.revokedAt || found.grant.expiresAt.getTime() <= Date.now() || idle) return { kind: 'invalid' as const };
    if (found.user.disabled) return { kind: 'disabled' as const };
    const { user, ...row } = found;
    return { kind: 'live' as const, row, user };
  }

  async function createTicket(userId: string, type: TicketType, newEmail?: string, tx: Pick<Db, 'insert'> = db): Promise<{ ticket: string; expiresAt: Date }> {
    const ticket = `${type}:${randomToken()}`;
    const expiresAt = new Date(Date.now() + TICKET_LIFETIME_MS[type]);
    await tx.insert(tickets).values({ userId, type, tokenHash: sha256(ticket), newEmail: newEmail ?? null, expiresAt });
    return { ticket, expiresAt };
  }

  /** Marks a ticket used and returns it, or throws invalid-ticket. */
  async function consumeTicket(ticket: string, types: TicketType[]) {
    const [row] = await db
      .update(tickets)
      .set({ usedAt: new Date() })
      .where(and(eq(tickets.tokenHash, sha256(ticket)), inArray(tickets.type, types), isNull(tickets.usedAt), sql`${tickets.expiresAt} > now()`))
      .returning();
    if (!row) throw authErrors.invalidTicket();
    return row;
  }

  /** `then` adds to the ticket's transaction (another mail, the change it confirms). */
  async function mailTicket(
    u: UserRow,
    kind: MailKind,
    type: TicketType,
    redirectTo: string,
    to = u.email,
    newEmail?: string,
    then?: (tx: Pick<Db, 'insert' | 'update'>) => Promise<void>,
  ) {
    if (!to) throw authErrors.invalidTicket();
    // The ticket and its mail are one: both kept, or neither (the queue sends it, decision 049).
    await db.transaction(async (tx) => {
      const { ticket, expiresAt } = await createTicket(u.id, type, newEmail, tx);
      const link = new URL(`${publicUrl}/api/auth/verify`);
      link.searchParams.set('ticket', ticket);
      link.searchParams.set('type', linkTypes[type]);
      link.searchParams.set('redirectTo', redirectTo);
      await mailer.queue(tx, kind, to, { displayName: u.displayName, link: link.toString(), expiresAt });
      await then?.(tx);
    });
    mailer.nudge();
  }

  /**
   * A sign-in link of a user with TOTP: no session, the sign-in page's code step with the MFA
   * ticket (`mfaTicket`) and the page the link was for (decision 030).
   */
  function mfaLanding(target: URL, ticket: string, type: string): string {
    const landing = new URL(`${publicUrl}/sign-in`);
    landing.searchParams.set('mfaTicket', ticket);
    landing.searchParams.set('type', type);
    landing.searchParams.set('redirectTo', target.pathname + target.search);
    return landing.toString();
  }

  async function requireActive(u: UserRow | undefined): Promise<UserRow> {
    if (!u) throw authErrors.unauthenticated();
    if (u.disabled) throw authErrors.disabledUser();
    return u;
  }

  return {
    issuer,
    checkRedirect,
    methods: deps.methods,
    // What the method modules (mfa.ts, webauthn.ts, oidc.ts, passwordless.ts) build on.
    /** The role of self-registered accounts (disabled until an admin enables them). */
    signUpRole: deps.signUpRole ?? 'mechanic',
    mailTicket,
    db,
    mailer,
    announceWayIn,
    vault: deps.vault,
    limiter,
    limits,
    throttle,
    secondFactorCeiling: deps.secondFactorCeiling,
    turns: deps.turns,
    publicUrl,
    startSession,
    completeSignIn,
    createTicket,
    consumeTicket,
    createChallenge,
    consumeChallenge,
    findChallenge,
    failChallenge,
    sweepChallenges,
    hasSecondFactor,
    secondFactorsOf,
    requireElevated,
    needsElevation,
    requireElevatedSession,
    proofNeeded,
    requireProof,
    requireProofSession,
    refusePat,
    refusePatSession,
    proveWithPassword,
    elevate,
    renewSession,
    requireActive,

    async signInEmailPassword(email: string, password: string, caller: Caller): Promise<SignInResult> {
      if (!deps.methods.emailPassword) throw authErrors.disabledEndpoint();
      // Counted as a failure before the hash is checked (decision 053): a burst at one account
      // or many from one address gets no more than its free failures checked.
      const u = await throttle.guess(
        email,
        caller.ip,
        async (wrong) => {
          const found = await findUserByEmail(email);
          const ok = await verifyPassword(found?.passwordHash, password);
          if (!found || !ok) throw wrong(authErrors.invalidEmailPassword());
          return found;
        },
        { forgets: true },
      );
      if (u.disabled) throw authErrors.disabledUser();
      if (!u.emailVerified) throw authErrors.unverifiedUser();
      return completeSignIn(u, 'password');
    },

    /**
     * Self-registration: the account is created disabled with the least role, and a
     * verification e-mail is sent; an admin enables it. No session is returned.
     */
    async signUpEmailPassword(
      input: {
        email: string;
        password: string;
        displayName?: string;
        locale?: string;
        defaultRole?: string;
        redirectTo?: string;
      },
      caller: Caller,
    ): Promise<{ session: null }> {
      await limiter.hit('signup-ip', caller.ip, limits.signUpPerIp);
      // Passwords switched off (AUTH_EMAIL_PASSWORD_ENABLED=0): none is set, reset or registered.
      if (!deps.methods.emailPassword) throw authErrors.disabledEndpoint();
      await limitEmail(caller, input.email);
      const role = deps.signUpRole ?? 'mechanic';
      if (input.defaultRole && input.defaultRole !== role) throw authErrors.roleNotAllowed();
      if (passwordPolicyError(input.password)) throw authErrors.invalidPassword();
      const redirectTo = checkRedirect(input.redirectTo, '/sign-in');
      const email = input.email.toLowerCase();
      if (await findUserByEmail(email)) throw authErrors.emailInUse();
      const passwordHash = await hashPassword(input.password);
      const u = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values({
            email,
            displayName: input.displayName ?? email,
            locale: input.locale ?? 'fr',
            defaultRole: role,
            disabled: true,
            passwordHash,
          })
          .onConflictDoNothing()
          .returning();
        if (row) await recordSignUp(tx, row);
        return row;
      });
      if (!u) throw authErrors.emailInUse();
      await mailTicket(u, 'verifyEmail', 'verifyEmail', redirectTo);
      return { session: null };
    },

    /** Rotates a refresh token; see docs/decisions/002-refresh-token-rotation.md. */
    async refresh(token: string, caller: Caller): Promise<Session> {
      await limiter.hit('token-ip', caller.ip, limits.refreshPerIp);
      const outcome = await db.transaction(async (tx) => {
        const found = await liveRefreshToken(tx, token, true);
        if (found.kind !== 'live') return found;
        const { row, user: u } = found;
        if (!row.rotatedAt) {
          const next = successorToken(rotationSecret, token);
          const [created] = await tx
            .insert(refreshTokens)
            .values({ grantId: row.grantId, tokenHash: sha256(next) })
            .returning({ id: refreshTokens.id });
          await tx.update(refreshTokens).set({ rotatedAt: new Date() }).where(eq(refreshTokens.id, row.id));
          await tx.update(users).set({ lastSeen: new Date() }).where(eq(users.id, u.id));
          await tx.update(grants).set({ lastUsedAt: new Date() }).where(eq(grants.id, row.grantId));
          return { kind: 'ok' as const, user: u, token: next, id: created!.id, grantId: row.grantId, elevatedAt: row.grant.elevatedAt };
        }
        if (Date.now() - row.rotatedAt.getTime() <= ROTATION_GRACE_MS) {
          // A concurrent request already rotated this token: hand out the current head of the chain.
          let current = token;
          for (let step = 0; step < 32; step++) {
            current = successorToken(rotationSecret, current);
            const [head] = await tx
              .select({ id: refreshTokens.id, rotatedAt: refreshTokens.rotatedAt })
              .from(refreshTokens)
              .where(eq(refreshTokens.tokenHash, sha256(current)))
              .limit(1);
            if (!head) break;
            if (!head.rotatedAt) return { kind: 'ok' as const, user: u, token: current, id: head.id, grantId: row.grantId, elevatedAt: row.grant.elevatedAt };
          }
          return { kind: 'invalid' as const };
        }
        // Reuse of a rotated token outside the grace window: the token leaked, end the sign-in.
        await tx.update(grants).set({ revokedAt: new Date() }).where(eq(grants.id, row.grantId));
        return { kind: 'invalid' as const };
      });
      if (outcome.kind === 'disabled') throw authErrors.disabledUser();
      if (outcome.kind === 'invalid') throw authErrors.invalidRefreshToken();
      return sessionFor(outcome.user, outcome.token, outcome.id, outcome.grantId, outcome.elevatedAt);
    },

    /**
     * Whose sign-in a refresh token would open, without using it: the landing page names the
     * account before the user agrees to continue (decision 052). Null when it would not open one.
     */
    async whoseRefreshToken(token: string): Promise<{ id: string; displayName: string; email: string | null } | null> {
      const found = await liveRefreshToken(db, token);
      // A rotated token opens a session only in a concurrent refresh's grace: not a link's.
      if (found.kind !== 'live' || found.row.rotatedAt) return null;
      return { id: found.user.id, displayName: found.user.displayName, email: found.user.email };
    },

    /**
     * A link's session declined on its confirmation page (decision 052): its grant is revoked, so
     * the address left in the browser's history opens nothing. Only while the token has opened no
     * session (never rotated): a stale page declined afterwards ends nobody's sign-in.
     */
    async declineRefreshToken(token: string): Promise<void> {
      const found = await liveRefreshToken(db, token);
      if (found.kind !== 'live' || found.row.rotatedAt) return;
      await db
        .update(grants)
        .set({ revokedAt: new Date() })
        .where(and(eq(grants.id, found.row.grantId), isNull(grants.revokedAt)));
    },

    /** Revokes the grant of the refresh token (or the page's sign-in), or every grant of its user with `all`. */
    async signOut(input: { refreshToken?: string; sessionId?: string; all?: boolean; userId?: string }): Promise<void> {
      let userId = input.userId;
      let grantId = input.sessionId;
      if (input.refreshToken) {
        const [row] = await db
          .select({ grantId: refreshTokens.grantId, userId: grants.userId })
          .from(refreshTokens)
          .innerJoin(grants, eq(grants.id, refreshTokens.grantId))
          .where(eq(refreshTokens.tokenHash, sha256(input.refreshToken)))
          .limit(1);
        grantId = row?.grantId;
        userId ??= row?.userId;
      }
      if (input.all) {
        if (!userId) throw authErrors.unauthenticated();
        await endSessions(db, userId);
      } else if (grantId) {
        await db.update(grants).set({ revokedAt: new Date() }).where(eq(grants.id, grantId));
      }
    },

    /** hasura-auth's POST /pat: a token for the caller's scripts, shown this once. */
    async createPersonalAccessToken(
      session: SessionRow,
      input: { expiresAt: Date; metadata: Record<string, string | number> },
      caller: Caller,
    ): Promise<{ id: string; personalAccessToken: string }> {
      if (!deps.methods.personalAccessTokens) throw authErrors.disabledEndpoint();
      if (input.expiresAt.getTime() <= Date.now()) throw authErrors.pastExpiry();
      // A token outlives the sign-in that made it: a proof first (decision 048).
      await requireProof(session);
      const token = randomToken();
      const tokenHash = await deps.vault.hash(token);
      const id = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(personalAccessTokens)
          .values({ userId: session.user.id, tokenHash, metadata: input.metadata, expiresAt: input.expiresAt })
          .returning({ id: personalAccessTokens.id });
        await announceWayIn(tx, session.user, 'tokenCreated', { ip: caller.ip, name: tokenNameOf(input.metadata) });
        return row!.id;
      });
      mailer.nudge();
      return { id, personalAccessToken: token };
    },

    /** The user's tokens, newest first: what the tokens screen lists (never the tokens themselves). */
    async listPersonalAccessTokens(userId: string) {
      return db
        .select({
          id: personalAccessTokens.id,
          metadata: personalAccessTokens.metadata,
          createdAt: personalAccessTokens.createdAt,
          expiresAt: personalAccessTokens.expiresAt,
          revokedAt: personalAccessTokens.revokedAt,
          lastUsedAt: personalAccessTokens.lastUsedAt,
        })
        .from(personalAccessTokens)
        .where(eq(personalAccessTokens.userId, userId))
        .orderBy(sql`${personalAccessTokens.createdAt} desc`);
    },

    /**
     * Revokes one of the user's tokens: no new sign-in with it. The sign-ins it already opened
     * end with their grants, as any other (sign out everywhere, disabling the account).
     */
    async revokePersonalAccessToken(userId: string, id: string, caller: Caller): Promise<boolean> {
      if (!isUuid(id)) return false;
      const u = await findUserById(userId);
      if (!u) return false;
      const revoked = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(personalAccessTokens)
          .set({ revokedAt: new Date() })
          .where(and(eq(personalAccessTokens.id, id), eq(personalAccessTokens.userId, userId), isNull(personalAccessTokens.revokedAt)))
          .returning({ metadata: personalAccessTokens.metadata });
        if (row) await announceWayIn(tx, u, 'tokenRevoked', { ip: caller.ip, name: tokenNameOf(row.metadata) });
        return Boolean(row);
      });
      if (revoked) mailer.nudge();
      return revoked;
    },

    /** hasura-auth's POST /signin/pat: a new sign-in of the token's user, while the token holds. */
    async signInPersonalAccessToken(token: string, caller: Caller): Promise<Session> {
      if (!deps.methods.personalAccessTokens) throw authErrors.disabledEndpoint();
      // A right token gives its guess back but forgets no failure: one token of their own must
      // not buy an address more guesses at the others.
      const row = await throttle.guess(PAT_ACCOUNT, caller.ip, async (wrong) => {
        const [found] = await db
          .update(personalAccessTokens)
          .set({ lastUsedAt: new Date() })
          .where(
            and(
              eq(personalAccessTokens.tokenHash, await deps.vault.hash(token)),
              isNull(personalAccessTokens.revokedAt),
              sql`${personalAccessTokens.expiresAt} > now()`,
            ),
          )
          .returning({ userId: personalAccessTokens.userId });
        if (!found) throw wrong(authErrors.invalidPat());
        return found;
      });
      return startSession(await requireActive(await findUserById(row.userId)), 'pat');
    },

    /** The open sign-in behind a bearer token, or throws unauthenticated-user. */
    async authenticate(accessToken: string | undefined): Promise<SessionRow> {
      const claims = accessToken ? await issuer.verify(accessToken) : null;
      const session = claims ? await openSession(claims.sessionId, claims.userId) : undefined;
      if (!session) throw authErrors.unauthenticated();
      return session;
    },

    openSession,
    openSessions,
    /** The access token of an open sign-in, for the pages' in-process API calls and islands. */
    accessTokenFor: (session: SessionRow) => issuer.sign(claimsOf(session.user, session.sessionId, session.elevatedAt)),
    /** An admin's or the user's "sign out everywhere". */
    endSessions: (userId: string) => endSessions(db, userId),

    needsCurrentPassword,

    async getUser(userId: string): Promise<AuthUser> {
      return toAuthUser(await requireActive(await findUserById(userId)));
    },

    /** Always succeeds for an unknown address, so the answer reveals nothing. */
    async requestPasswordReset(email: string, redirectTo: string | undefined, caller: Caller): Promise<void> {
      // Passwords switched off (AUTH_EMAIL_PASSWORD_ENABLED=0): none is set, reset or registered.
      if (!deps.methods.emailPassword) throw authErrors.disabledEndpoint();
      await limitEmail(caller, email);
      const target = checkRedirect(redirectTo, '/set-password');
      const u = await findUserByEmail(email);
      if (!u || u.disabled) return mailer.queueNothing();
      await mailTicket(u, 'passwordReset', 'passwordReset', target);
    },

    /** The "set your password" e-mail of a new account created by an admin. */
    async sendSetPasswordEmail(userId: string, redirectTo?: string): Promise<void> {
      const u = await requireActive(await findUserById(userId));
      await mailTicket(u, 'setPassword', 'setPassword', checkRedirect(redirectTo, '/set-password'));
    },

    /** The users screen's "resend": the set-password e-mail while the account has no password. */
    async resendAccountEmail(userId: string): Promise<void> {
      const u = await requireActive(await findUserById(userId));
      if (!u.passwordHash) await mailTicket(u, 'setPassword', 'setPassword', checkRedirect(undefined, '/set-password'));
      else await mailTicket(u, 'verifyEmail', 'verifyEmail', checkRedirect(undefined, '/sign-in'));
    },

    async sendVerificationEmail(email: string, redirectTo: string | undefined, caller: Caller): Promise<void> {
      await limitEmail(caller, email);
      const target = checkRedirect(redirectTo, '/sign-in');
      const u = await findUserByEmail(email);
      if (!u || u.emailVerified) return mailer.queueNothing();
      await mailTicket(u, 'verifyEmail', 'verifyEmail', target);
    },

    /**
     * Asks for a new address: it takes effect only from the link sent to it (verify), and the
     * current address is told, so a stolen session cannot quietly take the account over.
     */
    async changeEmail(userId: string, newEmail: string, redirectTo: string | undefined, caller: Caller, session?: SessionRow): Promise<void> {
      // The user's own change: a token's sign-in manages nothing, whatever its role (decision 048),
      // and that is said first; who may not edit their profile may not change its address either
      // (SPEC §6, as users.update); then the account is proved. An admin's was stepped up by users.update.
      if (session) {
        refusePat(session);
        const role = session.user.defaultRole;
        if (!isRole(role) || !can(role, 'editOwnProfile')) throw authErrors.profileReadOnly();
        await requireProof(session);
      }
      await limitEmail(caller, newEmail);
      const target = checkRedirect(redirectTo, '/profile');
      const u = await requireActive(await findUserById(userId));
      const email = newEmail.toLowerCase();
      if (await findUserByEmail(email)) throw authErrors.emailInUse();
      await mailTicket(u, 'emailConfirmChange', 'emailConfirmChange', target, email, email, async (tx) => {
        await tx.update(users).set({ newEmail: email, updatedAt: new Date() }).where(eq(users.id, u.id));
        // An account without an address (reached by phone) has no one to tell.
        if (u.email)
          await mailer.queue(tx, 'emailChangeNotice', u.email, {
            displayName: u.displayName,
            link: `${publicUrl}/sign-in?view=forgot-password`,
            newEmail: email,
          });
      });
    },

    /**
     * With a ticket (reset by e-mail: every sign-in ends), or for a signed-in user with proof
     * (the current password, a reset link's sign-in, or a password sign-in of the last five
     * minutes): every other sign-in of the user ends.
     */
    async changePassword(input: { newPassword: string; ticket?: string; session?: SessionRow; currentPassword?: string }, caller: Caller): Promise<void> {
      // Passwords switched off (AUTH_EMAIL_PASSWORD_ENABLED=0): none is set, reset or registered.
      if (!deps.methods.emailPassword) throw authErrors.disabledEndpoint();
      if (input.ticket) await limiter.hit('ticket-ip', caller.ip, limits.ticketPerIp);
      if (passwordPolicyError(input.newPassword)) throw authErrors.invalidPassword();
      let userId: string;
      let keep: string | undefined;
      if (input.ticket) {
        userId = (await consumeTicket(input.ticket, ['passwordReset', 'setPassword'])).userId;
      } else if (input.session) {
        const { user, sessionId } = input.session;
        userId = user.id;
        keep = sessionId;
        refusePat(input.session);
        // An account with a second factor proves it too: its password alone is not the strongest.
        await requireElevated(input.session);
        if (input.currentPassword !== undefined) {
          await checkCurrentPassword(user, input.currentPassword, caller);
        } else {
          const fresh = input.session.method === 'password' && Date.now() - input.session.createdAt.getTime() < FRESH_SIGN_IN_MS;
          // A password proved on its own (/elevate/password) in the last minutes counts too.
          if (!fresh && needsCurrentPassword(input.session) && (await proofNeeded(input.session))) throw authErrors.proofRequired();
          // A first password is a new way in: an account without one proves a recent sign-in.
          if (!input.session.user.passwordHash) await requireProof(input.session);
        }
      } else {
        throw authErrors.unauthenticated();
      }
      const account = await requireActive(await findUserById(userId));
      const passwordHash = await hashPassword(input.newPassword);
      await db.transaction(async (tx) => {
        await tx.update(users).set({ passwordHash, emailVerified: true, updatedAt: new Date() }).where(eq(users.id, userId));
        await recordPasswordChange(tx, userId);
        // A reset link too: whoever holds the mailbox could have followed it.
        await announceWayIn(tx, account, 'passwordChanged', { ip: caller.ip }, { audit: false });
        await endSessions(tx, userId, keep);
        // A reset link proves the user once: further changes from this sign-in need the password.
        if (keep) await tx.update(grants).set({ method: 'password' }).where(eq(grants.id, keep));
      });
      mailer.nudge();
    },

    /**
     * The e-mail link: consumes the ticket, applies it and signs the user in. Returns where
     * to redirect; errors go back to the redirect target as `error` and `errorDescription`.
     */
    async verify(input: { ticket: string; type?: string; redirectTo?: string }, caller: Caller): Promise<string> {
      await limiter.hit('ticket-ip', caller.ip, limits.ticketPerIp);
      const target = new URL(checkRedirect(input.redirectTo, '/repair-orders'));
      try {
        // A sign-in link stops working as soon as its method is switched off.
        const types = (Object.keys(linkTypes) as TicketType[]).filter(
          (t) => (!input.type || linkTypes[t] === input.type) && (t !== 'signinPasswordless' || deps.methods.emailLink),
        );
        const row = await consumeTicket(input.ticket, types);
        const u = await requireActive(await findUserById(row.userId));
        if (row.type === 'signinPasswordless') {
          // The link proves the address, like hasura-auth's; with TOTP on, the code is still asked.
          await db.update(users).set({ emailVerified: true, updatedAt: new Date() }).where(eq(users.id, u.id));
          const result = await completeSignIn((await findUserById(u.id))!, 'signinPasswordless');
          if (result.mfa) return mfaLanding(target, result.mfa.ticket, linkTypes.signinPasswordless);
          target.searchParams.set('refreshToken', result.session.refreshToken);
          target.searchParams.set('type', linkTypes.signinPasswordless);
          return target.toString();
        }
        if (row.type === 'emailConfirmChange') {
          const email = row.newEmail!;
          const taken = await findUserByEmail(email);
          if (taken && taken.id !== u.id) throw authErrors.emailInUse();
          await db.transaction(async (tx) => {
            // Only the change still pending: a later request, or a confirmed one, voids earlier links
            // (a typo's mailbox must not take the account once the right address is confirmed).
            const changed = await tx
              .update(users)
              .set({ email, newEmail: null, emailVerified: true, updatedAt: new Date() })
              .where(and(eq(users.id, u.id), eq(users.newEmail, email)))
              .returning({ id: users.id });
            if (!changed.length) throw authErrors.invalidTicket();
            await recordEmailChange(tx, u, email);
          });
        } else {
          await db.update(users).set({ emailVerified: true, updatedAt: new Date() }).where(eq(users.id, u.id));
        }
        // A link proves the mailbox, not the second factor: with TOTP on, the code is asked first.
        target.searchParams.set('type', linkTypes[row.type as TicketType]);
        const result = await completeSignIn((await findUserById(u.id))!, row.type);
        if (result.mfa) return mfaLanding(target, result.mfa.ticket, linkTypes[row.type as TicketType]);
        target.searchParams.set('refreshToken', result.session.refreshToken);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        target.searchParams.set('error', error.reason);
        target.searchParams.set('errorDescription', error.message);
      }
      return target.toString();
    },

    findUserByEmail,
    findUserById,
  };
}
