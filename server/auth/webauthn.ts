// Security keys (WebAuthn, issue 18 item 2; decision 028): sign-up, sign-in (also the browser's
// autofill), adding a key, and step-up, with hasura-auth's paths and bodies. Each ceremony's
// challenge waits in auth.challenges (single use, five minutes); the browser's answer names it in
// its clientDataJSON, and @simplewebauthn/server checks the rest (origin, RP id, signature).
import { randomUUID } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { COSEALG, decodeClientDataJSON, isoBase64URL, isoUint8Array } from '@simplewebauthn/server/helpers';
import { and, asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { securityKeys, users } from '#server/db/schema/index.ts';
import { recordSignUp } from '#server/audit/auth-events.ts';
import { conflict, DomainError, notFound } from '#server/errors.ts';
import { authOptionsShape, email, redirectTo } from './inputs.ts';
import { hasReason } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import { authErrors, type AuthService, type Caller, type Session, type SessionRow } from './service.ts';

/** A ceremony's challenge lives this long; the browser's own timeout is shorter. */
const CHALLENGE_MS = 5 * 60_000;
const CEREMONY_TIMEOUT_MS = 120_000;
/** Throttle key of failed security-key proofs: counted per address, as PAT guesses are. */
const THROTTLE_ACCOUNT = 'security-key';
/**
 * The library's defaults without ML-DSA, which Node's Web Crypto offers only as an experiment
 * (and a warning on stderr); every key on the market speaks one of these.
 */
const ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];

type Kind = 'webauthn-signup' | 'webauthn-signin' | 'webauthn-add' | 'webauthn-elevate';

export const webauthnErrors = {
  /** An unknown credential, or one of another account than the ceremony's. */
  invalidSecurityKey: () => new DomainError('unauthenticated', 'invalid-webauthn-security-key', 'Invalid WebAuthn security key'),
  /** No such ceremony (unknown, used or expired challenge), or a response that does not check out. */
  invalidVerification: () => new DomainError('unauthenticated', 'invalid-webauthn-verification', 'Invalid WebAuthn verification'),
  previouslyRegistered: () => conflict('webauthn-authenticator-previously-registered', 'This security key is already registered'),
  otherUser: () => new DomainError('invalid', 'invalid-request', "The e-mail is not the signed-in user's"),
};

// The credential of SPEC §7.1, as @simplewebauthn/browser and PublicKeyCredential.toJSON() give
// it. Only `platform` and `cross-platform` attachments; absent when the browser does not tell.
const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'base64url');
const credentialBase = {
  id: base64url(1366),
  rawId: base64url(1366),
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).nullish(),
};
export const registrationCredential = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(65_536),
    authenticatorData: base64url(16_384).optional(),
    transports: z
      .array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']))
      .max(8)
      .optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(8192).optional(),
  }),
});
export const authenticationCredential = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(16_384),
    signature: base64url(2048),
    userHandle: base64url(128).nullish(),
  }),
});

const nickname = z.string().trim().min(1).max(80);

// hasura-auth's sign-up options, as /signup/email-password takes them.
const signUpOptions = z.strictObject({ ...authOptionsShape, nickname: nickname.optional() }).optional();

export const webauthnBodies = {
  signUp: z.strictObject({ email, options: signUpOptions }),
  signUpVerify: z.strictObject({
    credential: registrationCredential,
    nickname: nickname.optional(),
    options: z
      .strictObject({
        redirectTo,
        nickname: nickname.optional(),
        displayName: z.string().trim().max(120).optional(),
        metadata: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  }),
  signIn: z.strictObject({ email: email.optional() }),
  signInVerify: z.strictObject({ email: email.optional(), credential: authenticationCredential }),
  add: z.strictObject({}),
  addVerify: z.strictObject({ credential: registrationCredential, nickname: nickname.optional() }),
  elevate: z.strictObject({ email: email.optional() }),
  elevateVerify: z.strictObject({ email: email.optional(), credential: authenticationCredential }),
};

export type RegistrationCredential = z.infer<typeof registrationCredential>;
export type AuthenticationCredential = z.infer<typeof authenticationCredential>;

/** A key as its owner's list shows it. */
export type SecurityKey = { id: string; nickname: string | null; createdAt: Date; lastUsedAt: Date | null };

export type WebauthnService = ReturnType<typeof createWebauthnService>;

/** The user handle of an account: the UTF-8 bytes of its id (SPEC §5: 1 to 64 bytes). */
const userHandleOf = (userId: string) => isoUint8Array.fromUTF8String(userId);

export function createWebauthnService(deps: { auth: AuthService; rp: { rpId: string; rpName: string }; origin: string }) {
  const { auth, rp, origin } = deps;
  const { db } = auth;

  /** The challenge the browser signed, read from its clientDataJSON; the ceremony it names, used. */
  async function takeCeremony(kind: Kind, clientDataJSON: string) {
    let challenge: string;
    try {
      challenge = decodeClientDataJSON(clientDataJSON).challenge;
    } catch {
      throw webauthnErrors.invalidVerification();
    }
    if (typeof challenge !== 'string' || !challenge) throw webauthnErrors.invalidVerification();
    const row = await auth.consumeChallenge(kind, challenge);
    if (!row) throw webauthnErrors.invalidVerification();
    return { row, challenge };
  }

  /**
   * Failed proofs slow the address down (rate-limit.ts), as wrong passwords do: counted before
   * the proof is checked, kept when it is found invalid. `forgets`: a right one proves the owner.
   */
  function throttled<T>(caller: Caller, run: () => Promise<T>, options: { forgets?: boolean } = {}): Promise<T> {
    return auth.throttle.guess(
      THROTTLE_ACCOUNT,
      caller.ip,
      async (wrong) => {
        try {
          return await run();
        } catch (error) {
          throw error instanceof DomainError && hasReason(error, 'invalid-webauthn-security-key', 'invalid-webauthn-verification') ? wrong(error) : error;
        }
      },
      options,
    );
  }

  const limitCeremonies = (caller: Caller) => auth.limiter.hit('webauthn-ip', caller.ip, auth.limits.ticketPerIp);

  async function keysOf(userId: string) {
    return db.select().from(securityKeys).where(eq(securityKeys.userId, userId)).orderBy(asc(securityKeys.createdAt));
  }

  const descriptors = (keys: (typeof securityKeys.$inferSelect)[]) =>
    keys.map((key) => ({ id: key.credentialId, transports: key.transports ? key.transports.split(',') : undefined }));

  async function registrationOptions(
    kind: Kind,
    user: { id: string; email: string; displayName: string },
    exclude: { id: string; transports?: string[] }[],
    data: Record<string, unknown>,
  ) {
    const options = await generateRegistrationOptions({
      rpName: rp.rpName,
      rpID: rp.rpId,
      userName: user.email,
      userID: userHandleOf(user.id),
      userDisplayName: user.displayName || user.email,
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: exclude,
      // A key alone signs in (no password): it must check who holds it (PIN, fingerprint).
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await auth.createChallenge(kind, options.challenge, { userId: kind === 'webauthn-signup' ? undefined : user.id, data, ttlMs: CHALLENGE_MS });
    return options;
  }

  async function verifyRegistration(credential: RegistrationCredential, challenge: string) {
    try {
      const result = await verifyRegistrationResponse({
        response: credential as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rp.rpId,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (!result.verified) throw webauthnErrors.invalidVerification();
      return result.registrationInfo.credential;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw webauthnErrors.invalidVerification();
    }
  }

  const rowOf = (userId: string, credential: Awaited<ReturnType<typeof verifyRegistration>>, name: string | undefined) => ({
    userId,
    credentialId: credential.id,
    credentialPublicKey: isoBase64URL.fromBuffer(credential.publicKey),
    counter: credential.counter,
    transports: (credential.transports ?? []).join(','),
    nickname: name ?? null,
  });

  async function authenticationOptions(
    kind: Kind,
    userId: string | undefined,
    allow: { id: string; transports?: string[] }[] | undefined,
    data: Record<string, unknown> = {},
  ) {
    const options = await generateAuthenticationOptions({ rpID: rp.rpId, allowCredentials: allow, timeout: CEREMONY_TIMEOUT_MS, userVerification: 'required' });
    await auth.createChallenge(kind, options.challenge, { userId, data, ttlMs: CHALLENGE_MS });
    return options;
  }

  /**
   * Checks an assertion against the stored key of its credential id and moves the key's counter
   * forward; `userId` when the ceremony was for one account. Returns the key's owner id.
   */
  async function verifyAssertion(
    kind: Kind,
    credential: AuthenticationCredential,
    expectUserId?: (row: { userId: string | null; data: unknown }) => string | undefined,
  ) {
    const { row, challenge } = await takeCeremony(kind, credential.response.clientDataJSON);
    const [key] = await db.select().from(securityKeys).where(eq(securityKeys.credentialId, credential.id)).limit(1);
    if (!key) throw webauthnErrors.invalidSecurityKey();
    const expected = expectUserId ? expectUserId(row) : (row.userId ?? undefined);
    if (expected && expected !== key.userId) throw webauthnErrors.invalidSecurityKey();
    // A discoverable credential names its account: it must be the key's.
    if (credential.response.userHandle && isoUint8Array.toUTF8String(isoBase64URL.toBuffer(credential.response.userHandle)) !== key.userId) {
      throw webauthnErrors.invalidSecurityKey();
    }
    let newCounter: number;
    try {
      const result = await verifyAuthenticationResponse({
        response: credential as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rp.rpId,
        credential: {
          id: key.credentialId,
          publicKey: isoBase64URL.toBuffer(key.credentialPublicKey),
          counter: key.counter,
          transports: key.transports ? (key.transports.split(',') as never) : undefined,
        },
        requireUserVerification: true,
      });
      if (!result.verified) throw webauthnErrors.invalidVerification();
      newCounter = result.authenticationInfo.newCounter;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // Signature, origin, RP id, user verification, or a counter gone backwards (a cloned key).
      throw webauthnErrors.invalidVerification();
    }
    // Two uses racing with the same counter: only one moves it.
    const [moved] = await db
      .update(securityKeys)
      .set({ counter: newCounter, lastUsedAt: new Date() })
      .where(and(eq(securityKeys.id, key.id), newCounter === 0 ? sql`${securityKeys.counter} = 0` : sql`${securityKeys.counter} < ${newCounter}`))
      .returning({ id: securityKeys.id });
    if (!moved) throw webauthnErrors.invalidVerification();
    return key.userId;
  }

  /** A key's account, as sign-in wants it: enabled and with a verified address. */
  async function signInUser(userId: string) {
    const user = await auth.requireActive(await auth.findUserById(userId));
    if (!user.emailVerified) throw authErrors.unverifiedUser();
    return user;
  }

  /** Elevation is the signed-in user's; hasura-auth names them by e-mail too. */
  function checkOwnEmail(session: SessionRow, given: string | undefined) {
    if (given && given.toLowerCase() !== session.user.email) throw webauthnErrors.otherUser();
  }

  /** A key's answer to this sign-in's elevation ceremony: the sign-in is elevated (pages: no new token). */
  async function proveKey(session: SessionRow, input: { credential: AuthenticationCredential; email?: string }, caller: Caller): Promise<void> {
    auth.refusePat(session);
    checkOwnEmail(session, input.email);
    await throttled(
      caller,
      async () => {
        await verifyAssertion('webauthn-elevate', input.credential, (row) => {
          // A ceremony begun in another sign-in does not elevate this one.
          if (row.userId !== session.user.id || (row.data as { sessionId?: string }).sessionId !== session.sessionId)
            throw webauthnErrors.invalidVerification();
          return session.user.id;
        });
        await auth.elevate(session.sessionId);
      },
      { forgets: true },
    );
  }

  return {
    /**
     * POST /signup/webauthn: self-registration with a key, no password. Refused as e-mail and
     * password sign-up refuses (address taken, another role, a foreign redirect).
     */
    async signUpOptions(input: z.infer<typeof webauthnBodies.signUp>, caller: Caller) {
      await auth.limiter.hit('signup-ip', caller.ip, auth.limits.signUpPerIp);
      const options = input.options ?? {};
      if (options.defaultRole && options.defaultRole !== auth.signUpRole) throw authErrors.roleNotAllowed();
      const target = auth.checkRedirect(options.redirectTo, '/sign-in');
      const address = input.email.toLowerCase();
      if (await auth.findUserByEmail(address)) throw authErrors.emailInUse();
      const userId = randomUUID();
      const displayName = options.displayName || address;
      return registrationOptions('webauthn-signup', { id: userId, email: address, displayName }, [], {
        userId,
        email: address,
        displayName,
        locale: options.locale ?? 'fr',
        redirectTo: target,
        nickname: options.nickname ?? null,
      });
    },

    /**
     * POST /signup/webauthn/verify: the account, disabled with the least role until an admin
     * enables it (as with a password), its first key, and the verification e-mail. No session.
     */
    async signUp(input: z.infer<typeof webauthnBodies.signUpVerify>, caller: Caller): Promise<{ session: null }> {
      return throttled(caller, async () => {
        const { row, challenge } = await takeCeremony('webauthn-signup', input.credential.response.clientDataJSON);
        const data = row.data as { userId: string; email: string; displayName: string; locale: string; redirectTo: string; nickname: string | null };
        const credential = await verifyRegistration(input.credential, challenge);
        const given = input.options?.displayName;
        const redirect = input.options?.redirectTo ? auth.checkRedirect(input.options.redirectTo, '/sign-in') : data.redirectTo;
        await db.transaction(async (tx) => {
          if (
            await tx
              .select({ id: securityKeys.id })
              .from(securityKeys)
              .where(eq(securityKeys.credentialId, credential.id))
              .limit(1)
              .then((r) => r[0])
          ) {
            throw webauthnErrors.previouslyRegistered();
          }
          const [user] = await tx
            .insert(users)
            .values({
              id: data.userId,
              email: data.email,
              displayName: given || data.displayName,
              locale: data.locale,
              defaultRole: auth.signUpRole,
              disabled: true,
            })
            .onConflictDoNothing()
            .returning();
          if (!user) throw authErrors.emailInUse();
          await recordSignUp(tx, user);
          await tx.insert(securityKeys).values(rowOf(user.id, credential, input.nickname ?? input.options?.nickname ?? data.nickname ?? undefined));
        });
        await auth.sendVerificationEmail(data.email, redirect, caller);
        return { session: null };
      });
    },

    /**
     * POST /signin/webauthn: with an e-mail, the keys of that account (none for an unknown
     * address: its ceremony fails at verify, as hasura-auth's would not say more); without, any
     * key of this site that knows its account (the autofill form).
     */
    async signInOptions(address: string | undefined, caller: Caller) {
      await limitCeremonies(caller);
      if (!address) return authenticationOptions('webauthn-signin', undefined, undefined);
      const user = await auth.findUserByEmail(address);
      const keys = user ? await keysOf(user.id) : [];
      return authenticationOptions('webauthn-signin', user?.id, descriptors(keys), { email: address.toLowerCase() });
    },

    /** POST /signin/webauthn/verify: a session, elevated (a key is a second factor by itself). */
    async signIn(input: { credential: AuthenticationCredential; email?: string }, caller: Caller): Promise<Session> {
      return throttled(
        caller,
        async () => {
          const userId = await verifyAssertion('webauthn-signin', input.credential, (row) => {
            const asked = (row.data as { email?: string }).email;
            // Options for an address that has no account carry none: no key can answer them.
            if (asked && !row.userId) throw webauthnErrors.invalidSecurityKey();
            if (input.email && asked && input.email.toLowerCase() !== asked) throw webauthnErrors.invalidSecurityKey();
            return row.userId ?? undefined;
          });
          const user = await signInUser(userId);
          if (input.email && user.email !== input.email.toLowerCase()) throw webauthnErrors.invalidSecurityKey();
          return auth.startSession(user, 'webauthn', { elevated: true });
        },
        { forgets: true },
      );
    },

    /** POST /user/webauthn/add: a new key for the signed-in user, never one already registered. */
    async addOptions(session: SessionRow, caller: Caller) {
      // A token's sign-in is told so before any limit (decision 048).
      auth.refusePat(session);
      await limitCeremonies(caller);
      // A stolen sign-in must not plant a lasting way in: the strongest factor first (decision 048).
      await auth.requireProof(session);
      const { user } = session;
      return registrationOptions(
        'webauthn-add',
        { id: user.id, email: user.email ?? user.id, displayName: user.displayName },
        descriptors(await keysOf(user.id)),
        {},
      );
    },

    /** POST /user/webauthn/verify: the key is the user's from now on. */
    async addSecurityKey(session: SessionRow, input: { credential: RegistrationCredential; nickname?: string }, caller: Caller) {
      await auth.requireProof(session);
      const hadFactor = await auth.hasSecondFactor((await auth.findUserById(session.user.id)) ?? session.user);
      return throttled(caller, async () => {
        const { row, challenge } = await takeCeremony('webauthn-add', input.credential.response.clientDataJSON);
        if (row.userId !== session.user.id) throw webauthnErrors.invalidVerification();
        const credential = await verifyRegistration(input.credential, challenge);
        const key = await db.transaction(async (tx) => {
          const [row] = await tx
            .insert(securityKeys)
            .values(rowOf(session.user.id, credential, input.nickname))
            .onConflictDoNothing()
            .returning({ id: securityKeys.id, nickname: securityKeys.nickname });
          if (!row) throw webauthnErrors.previouslyRegistered();
          await auth.announceWayIn(tx, session.user, 'securityKeyAdded', { ip: caller.ip, name: row.nickname ?? t('securityKeys.unnamed') });
          return row;
        });
        auth.mailer.nudge();
        // The first factor, just proved by its ceremony, elevates the sign-in as TOTP's first code does.
        if (!hadFactor) await auth.elevate(session.sessionId);
        return key;
      });
    },

    /** POST /elevate/webauthn: a proof of one of the signed-in user's keys, for step-up. */
    async elevateOptions(session: SessionRow, address: string | undefined, caller: Caller) {
      auth.refusePat(session);
      await limitCeremonies(caller);
      checkOwnEmail(session, address);
      const keys = await keysOf(session.user.id);
      return authenticationOptions('webauthn-elevate', session.user.id, descriptors(keys), { sessionId: session.sessionId });
    },

    /** POST /elevate/webauthn/verify: this sign-in is elevated; its new session carries the claim. */
    async elevate(session: SessionRow, input: { credential: AuthenticationCredential; email?: string }, caller: Caller): Promise<Session> {
      await proveKey(session, input, caller);
      return auth.renewSession(session);
    },

    proveKey,

    /** The user's keys, oldest first, for their security page. */
    async listSecurityKeys(userId: string): Promise<SecurityKey[]> {
      return (await keysOf(userId)).map(({ id, nickname, createdAt, lastUsedAt }) => ({ id, nickname, createdAt, lastUsedAt }));
    },

    async renameSecurityKey(userId: string, keyId: string, name: string): Promise<void> {
      const parsed = nickname.safeParse(name);
      if (!parsed.success) throw new DomainError('invalid', 'invalid-request', 'Invalid nickname', { fields: { nickname: 'invalid' } });
      const [row] = await db
        .update(securityKeys)
        .set({ nickname: parsed.data })
        .where(and(eq(securityKeys.id, keyId), eq(securityKeys.userId, userId)))
        .returning({ id: securityKeys.id });
      if (!row) throw notFound('No such security key');
    },

    /** The key stops working at once (after a step-up: removing a factor weakens it); a key of another user is not found. */
    async removeSecurityKey(session: SessionRow, keyId: string, caller: Caller): Promise<void> {
      await auth.requireProof(session);
      await db.transaction(async (tx) => {
        const [row] = await tx
          .delete(securityKeys)
          .where(and(eq(securityKeys.id, keyId), eq(securityKeys.userId, session.user.id)))
          .returning({ nickname: securityKeys.nickname });
        if (!row) throw notFound('No such security key');
        await auth.announceWayIn(tx, session.user, 'securityKeyRemoved', { ip: caller.ip, name: row.nickname ?? t('securityKeys.unnamed') });
      });
      auth.mailer.nudge();
    },
  };
}
