// Proof before changing a way in (issue 29, decision 048), as the screens ask it: in the form
// that makes the change, the current password or the authenticator's code; a security key on
// /profile/confirm. One helper for every screen that changes a way in.
import type { ProofKind, SessionRow } from '#server/auth/service.ts';
import type { Services } from '#server/services.ts';
import { isServiceError, serviceStatusOf, signInErrorMessage } from '#lib/auth/errors.server.ts';
import { hasReason } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import type { FieldErrors } from '#lib/validation.ts';

/** What the form shows to prove the account: a field, a key's link, or a message alone. */
export type ProofAsk = 'password' | 'code' | 'key' | 'signIn' | 'pat';

/** What this sign-in must still prove before a change of a way in, as the form asks it; null when proved. */
export async function proofAskOf(services: Services, session: SessionRow): Promise<ProofAsk | null> {
  const kind: ProofKind | null = await services.auth.proofNeeded(session);
  if (kind !== 'secondFactor') return kind;
  return (await services.auth.secondFactorsOf(session.user)).totp ? 'code' : 'key';
}

/** The French sentence above a form that asks `ask`. */
export const proofMessage = (ask: ProofAsk): string =>
  ({ password: t('proof.passwordAsk'), code: t('proof.codeAsk'), key: t('proof.keyAsk'), signIn: t('proof.signInAgain'), pat: t('proof.patRefused') })[ask];

export type ProofRefusal = { ask: ProofAsk; errors: FieldErrors; formError: string | null; status: number };

/**
 * Proves the sign-in with what the form posted (`currentPassword` or `code`), when it must:
 * null once proved (or when nothing was needed), else what to show again beside the form.
 */
export async function proveFromForm(services: Services, session: SessionRow, form: FormData, caller: { ip: string }): Promise<ProofRefusal | null> {
  const ask = await proofAskOf(services, session);
  if (!ask) return null;
  const field = ask === 'password' ? 'currentPassword' : 'code';
  const typed = String(form.get(field) ?? '').slice(0, 256);
  const refuse = (errors: FieldErrors = {}, status = 403): ProofRefusal => ({ ask, errors, formError: proofMessage(ask), status });
  if (ask !== 'password' && ask !== 'code') return refuse();
  // The field left empty says so beside it; a form that did not show it yet only asks it.
  if (!typed.trim()) return refuse(form.has(field) ? { [field]: t('validation.required') } : {});
  try {
    if (ask === 'password') await services.auth.proveWithPassword(session, typed, caller);
    else await services.mfa.elevateTotp(session, typed, caller);
    return null;
  } catch (error) {
    if (!isServiceError(error)) throw error;
    if (hasReason(error, 'invalid-current-password')) return refuse({ currentPassword: t('errors.currentPasswordWrong') }, 400);
    if (hasReason(error, 'invalid-totp')) return refuse({ code: t('security.codeWrong') }, 400);
    if (hasReason(error, 'too-many-requests')) return { ask, errors: {}, formError: signInErrorMessage(error), status: 429 };
    // Any other refusal (an app whose secret this installation cannot open): said, never a 500.
    return { ask, errors: {}, formError: signInErrorMessage(error), status: serviceStatusOf(error) };
  }
}
