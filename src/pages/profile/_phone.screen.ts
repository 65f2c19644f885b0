// The screen module of the signed-in user's mobile number for SMS sign-in (`/profile/phone`,
// issue 18 item 3, decisions 048, 065): on when SMS is (a 404 otherwise); what it reads (the proof a
// new way in asks) and its posts: the number (a code sent to it), the code typed back (the number
// kept), the number removed; each through the passwordless service once the sign-in proved itself.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { isServiceError, passwordlessErrorMessage, serviceStatusOf } from '#lib/auth/errors.server.ts';
import { smsCodeSchema, smsRequestSchema } from '#lib/auth/passwordless.ts';
import { proofAskOf, proveFromForm, type ProofAsk } from '#lib/auth/proof.server.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import { checkForm, postedForm, postOrShowRefusal } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readQuery } from '#lib/page-query.ts';
import type { FieldErrors } from '#lib/validation.ts';

/** `/profile/phone`: its URL says nothing more. */
export const querySchema = z.object({});

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type PhoneQuery = ReturnType<typeof read>;

/** What the page shows: the number typed, the step (the number, then its code), the messages, the proof still asked. */
export type PhoneState = {
  phone: string;
  step: 'number' | 'code';
  errors: FieldErrors;
  formError: string | null;
  ask: ProofAsk | null;
  /** A proof just refused: its reason shown as an alert in the form. */
  proofRefused: boolean;
};

/**
 * SMS on or off (off, the default: a 404 at this address, as /sign-in/sms, saying that the workshop
 * does not offer it), the number kept today and the first view's state, with the proof a new way in asks.
 */
export async function load(locals: App.Locals, _query: PhoneQuery) {
  const { services, session } = locals;
  const enabled = services.auth.methods.sms;
  const ask = enabled ? await withinBudget(locals, proofAskOf(services, session!)) : null;
  const state: PhoneState = { phone: '', step: 'number', errors: {}, formError: null, ask, proofRefused: false };
  return { enabled, current: session!.user.phoneNumber, state };
}

/**
 * The page's posts, on the state `load` read: a redirect to the security page with its toast; the
 * code sent, shown in place (its step); a refusal (a number to fix, a wrong password or code, a
 * throttled wait) moves to the page's own address, whose GET shows it again with the number typed,
 * never a password or a code, and the proof asked now (decision 087): a reload sends nothing.
 */
export async function post(astro: AstroGlobal, { enabled, state }: Awaited<ReturnType<typeof load>>): Promise<Response | PhoneState> {
  if (!enabled) {
    astro.response.status = 404;
    return state;
  }
  const codeSent = (posted: PhoneState) => posted.step === 'code' && !posted.formError && !Object.keys(posted.errors).length;
  const shown = await postOrShowRefusal<PhoneState>(astro, () => phonePost(astro, state), { inPlace: codeSent });
  if (shown instanceof Response || shown === null) return shown ?? state;
  // What is asked is what is needed now (decision 064), not what the refusal asked.
  return { ...shown, ask: state.ask };
}

async function phonePost(astro: AstroGlobal, state: PhoneState): Promise<Response | PhoneState> {
  const { services, session } = astro.locals;
  const caller = { ip: astro.locals.clientAddress };
  const form = await postedForm(astro);
  const action = String(form.get('action') ?? '');
  state.phone = String(form.get('phoneNumber') ?? '').slice(0, 64);
  try {
    const refused = action === 'confirm' ? null : await proveFromForm(services, session!, form, caller);
    if (!refused) state.ask = null;
    if (refused) {
      state.errors = refused.errors;
      state.proofRefused = true;
      if (refused.status === 429) state.formError = refused.formError;
      astro.response.status = refused.status;
    } else if (action === 'remove') {
      await services.passwordless.removePhone(session!, caller);
      return redirectWithToast(astro, t('passwordless.phoneRemoved'), '/profile/security');
    } else if (action === 'confirm') {
      state.step = 'code';
      const parsed = checkForm(form, { fields: ['phoneNumber', 'code'], schema: smsCodeSchema, max: 64 });
      if (parsed.errors) state.errors = parsed.errors;
      else {
        await services.passwordless.confirmPhone(session!, parsed.data.phoneNumber, parsed.data.code, caller);
        return redirectWithToast(astro, t('passwordless.phoneSaved'), '/profile/security');
      }
    } else {
      const parsed = checkForm(form, { fields: ['phoneNumber'], schema: smsRequestSchema, max: 64 });
      if (parsed.errors) state.errors = parsed.errors;
      else {
        await services.passwordless.sendPhoneCode(session!, parsed.data.phoneNumber, caller);
        state.phone = parsed.data.phoneNumber;
        state.step = 'code';
      }
    }
  } catch (error) {
    const refusal = isServiceError(error) ? error : null;
    if (hasReason(refusal, 'elevated-claim-required')) state.formError = t('refusals.elevationRequired');
    else if (hasReason(refusal, 'phone-number-already-in-use')) {
      state.errors = { phoneNumber: t('passwordless.phoneInUse') };
      state.step = 'number';
    } else state.formError = passwordlessErrorMessage(error);
    astro.response.status = serviceStatusOf(error);
  }
  if (Object.keys(state.errors).length && astro.response.status === 200) astro.response.status = 400;
  return state;
}
