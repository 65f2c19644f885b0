// The screen module of the sign-in page (`/sign-in`, SPEC §2.6, issue 18, decisions 030, 065, 071):
// what its URL may say (the forgotten password's view, the target, an e-mail link's second step),
// and its three posts, told apart by what they hold: the second step's code (its ticket), the
// forgotten password's address, the sign-in's address and password; each through the auth
// services, each refusal worded by its reason.
import type { AstroGlobal } from 'astro';
import { isServiceError, serviceStatusOf, signInErrorMessage, tooManyMessage } from '#lib/auth/errors.server.ts';
import { rememberLinkAsked } from '#lib/auth/landing-binding.ts';
import { cookieOf, writeSession } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import { formatWait } from '#lib/format.ts';
import { checkForm, postedForm, postOrShowRefusal } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { readQuery } from '#lib/page-query.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { HOME } from '#lib/routes.ts';
import { forgotPasswordSchema, signInCodeSchema, signInPageSchema, signInSchema, type FieldErrors } from '#lib/validation.ts';

/**
 * `/sign-in?view=forgot-password&redirectTo=&mfaTicket=`: hasura-auth's names. Its schema stays in
 * src/lib/validation.ts: the code and link sign-in pages read their target with it too.
 */
export const querySchema = signInPageSchema;

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type SignInQuery = ReturnType<typeof read>;

/** What a post leaves to show: the address typed, the messages, a reset asked, the second step's ticket. */
export type SignInPosted = { email: string; errors: FieldErrors; formError: string | null; sent: boolean; ticket: string | null };

/** Where a signed-in user goes: the checked target, or home. */
const targetOf = (locals: App.Locals, query: SignInQuery) => safeRedirect(query.redirectTo, locals.services.config.publicUrl)?.path ?? null;

/**
 * The page's post: a redirect with the session cookie once signed in; a refusal (a wrong password,
 * a form to fix, a throttled wait) moves to the page's own address, `redirectTo` kept, and its GET
 * shows it again with the address typed (decisions 039, 087): a reload never sends the password
 * again. The second step (its ticket: a proof of the password no cookie carries) and a reset
 * asked are shown in place, the response's status set. On a GET, what a refused post left, or
 * null (the URL may bring the second step's ticket).
 */
export function post(astro: AstroGlobal, query: SignInQuery): Promise<Response | SignInPosted | null> {
  return postOrShowRefusal<SignInPosted>(astro, () => signIn(astro, query), { inPlace: (state) => !!state.ticket || state.sent });
}

async function signIn(astro: AstroGlobal, query: SignInQuery): Promise<Response | SignInPosted> {
  const { services } = astro.locals;
  const caller = { ip: astro.locals.clientAddress };
  const redirectTo = targetOf(astro.locals, query);
  // The password is never part of what is shown again.
  const state: SignInPosted = { email: '', errors: {}, formError: null, sent: false, ticket: null };
  const posted = await postedForm(astro);
  state.email = String(posted.get('email') ?? '').slice(0, 300);
  const { email } = state;
  if (posted.has('ticket')) {
    const parsed = checkForm(posted, { fields: ['ticket', 'otp'], schema: signInCodeSchema });
    state.ticket = parsed.values.ticket.slice(0, 128);
    if (parsed.errors) state.errors = parsed.errors;
    else {
      try {
        const session = await services.mfa.signInTotp(parsed.data.ticket, parsed.data.otp, caller);
        await writeSession(astro.cookies, services, cookieOf(session));
        return astro.redirect(redirectTo ?? HOME, 303);
      } catch (error) {
        const refusal = isServiceError(error) ? error : null;
        const details = refusal?.details ?? {};
        if (hasReason(refusal, 'invalid-totp') && details.spent) {
          // That wrong code was the ticket's last: the password again, the e-mail kept (a first
          // step by link or code carried none: that step again).
          state.ticket = null;
          state.formError = email ? t('signIn.codeSpent') : t('signIn.codeSpentRestart');
        } else if (hasReason(refusal, 'invalid-totp')) state.errors = { otp: t('security.codeWrong') };
        else if (hasReason(refusal, 'too-many-requests')) {
          // Throttled before the code was looked at: the ticket holds, a new code works after the
          // wait; unless the wait outlasts the ticket (`spent`): then the password, the e-mail kept.
          const wait = formatWait(details.retryAfter ?? 60);
          if (details.spent) state.ticket = null;
          state.formError = !details.spent
            ? t('signIn.codeTooMany', { wait })
            : email
              ? t('signIn.codeTooManySpent', { wait })
              : t('signIn.codeTooManyRestart', { wait });
        } else if (hasReason(refusal, 'invalid-mfa-ticket', 'no-mfa-ticket')) {
          // Expired or used: the password step again, the e-mail kept.
          state.ticket = null;
          state.formError = t('signIn.codeExpired');
        } else state.formError = signInErrorMessage(error);
        astro.response.status = serviceStatusOf(error);
      }
    }
  } else if (query.forgot) {
    const parsed = checkForm(posted, { fields: ['email'], schema: forgotPasswordSchema, max: 300 });
    if (parsed.errors) state.errors = parsed.errors;
    else {
      try {
        await services.auth.requestPasswordReset(parsed.data.email, undefined, caller);
        state.sent = true;
        rememberLinkAsked(astro.cookies, services.config.sessionSecret, parsed.data.email);
      } catch (error) {
        state.formError = isServiceError(error) && hasReason(error, 'too-many-requests') ? tooManyMessage(error) : t('errors.generic');
        astro.response.status = serviceStatusOf(error);
      }
    }
  } else {
    const parsed = checkForm(posted, { fields: ['email', 'password'], schema: signInSchema, input: (typed) => ({ ...typed, email }) });
    if (parsed.errors) state.errors = parsed.errors;
    else {
      try {
        const result = await services.auth.signInEmailPassword(parsed.data.email, parsed.data.password, caller);
        if (result.session) {
          await writeSession(astro.cookies, services, cookieOf(result.session));
          return astro.redirect(redirectTo ?? HOME, 303);
        }
        state.ticket = result.mfa.ticket;
      } catch (error) {
        if (isServiceError(error) && hasReason(error, 'unverified-user')) {
          await services.auth.sendVerificationEmail(parsed.data.email, undefined, caller).catch(() => undefined);
          rememberLinkAsked(astro.cookies, services.config.sessionSecret, parsed.data.email);
          state.formError = t('errors.unverified');
        } else {
          state.formError = signInErrorMessage(error);
        }
        astro.response.status = serviceStatusOf(error);
      }
    }
  }
  if (Object.keys(state.errors).length) astro.response.status = 400;
  return state;
}

/**
 * What the page shows: the view (the second step while its ticket holds, the forgotten password,
 * the sign-in), what a post left, the links with the target kept and whether passwords are on.
 */
export function load(locals: App.Locals, query: SignInQuery, posted: SignInPosted | null) {
  const redirectTo = targetOf(locals, query);
  // The second step's ticket, while the code is awaited (an e-mail link brings it in the URL).
  const shown = posted ?? { email: '', errors: {}, formError: null, sent: false, ticket: query.mfaTicket };
  return {
    ...shown,
    forgot: query.forgot,
    redirectTo,
    passwordOn: locals.services.auth.methods.emailPassword,
    signInHref: redirectTo ? `/sign-in?redirectTo=${encodeURIComponent(redirectTo)}` : '/sign-in',
    forgotHref: '/sign-in?view=forgot-password',
  };
}
