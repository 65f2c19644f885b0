// Anonymous users (issue 18, item 5; off by default; decision 030): hasura-auth's
// POST /signin/anonymous and POST /user/deanonymize. An anonymous account has the role
// 'anonymous', none of the application's: its pages and GraphQL API treat it as signed out.
// Deanonymizing is a self-registration (decision 003): the account becomes disabled, with the
// least role, until an admin enables it.
import { and, eq } from 'drizzle-orm';
import { t } from '#lib/i18n.ts';
import { users } from '#server/db/schema/index.ts';
import { recordSignUp } from '#server/audit/auth-events.ts';
import { DomainError } from '#server/errors.ts';
import { hashPassword, passwordPolicyError } from './passwords.ts';
import { authErrors, type AuthService, type Caller, type Session, type SessionRow } from './service.ts';

/** hasura-auth's role of anonymous users; not a role of the application (src/lib/roles.ts). */
export const ANONYMOUS_ROLE = 'anonymous';

export const anonymousErrors = {
  userNotAnonymous: () => new DomainError('invalid', 'user-not-anonymous', 'Logged in user is not anonymous'),
  passwordRequired: () => new DomainError('invalid', 'invalid-request', 'A password is required to sign in with email-password'),
};

const isUniqueViolation = (error: unknown) => {
  const code = (error as { code?: string; cause?: { code?: string } })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  return code === '23505';
};

export type AnonymousService = ReturnType<typeof createAnonymousService>;

export function createAnonymousService(auth: AuthService) {
  const { db, limiter, limits, methods } = auth;
  const requireOn = () => {
    if (!methods.anonymous) throw authErrors.disabledEndpoint();
  };

  return {
    /** A new anonymous account and its sign-in; each call makes one, so calls count as sign-ups. */
    async signIn(input: { displayName?: string; locale?: string; metadata?: Record<string, unknown> }, caller: Caller): Promise<Session> {
      requireOn();
      await limiter.hit('signup-ip', caller.ip, limits.signUpPerIp);
      const u = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values({
            displayName: input.displayName ?? t('passwordless.anonymousName'),
            locale: input.locale ?? 'fr',
            defaultRole: ANONYMOUS_ROLE,
            isAnonymous: true,
            metadata: input.metadata ?? {},
          })
          .returning();
        await recordSignUp(tx, row!);
        return row!;
      });
      return auth.startSession(u, 'anonymous');
    },

    /**
     * Turns the caller's anonymous account into a registered one, as a sign-up would: the e-mail
     * (and, with 'email-password', the password), the least role, disabled until an admin
     * enables it. Its sign-ins end; the verification e-mail goes to the new address.
     */
    async deanonymize(
      session: SessionRow,
      input: {
        signInMethod: 'email-password' | 'passwordless';
        email: string;
        password?: string;
        displayName?: string;
        locale?: string;
        defaultRole?: string;
        allowedRoles?: string[];
        redirectTo?: string;
      },
      caller: Caller,
    ): Promise<void> {
      requireOn();
      if (!session.user.isAnonymous) throw anonymousErrors.userNotAnonymous();
      await limiter.hit('signup-ip', caller.ip, limits.signUpPerIp);
      const role = auth.signUpRole;
      if ((input.defaultRole && input.defaultRole !== role) || input.allowedRoles?.some((r) => r !== role)) throw authErrors.roleNotAllowed();
      let passwordHash: string | null = null;
      if (input.signInMethod === 'email-password') {
        if (input.password === undefined) throw anonymousErrors.passwordRequired();
        if (passwordPolicyError(input.password)) throw authErrors.invalidPassword();
        passwordHash = await hashPassword(input.password);
      }
      const redirectTo = auth.checkRedirect(input.redirectTo, '/sign-in');
      const address = input.email.toLowerCase();
      if (await auth.findUserByEmail(address)) throw authErrors.emailInUse();
      let registered;
      try {
        [registered] = await db
          .update(users)
          .set({
            email: address,
            emailVerified: false,
            passwordHash,
            displayName: input.displayName ?? address,
            locale: input.locale ?? session.user.locale,
            defaultRole: role,
            isAnonymous: false,
            disabled: true,
            updatedAt: new Date(),
          })
          .where(and(eq(users.id, session.user.id), eq(users.isAnonymous, true)))
          .returning();
      } catch (error) {
        if (isUniqueViolation(error)) throw authErrors.emailInUse();
        throw error;
      }
      if (!registered) throw anonymousErrors.userNotAnonymous();
      await auth.endSessions(registered.id);
      await auth.mailTicket(registered, 'verifyEmail', 'verifyEmail', redirectTo);
    },
  };
}
