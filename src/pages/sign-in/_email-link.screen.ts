// The screen module of the sign-in by a link sent by e-mail (`/sign-in/email-link`, issue 18,
// decisions 030, 065): what its URL may say (the target), and its one post, the address the link
// goes to, through the passwordless service; off (404) unless the method is on. The link itself
// signs in through /api/auth/verify.
import type { AstroGlobal } from 'astro';
import { passwordlessErrorMessage, serviceStatusOf } from '#lib/auth/errors.server.ts';
import { rememberLinkAsked } from '#lib/auth/landing-binding.ts';
import { emailLinkSchema } from '#lib/auth/passwordless.ts';
import { postOrShowRefusal, readForm } from '#lib/forms.server.ts';
import { readQuery } from '#lib/page-query.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { signInPageSchema, type FieldErrors } from '#lib/validation.ts';

/** `/sign-in/email-link?redirectTo=`: the sign-in page's names (its schema, shared by the sign-in pages). */
export const querySchema = signInPageSchema;

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type EmailLinkQuery = ReturnType<typeof read>;

/** What the page shows: the address typed, its messages, a link sent; the target, checked, and kept in its links. */
export type EmailLinkState = { email: string; errors: FieldErrors; formError: string | null; sent: boolean; redirectTo: string | null; query: string };

/** The first view (the address asked, the target kept in its links), or null when sign-in by link is off (a 404). */
export function load(locals: App.Locals, query: EmailLinkQuery): EmailLinkState | null {
  const { services } = locals;
  if (!services.auth.methods.emailLink) return null;
  const redirectTo = safeRedirect(query.redirectTo, services.config.publicUrl)?.path ?? null;
  return { email: '', errors: {}, formError: null, sent: false, redirectTo, query: redirectTo ? `?redirectTo=${encodeURIComponent(redirectTo)}` : '' };
}

/**
 * The page's post on its first view's state: the link sent (shown in place); a refusal (an
 * address to fix, a throttled wait) moves to the page's own address, whose GET shows it again with
 * the address typed (decision 087).
 */
export async function post(astro: AstroGlobal, state: EmailLinkState): Promise<EmailLinkState | Response> {
  const shown = await postOrShowRefusal<EmailLinkState | Refused>(
    astro,
    async () => {
      const posted = await send(astro, state);
      const { email, errors, formError } = posted;
      return posted.sent ? posted : ({ email, errors, formError } satisfies Refused);
    },
    { inPlace: (posted) => 'sent' in posted && posted.sent },
  );
  if (shown instanceof Response) return shown;
  return shown ? { ...state, ...shown } : state;
}

/** What a refusal shows again: the address typed and the messages. */
type Refused = Pick<EmailLinkState, 'email' | 'errors' | 'formError'>;

async function send(astro: AstroGlobal, state: EmailLinkState): Promise<EmailLinkState> {
  const { services } = astro.locals;
  const caller = { ip: astro.locals.clientAddress };
  const parsed = await readForm(astro, { fields: ['email'], schema: emailLinkSchema, max: 300 });
  state.email = parsed.values.email;
  if (parsed.errors) {
    state.errors = parsed.errors;
    astro.response.status = 400;
    return state;
  }
  try {
    await services.passwordless.sendSignInLink(parsed.data.email, state.redirectTo ?? undefined, caller);
    state.sent = true;
    rememberLinkAsked(astro.cookies, services.config.sessionSecret, parsed.data.email);
  } catch (error) {
    state.formError = passwordlessErrorMessage(error);
    astro.response.status = serviceStatusOf(error);
  }
  return state;
}
