// The two pages that sign in with a code sent to the user (issue 18, item 3; decision 030):
// by e-mail and by SMS. First the address, then the code, each a form posted to the page;
// the right code opens the page session, or hands over to the sign-in's code step when the
// account has a second factor.
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import type { SignInResult } from '#server/auth/service.ts';
import { passwordlessErrorMessage, serviceStatusOf } from '#lib/auth/errors.server.ts';
import { cookieOf, writeSession } from '#lib/auth/session.server.ts';
import { checkForm, postedForm, postOrShowRefusal } from '#lib/forms.server.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { HOME } from '#lib/routes.ts';
import type { FieldErrors } from '#lib/validation.ts';

type Field = 'email' | 'phoneNumber';

export type CodeChannel<F extends Field> = {
  /** The form field that names where the code goes. */
  field: F;
  /** Longest value kept from the form. */
  max: number;
  request: z.ZodType<Record<F, string>>;
  verify: z.ZodType<Record<F, string> & { code: string }>;
  send(to: string): Promise<void>;
  signIn(to: string, code: string): Promise<SignInResult>;
};

export type CodePageState = {
  step: 'address' | 'code' | 'mfa';
  /** Where the code goes, as typed (or as understood, once sent). */
  to: string;
  errors: FieldErrors;
  formError: string | null;
  sent: boolean;
  mfaTicket: string;
  /** Where the right code leads, checked. */
  redirectTo: string | null;
  /** The page itself and the sign-in page, with the target kept. */
  self: string;
  signInHref: string;
};

/**
 * A code page's first view: the address step, the links with the target kept. `target` is the
 * page's `redirectTo` as its URL says it, checked here.
 */
export function codePageState(locals: App.Locals, path: string, target: string | null): CodePageState {
  const redirectTo = safeRedirect(target, locals.services.config.publicUrl)?.path ?? null;
  const query = redirectTo ? `?redirectTo=${encodeURIComponent(redirectTo)}` : '';
  return {
    step: 'address',
    to: '',
    errors: {},
    formError: null,
    sent: false,
    mfaTicket: '',
    redirectTo,
    self: `${path}${query}`,
    signInHref: `/sign-in${query}`,
  };
}

/** What a refusal shows again at the page's own address: the step, where the code goes, the messages (never a code). */
type CodeRefusal = Pick<CodePageState, 'step' | 'to' | 'errors' | 'formError'>;

/**
 * A code page's posts (the address, then the code) on its first view's state: the redirect once
 * signed in; a refusal (an address to fix, a wrong code, a throttled wait) moves to the page's own
 * address, whose GET shows it again (decision 087): a reload sends no code. The code sent and the
 * second factor's step (its ticket) are shown in place.
 */
export async function handleCodePage<F extends Field>(astro: AstroGlobal, state: CodePageState, channel: CodeChannel<F>): Promise<CodePageState | Response> {
  const shown = await postOrShowRefusal<CodePageState | CodeRefusal>(
    astro,
    async () => {
      const posted = await codePost(astro, state, channel);
      if (posted instanceof Response || posted.step === 'mfa' || posted.sent) return posted;
      const { step, to, errors, formError } = posted;
      return { step, to, errors, formError } satisfies CodeRefusal;
    },
    { inPlace: (posted) => posted.step === 'mfa' || ('sent' in posted && posted.sent) },
  );
  if (shown instanceof Response) return shown;
  return shown ? { ...state, ...shown } : state;
}

async function codePost<F extends Field>(astro: AstroGlobal, state: CodePageState, channel: CodeChannel<F>): Promise<CodePageState | Response> {
  const { services } = astro.locals;
  const { redirectTo } = state;
  const failed = (error: unknown) => {
    state.formError = passwordlessErrorMessage(error);
    astro.response.status = serviceStatusOf(error);
  };
  const posted = await postedForm(astro);
  state.to = String(posted.get(channel.field) ?? '').slice(0, channel.max);
  if (posted.get('action') === 'verify') {
    state.step = 'code';
    const parsed = checkForm(posted, { fields: [channel.field, 'code'], schema: channel.verify, max: channel.max });
    if (parsed.errors) {
      state.errors = parsed.errors;
      // A hand-edited address sends the user back to the first step.
      if (state.errors[channel.field]) state.step = 'address';
      astro.response.status = 400;
      return state;
    }
    try {
      const result = await channel.signIn(parsed.data[channel.field], parsed.data.code);
      if (result.session) {
        await writeSession(astro.cookies, services, cookieOf(result.session));
        return astro.redirect(redirectTo ?? HOME, 303);
      }
      // A second factor: its code next, on the sign-in page's step.
      state.mfaTicket = result.mfa.ticket;
      state.step = 'mfa';
    } catch (error) {
      failed(error);
    }
    return state;
  }
  const parsed = checkForm(posted, { fields: [channel.field], schema: channel.request, max: channel.max });
  if (parsed.errors) {
    state.errors = parsed.errors;
    astro.response.status = 400;
    return state;
  }
  try {
    await channel.send(parsed.data[channel.field]);
    state.to = parsed.data[channel.field];
    state.step = 'code';
    state.sent = true;
  } catch (error) {
    failed(error);
  }
  return state;
}
