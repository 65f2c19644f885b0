// Signing in without a password (issue 18, item 3; decision 030): a link by e-mail, or a
// six-digit code by e-mail or SMS, with hasura-auth's paths and bodies. Links and codes go only
// to enabled, registered accounts: an unknown address gets the same OK and nothing is created.
import { randomInt } from 'node:crypto';
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { t } from '#lib/i18n.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { tickets, users } from '#server/db/schema/index.ts';
import { DomainError } from '#server/errors.ts';
import { authErrors, type AuthService, type Caller, type SessionRow, type SignInResult, type UserRow } from './service.ts';
import { sha256 } from './tokens.ts';

/** hasura-auth's lifetime of a one-time code. */
export const OTP_LIFETIME_MS = 5 * 60_000;
/** Wrong codes a code survives; the next try finds it dead (otp-too-many-attempts). */
export const OTP_MAX_ATTEMPTS = 5;

/** `phoneChange`: the code that proves a new number is the user's before it is kept. */
type OtpType = 'emailOtp' | 'smsOtp' | 'phoneChange';

export const passwordlessErrors = {
  invalidOtp: () => new DomainError('invalid', 'invalid-otp', 'Invalid or expired OTP'),
  phoneInUse: () => new DomainError('conflict', 'phone-number-already-in-use', 'Phone number already in use'),
};

const newCode = () => String(randomInt(1_000_000)).padStart(6, '0');
/** Hashed with its user and channel: a six-digit code alone would collide across users. */
const codeHash = (type: OtpType, userId: string, code: string, bound = '') => sha256(`${type}:${userId}:${bound ? `${bound}:` : ''}${code}`);

export type PasswordlessService = ReturnType<typeof createPasswordlessService>;

export function createPasswordlessService(auth: AuthService) {
  const { db, limiter, limits, methods, mailer } = auth;
  const requireOn = (on: boolean) => {
    if (!on) throw authErrors.disabledEndpoint();
  };
  const limitEmail = async (caller: Caller, address: string) => {
    await limiter.hit('signin-email-ip', caller.ip, limits.signInEmailPerIp);
    await limiter.hit('signin-email-address', address.toLowerCase(), limits.signInEmailPerAddress);
  };
  const limitSms = async (caller: Caller, phoneNumber: string) => {
    await limiter.hit('signin-sms-ip', caller.ip, limits.signInSmsPerIp);
    await limiter.hit('signin-sms-number', phoneNumber, limits.signInSmsPerNumber);
  };

  const findUserByPhone = async (phoneNumber: string) => (await db.select().from(users).where(eq(users.phoneNumber, phoneNumber)).limit(1))[0];
  /** Who may receive a link or a code: an enabled, registered account (decision 030). */
  const reachable = (u: UserRow | undefined) => (u && !u.disabled && !u.isAnonymous ? u : undefined);

  /**
   * A new code for the user on this channel; it replaces the last one, used or not. `queue` puts
   * its message in the same transaction: the code and its mail or SMS are kept together, or not.
   */
  async function issueCode(u: UserRow, type: OtpType, bound: string, queue: (tx: Db, code: string, expiresAt: Date) => Promise<void>): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = newCode();
      // Taken before the code's row (which expires a few milliseconds later): the time the message says is never past the real end.
      const expiresAt = new Date(Date.now() + OTP_LIFETIME_MS);
      const created = await db.transaction(async (tx) => {
        await tx.delete(tickets).where(and(eq(tickets.userId, u.id), eq(tickets.type, type)));
        const rows = await tx
          .insert(tickets)
          .values({ userId: u.id, type, tokenHash: codeHash(type, u.id, code, bound), expiresAt: new Date(Date.now() + OTP_LIFETIME_MS) })
          .onConflictDoNothing()
          .returning({ id: tickets.id });
        if (rows.length) await queue(tx as unknown as Db, code, expiresAt);
        return rows;
      });
      // Two requests at once drew the same code: draw again.
      if (created.length) {
        mailer.nudge();
        return;
      }
    }
    throw new Error('could not store a one-time code');
  }

  /**
   * Uses the user's live code if `code` is it. Every try spends one of the code's attempts
   * first (one statement), so parallel guesses get no more than OTP_MAX_ATTEMPTS between them.
   */
  async function redeemCode(u: UserRow | undefined, type: OtpType, code: string, caller: Caller, bound = ''): Promise<UserRow> {
    await limiter.hit('ticket-ip', caller.ip, limits.ticketPerIp);
    if (!u) throw passwordlessErrors.invalidOtp();
    const live = and(eq(tickets.userId, u.id), eq(tickets.type, type), isNull(tickets.usedAt), sql`${tickets.expiresAt} > now()`);
    const tried = await db
      .update(tickets)
      .set({ attempts: sql`${tickets.attempts} + 1` })
      .where(and(live, lt(tickets.attempts, OTP_MAX_ATTEMPTS)))
      .returning({ id: tickets.id, tokenHash: tickets.tokenHash });
    // A code used up by wrong tries answers as an unknown one: telling them apart would tell
    // which addresses have an account.
    if (!tried.length) throw passwordlessErrors.invalidOtp();
    const hash = codeHash(type, u.id, code.replace(/\s/g, ''), bound);
    const match = tried.find((row) => row.tokenHash === hash);
    if (!match) throw passwordlessErrors.invalidOtp();
    const [used] = await db
      .update(tickets)
      .set({ usedAt: new Date() })
      .where(and(eq(tickets.id, match.id), isNull(tickets.usedAt)))
      .returning({ id: tickets.id });
    if (!used) throw passwordlessErrors.invalidOtp();
    return auth.requireActive(await auth.findUserById(u.id));
  }

  return {
    findUserByPhone,

    /** hasura-auth's POST /signin/passwordless/email: a sign-in link, valid 15 minutes, once. */
    async sendSignInLink(address: string, redirectTo: string | undefined, caller: Caller): Promise<void> {
      requireOn(methods.emailLink);
      await limitEmail(caller, address);
      const target = auth.checkRedirect(redirectTo, '/repair-orders');
      const u = reachable(await auth.findUserByEmail(address));
      if (!u) return mailer.queueNothing();
      await auth.mailTicket(u, 'signinPasswordless', 'signinPasswordless', target);
    },

    /** hasura-auth's POST /signin/otp/email: a six-digit code by e-mail, valid 5 minutes. */
    async sendEmailCode(address: string, caller: Caller): Promise<void> {
      requireOn(methods.emailOtp);
      await limitEmail(caller, address);
      const u = reachable(await auth.findUserByEmail(address));
      if (!u?.email) return mailer.queueNothing();
      const to = u.email;
      await issueCode(u, 'emailOtp', '', (tx, code, expiresAt) => mailer.queue(tx, 'signinOtp', to, { displayName: u.displayName, code, expiresAt }));
    },

    /** hasura-auth's POST /signin/otp/email/verify: the code proves the address; TOTP still asked. */
    async verifyEmailCode(address: string, code: string, caller: Caller): Promise<SignInResult> {
      requireOn(methods.emailOtp);
      const u = await redeemCode(await auth.findUserByEmail(address), 'emailOtp', code, caller);
      if (!u.emailVerified) await db.update(users).set({ emailVerified: true, updatedAt: new Date() }).where(eq(users.id, u.id));
      return auth.completeSignIn({ ...u, emailVerified: true }, 'emailOtp');
    },

    /** hasura-auth's POST /signin/passwordless/sms: a six-digit code by SMS, valid 5 minutes. */
    async sendSmsCode(phoneNumber: string, caller: Caller): Promise<void> {
      requireOn(methods.sms);
      await limitSms(caller, phoneNumber);
      const u = reachable(await findUserByPhone(phoneNumber));
      if (!u) return mailer.queueNothing();
      await issueCode(u, 'smsOtp', '', (tx, code, expiresAt) => mailer.queueSms(tx, phoneNumber, t('passwordless.smsText', { code }), expiresAt));
    },

    /**
     * A number for SMS sign-in, on the user's own account: a code goes to it, and only that
     * code, typed back, keeps it. A new way in: a user with a second factor proves it first.
     */
    async sendPhoneCode(session: SessionRow, phoneNumber: string, caller: Caller): Promise<void> {
      requireOn(methods.sms);
      await auth.requireProof(session);
      await limitSms(caller, phoneNumber);
      const owner = await findUserByPhone(phoneNumber);
      if (owner && owner.id !== session.user.id) throw passwordlessErrors.phoneInUse();
      await issueCode(session.user, 'phoneChange', phoneNumber, (tx, code, expiresAt) =>
        mailer.queueSms(tx, phoneNumber, t('passwordless.phoneCodeText', { code }), expiresAt),
      );
    },

    /** The code sent to `phoneNumber` keeps it as the user's number, verified. */
    async confirmPhone(session: SessionRow, phoneNumber: string, code: string, caller: Caller): Promise<void> {
      requireOn(methods.sms);
      const u = await redeemCode(session.user, 'phoneChange', code, caller, phoneNumber);
      await db
        .transaction(async (tx) => {
          const [kept] = await tx
            .update(users)
            .set({ phoneNumber, phoneNumberVerified: true, updatedAt: new Date() })
            .where(eq(users.id, u.id))
            .returning({ id: users.id });
          if (!kept) throw passwordlessErrors.invalidOtp();
          // The same number confirmed again adds no way in.
          if (u.phoneNumber !== phoneNumber) await auth.announceWayIn(tx, u, 'phoneAdded', { ip: caller.ip, name: phoneNumber, before: u.phoneNumber ?? '' });
        })
        .catch((error: unknown) => {
          // Taken meanwhile by another account (the number is unique).
          if (pgCode(error) === '23505') throw passwordlessErrors.phoneInUse();
          throw error;
        });
      auth.mailer.nudge();
    },

    /** No more SMS sign-in for the user. */
    async removePhone(session: SessionRow, caller: Caller): Promise<void> {
      await auth.requireProof(session);
      const removed = await db.transaction(async (tx) => {
        const [before] = await tx.select({ phoneNumber: users.phoneNumber }).from(users).where(eq(users.id, session.user.id)).for('update');
        if (!before?.phoneNumber) return false;
        await tx.update(users).set({ phoneNumber: null, phoneNumberVerified: false, updatedAt: new Date() }).where(eq(users.id, session.user.id));
        await auth.announceWayIn(tx, session.user, 'phoneRemoved', { ip: caller.ip, name: before.phoneNumber });
        return true;
      });
      if (removed) auth.mailer.nudge();
    },

    /** hasura-auth's POST /signin/passwordless/sms/otp: the code proves the number; TOTP still asked. */
    async verifySmsCode(phoneNumber: string, code: string, caller: Caller): Promise<SignInResult> {
      requireOn(methods.sms);
      const u = await redeemCode(await findUserByPhone(phoneNumber), 'smsOtp', code, caller);
      if (!u.phoneNumberVerified) await db.update(users).set({ phoneNumberVerified: true, updatedAt: new Date() }).where(eq(users.id, u.id));
      return auth.completeSignIn({ ...u, phoneNumberVerified: true }, 'smsOtp');
    },
  };
}
