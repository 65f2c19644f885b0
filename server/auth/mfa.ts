import { randomInt } from 'node:crypto';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { hasReason } from '#lib/errors.ts';
import { qrPath } from '#lib/qr.ts';
import { recoveryCodes, users } from '#server/db/schema/index.ts';
import { DomainError } from '#server/errors.ts';
import { authErrors, type AuthService, type Caller, type Session, type SessionRow, type UserRow } from './service.ts';
import { totpContext, VaultError } from './vault.ts';

const ISSUER = 'Atelier BVA';
const PERIOD = 30;
/** One step either side: a phone's clock a little off still works. */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** No 0/O, 1/I/L: read aloud or copied from paper without doubt. */
const RECOVERY_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** Wrong codes a ticket takes before it dies: the password must be given again. */
const MAX_TICKET_ATTEMPTS = 5;
/** Failures of one address a day that count towards the per-user ceiling (decision 052). */
const CEILING_SHARE_PER_ADDRESS = 5;
const MFA_TICKET = /^mfaTotp:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const mfaErrors = {
  noMfaTicket: () => new DomainError('invalid', 'no-mfa-ticket', 'No MFA ticket has been provided'),
  /** `spent`: that wrong code was the ticket's last try (the password must be given again). */
  invalidTotp: (spent = false) => new DomainError('unauthenticated', 'invalid-totp', 'Invalid TOTP', spent ? { spent } : {}),
  /** Enrolment and removal: a wrong code is bad input, not a lost sign-in. */
  wrongCode: () => new DomainError('invalid', 'invalid-totp', 'Invalid TOTP'),
  /** The secret is sealed with a key this installation lacks (a backup restored without its key). */
  sealedElsewhere: () => new DomainError('unavailable', 'totp-secret-unreadable', "The TOTP secret cannot be read with this installation's encryption key"),
  noSecret: () => new DomainError('invalid', 'no-totp-secret', 'No TOTP secret: generate one first'),
  alreadyActive: () => new DomainError('conflict', 'totp-already-active', 'TOTP is already active'),
  notActive: () => new DomainError('invalid', 'totp-not-active', 'TOTP is not active'),
};

const totpOf = (u: UserRow, secret: string) => new TOTP({ issuer: ISSUER, label: u.email ?? u.displayName, secret: Secret.fromBase32(secret), period: PERIOD });

/** "ABCD-EFGH": 40 bits each, hashed with their user under the server's hash key (vault.ts). */
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}
const normalizeRecoveryCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');
const isTotpCode = (code: string) => /^\d{6}$/.test(code.replace(/\s/g, ''));

/** An SVG QR code as a data URL, for an `<img>`: no image library, crisp at any size. */
function qrDataUrl(text: string): string {
  const { d, size } = qrPath(text, 4);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

export type MfaService = ReturnType<typeof createMfaService>;

export function createMfaService(auth: AuthService) {
  const { db, throttle, secondFactorCeiling, vault } = auth;
  const recoveryHash = (userId: string, code: string) => vault.hash(`${userId}:${normalizeRecoveryCode(code)}`);
  /** The user's TOTP secret in clear, or null; sealed at rest (decision 050). */
  const secretOf = (u: UserRow): string | null => {
    if (!u.totpSecret) return null;
    try {
      return vault.open(u.totpSecret, totpContext(u.id));
    } catch (error) {
      if (error instanceof VaultError) throw mfaErrors.sealedElsewhere();
      throw error;
    }
  };
  const sealSecret = (userId: string, secret: string) => vault.seal(secret, totpContext(userId));
  const requireOn = () => {
    if (!auth.methods.totp) throw authErrors.disabledEndpoint();
  };

  /**
   * Accepts a TOTP code once: the step it matched must be later than the last one accepted
   * (a compare-and-set, so two requests with one code cannot both pass).
   */
  async function acceptTotp(u: UserRow, secret: string, code: string): Promise<boolean> {
    const token = code.replace(/\s/g, '');
    const totp = totpOf(u, secret);
    const delta = totp.validate({ token, window: WINDOW });
    if (delta === null) return false;
    const step = totp.counter() + delta;
    const [row] = await db
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, u.id), sql`(${users.totpLastStep} is null or ${users.totpLastStep} < ${step})`))
      .returning({ id: users.id });
    return !!row;
  }

  /** Uses a recovery code of the user, once. */
  async function acceptRecoveryCode(u: UserRow, code: string): Promise<boolean> {
    const [row] = await db
      .update(recoveryCodes)
      .set({ usedAt: new Date() })
      .where(and(eq(recoveryCodes.userId, u.id), eq(recoveryCodes.codeHash, await recoveryHash(u.id, code)), isNull(recoveryCodes.usedAt)))
      .returning({ id: recoveryCodes.id });
    return !!row;
  }

  /**
   * A guess is checked against the throttles, then counted, with no other guess of the same user
   * in between, on any instance (`turns`, decision 053): parallel guesses cannot all pass the
   * check before the first failure is counted.
   */
  const guarded = (u: UserRow, caller: Caller, check: () => Promise<boolean>): Promise<boolean> =>
    auth.turns.take(`second-factor:${u.id}`, () => guess(u, caller, check));

  /**
   * Runs a guess at the user's codes under two throttles (decision 052): per (user, address),
   * as passwords are, so one address's failures never delay the owner at another; and the
   * slower ceiling per user from every address together, so that many addresses still buy few
   * guesses. One address counts towards the ceiling for its first few failures of the day
   * only. A success forgets its address's failures, never the ceiling's.
   */
  async function guess(u: UserRow, caller: Caller, check: () => Promise<boolean>): Promise<boolean> {
    const account = `mfa:${u.id}`;
    const everywhere = `user:${u.id}`;
    // Per (user, address) and per address, counted before the code is checked (decision 053),
    // as passwords are; the ceiling, under the user's turn, after.
    return throttle.guess(
      account,
      caller.ip,
      async (wrong) => {
        await secondFactorCeiling.check(account, everywhere);
        if (await check()) return true;
        // One address's share of the ceiling is small: alone, it can never lock the owner out.
        const fromHere = await secondFactorCeiling.failures(account, caller.ip);
        await secondFactorCeiling.fail(account, caller.ip);
        if (fromHere < CEILING_SHARE_PER_ADDRESS) await secondFactorCeiling.fail(account, everywhere);
        return wrong(false);
      },
      { forgets: true },
    );
  }

  /** The active second factor's proof: a code of the app, or a recovery code. */
  function checkSecondFactor(u: UserRow, code: string, caller: Caller): Promise<boolean> {
    return guarded(u, caller, async () => {
      if (u.activeMfaType !== 'totp' || !u.totpSecret) return false;
      return isTotpCode(code) ? acceptTotp(u, secretOf(u)!, code) : acceptRecoveryCode(u, code);
    });
  }

  /** Ten new recovery codes and their keyed hashes, made before the transaction that stores them. */
  async function newRecoveryCodes(userId: string): Promise<{ codes: string[]; hashes: string[] }> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    return { codes, hashes: await Promise.all(codes.map((code) => recoveryHash(userId, code))) };
  }

  /** Replaces the user's recovery codes with the new ones, returned this once. */
  async function replaceRecoveryCodes(tx: Pick<typeof db, 'delete' | 'insert'>, userId: string, fresh: { codes: string[]; hashes: string[] }) {
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await tx.insert(recoveryCodes).values(fresh.hashes.map((codeHash) => ({ userId, codeHash })));
    return fresh.codes;
  }

  const freshUser = async (id: string) => auth.requireActive(await auth.findUserById(id));

  return {
    /** GET /mfa/totp/generate: a new secret, kept until activation, and its QR code. */
    async generateTotp(session: SessionRow): Promise<{ imageUrl: string; totpSecret: string }> {
      requireOn();
      // A stolen sign-in must not add a factor: a token refused, then the strongest factor
      // proved (decision 048), before anything about the account is told.
      await auth.requireProof(session);
      const u = await freshUser(session.user.id);
      if (u.activeMfaType) throw mfaErrors.alreadyActive();
      const secret = new Secret({ size: 20 }).base32;
      await db
        .update(users)
        .set({ totpSecret: sealSecret(u.id, secret), totpLastStep: null, updatedAt: new Date() })
        .where(eq(users.id, u.id));
      return { imageUrl: qrDataUrl(totpOf(u, secret).toString()), totpSecret: secret };
    },

    /**
     * POST /user/mfa with activeMfaType 'totp': the first code proves the app holds the secret.
     * Returns the recovery codes, shown this once; the sign-in counts as elevated.
     */
    async activateTotp(session: SessionRow, code: string, caller: Caller): Promise<{ recoveryCodes: string[] }> {
      requireOn();
      await auth.requireProof(session);
      const u = await freshUser(session.user.id);
      if (u.activeMfaType) throw mfaErrors.alreadyActive();
      if (!u.totpSecret) throw mfaErrors.noSecret();
      const hadFactor = await auth.hasSecondFactor(u);
      const secret = secretOf(u)!;
      if (!(await guarded(u, caller, async () => isTotpCode(code) && acceptTotp(u, secret, code)))) throw mfaErrors.wrongCode();
      const fresh = await newRecoveryCodes(u.id);
      const codes = await db.transaction(async (tx) => {
        await tx.update(users).set({ activeMfaType: 'totp', updatedAt: new Date() }).where(eq(users.id, u.id));
        await auth.announceWayIn(tx, u, 'totpEnabled', caller);
        return replaceRecoveryCodes(tx, u.id, fresh);
      });
      auth.mailer.nudge();
      // The first code proves the new factor; a user who had a key was elevated already.
      if (!hadFactor) await auth.elevate(session.sessionId);
      return { recoveryCodes: codes };
    },

    /** POST /user/mfa with activeMfaType '': a code (or a recovery code) removes the second factor. */
    async deactivateTotp(session: SessionRow, code: string, caller: Caller): Promise<void> {
      requireOn();
      // The code is the proof; a token's sign-in never manages the account (decision 048).
      auth.refusePat(session);
      const u = await freshUser(session.user.id);
      if (u.activeMfaType !== 'totp') throw mfaErrors.notActive();
      if (!(await checkSecondFactor(u, code, caller))) throw mfaErrors.wrongCode();
      await db.transaction(async (tx) => {
        await tx.update(users).set({ activeMfaType: null, totpSecret: null, totpLastStep: null, updatedAt: new Date() }).where(eq(users.id, u.id));
        await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, u.id));
        await auth.announceWayIn(tx, u, 'totpDisabled', caller);
      });
      auth.mailer.nudge();
    },

    /** Ten new recovery codes for a code of the app: the old ones stop working. */
    async regenerateRecoveryCodes(session: SessionRow, code: string, caller: Caller): Promise<{ recoveryCodes: string[] }> {
      auth.refusePat(session);
      requireOn();
      const u = await freshUser(session.user.id);
      if (u.activeMfaType !== 'totp') throw mfaErrors.notActive();
      if (!(await checkSecondFactor(u, code, caller))) throw mfaErrors.wrongCode();
      await auth.elevate(session.sessionId);
      const fresh = await newRecoveryCodes(u.id);
      const codes = await db.transaction(async (tx) => {
        await auth.announceWayIn(tx, u, 'recoveryCodesRenewed', caller);
        return replaceRecoveryCodes(tx, u.id, fresh);
      });
      auth.mailer.nudge();
      return { recoveryCodes: codes };
    },

    /** «Annuler» of an enrolment: the secret generated and not activated is forgotten; an active app stays. */
    async cancelTotp(session: SessionRow): Promise<void> {
      auth.refusePat(session);
      await db
        .update(users)
        .set({ totpSecret: null, totpLastStep: null, updatedAt: new Date() })
        .where(and(eq(users.id, session.user.id), isNull(users.activeMfaType)));
    },

    /** The secret generated and not yet activated, with its QR code: the enrolment page shown again. */
    async pendingTotp(userId: string): Promise<{ imageUrl: string; totpSecret: string } | null> {
      const u = await freshUser(userId);
      if (u.activeMfaType || !u.totpSecret) return null;
      const secret = secretOf(u)!;
      return { imageUrl: qrDataUrl(totpOf(u, secret).toString()), totpSecret: secret };
    },

    /** Recovery codes still unused. */
    async recoveryCodesLeft(userId: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
      return row?.n ?? 0;
    },

    /**
     * POST /signin/mfa/totp: the ticket of a first factor and a code (or a recovery code).
     * A wrong code keeps the ticket for another try (throttled); a right one uses it.
     */
    async signInTotp(ticket: string | undefined, code: string, caller: Caller): Promise<Session> {
      requireOn();
      if (!ticket) throw mfaErrors.noMfaTicket();
      if (!MFA_TICKET.test(ticket)) throw authErrors.invalidMfaTicket();
      const pending = await auth.findChallenge('mfaTotp', ticket);
      if (!pending?.userId) throw authErrors.invalidMfaTicket();
      const u = await freshUser(pending.userId);
      const right = await checkSecondFactor(u, code, caller).catch(async (error: unknown) => {
        // Throttled for longer than the ticket lives (5 min against waits of up to 15): the ticket
        // closes now, and the 429 says so (`spent`), rather than promise it works after the wait.
        if (!(error instanceof DomainError) || !hasReason(error, 'too-many-requests')) throw error;
        if ((error.details.retryAfter ?? 0) * 1000 < pending.expiresAt.getTime() - Date.now()) throw error;
        await auth.consumeChallenge('mfaTotp', ticket);
        throw new DomainError(error.kind, error.reason, error.message, { ...error.details, spent: true });
      });
      if (!right) {
        // Still 401 invalid-totp (hasura-auth's answer); a page tells the user the ticket is gone.
        const spent = await auth.failChallenge(pending.id, MAX_TICKET_ATTEMPTS);
        throw mfaErrors.invalidTotp(spent);
      }
      const used = await auth.consumeChallenge('mfaTotp', ticket);
      if (!used) throw authErrors.invalidMfaTicket();
      const method = typeof used.data === 'object' && used.data && 'method' in used.data ? String(used.data.method) : 'password';
      return auth.startSession(u, method, { elevated: true });
    },

    /** Step-up with the app (our addition to hasura-auth, beside /elevate/webauthn): a code elevates the sign-in. */
    async elevateTotp(session: SessionRow, code: string, caller: Caller): Promise<void> {
      requireOn();
      auth.refusePat(session);
      const u = await freshUser(session.user.id);
      if (u.activeMfaType !== 'totp') throw mfaErrors.notActive();
      if (!(await checkSecondFactor(u, code, caller))) throw mfaErrors.wrongCode();
      await auth.elevate(session.sessionId);
    },
  };
}
