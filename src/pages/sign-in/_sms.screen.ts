// The screen module of the sign-in by a code sent by SMS (`/sign-in/sms`, issue 18, decisions 030,
// 065): what its URL may say (the target), and its two posts, the number then the code, through the
// passwordless service; off (404) unless AUTH_SMS_PASSWORDLESS_ENABLED.
import type { AstroGlobal } from 'astro';
import { codePageState, handleCodePage, type CodePageState } from '#lib/auth/code-sign-in.server.ts';
import { smsCodeSchema, smsRequestSchema } from '#lib/auth/passwordless.ts';
import { readQuery } from '#lib/page-query.ts';
import { signInPageSchema } from '#lib/validation.ts';

/** `/sign-in/sms?redirectTo=`: the sign-in page's names (its schema, shared by the sign-in pages). */
export const querySchema = signInPageSchema;

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type SmsQuery = ReturnType<typeof read>;

/** The first view (the address step, the target kept in its links), or null when sign-in by SMS is off (a 404). */
export function load(locals: App.Locals, query: SmsQuery): CodePageState | null {
  return locals.services.auth.methods.sms ? codePageState(locals, '/sign-in/sms', query.redirectTo) : null;
}

/** The page's posts on its first view's state: what to show, or the redirect once signed in. */
export async function post(astro: AstroGlobal, state: CodePageState) {
  const { services } = astro.locals;
  const caller = { ip: astro.locals.clientAddress };
  return handleCodePage(astro, state, {
    field: 'phoneNumber',
    max: 64,
    request: smsRequestSchema,
    verify: smsCodeSchema,
    send: (phone) => services.passwordless.sendSmsCode(phone, caller),
    signIn: (phone, code) => services.passwordless.verifySmsCode(phone, code, caller),
  });
}
