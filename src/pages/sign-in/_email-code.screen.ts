// The screen module of the sign-in by a code sent by e-mail (`/sign-in/email-code`, issue 18,
// decisions 030, 065): what its URL may say (the target), and its two posts, the address then the
// code, through the passwordless service; off (404) unless the method is on.
import type { AstroGlobal } from 'astro';
import { codePageState, handleCodePage, type CodePageState } from '#lib/auth/code-sign-in.server.ts';
import { emailCodeRequestSchema, emailCodeSchema } from '#lib/auth/passwordless.ts';
import { readQuery } from '#lib/page-query.ts';
import { signInPageSchema } from '#lib/validation.ts';

/** `/sign-in/email-code?redirectTo=`: the sign-in page's names (its schema, shared by the sign-in pages). */
export const querySchema = signInPageSchema;

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type EmailCodeQuery = ReturnType<typeof read>;

/** The first view (the address step, the target kept in its links), or null when sign-in by e-mail code is off (a 404). */
export function load(locals: App.Locals, query: EmailCodeQuery): CodePageState | null {
  return locals.services.auth.methods.emailOtp ? codePageState(locals, '/sign-in/email-code', query.redirectTo) : null;
}

/** The page's posts on its first view's state: what to show, or the redirect once signed in. */
export async function post(astro: AstroGlobal, state: CodePageState) {
  const { services } = astro.locals;
  const caller = { ip: astro.locals.clientAddress };
  return handleCodePage(astro, state, {
    field: 'email',
    max: 300,
    request: emailCodeRequestSchema,
    verify: emailCodeSchema,
    send: (email) => services.passwordless.sendEmailCode(email, caller),
    signIn: (email, code) => services.passwordless.verifyEmailCode(email, code, caller),
  });
}
