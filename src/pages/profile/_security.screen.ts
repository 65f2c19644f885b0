// The screen module of the account's security page (`/profile/security`, issue 18, decisions 028,
// 048, 065): what it reads (the proof a new way in waits for, the app's enrolment in progress, the
// account's second factor and its recovery codes left) and its posts: the proof, the app's set-up,
// activation, cancel, new recovery codes and removal, through the MFA service bound to the sign-in.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { isServiceError, signInErrorMessage } from '#lib/auth/errors.server.ts';
import { proofAskOf, proveFromForm } from '#lib/auth/proof.server.ts';
import { SECURITY_PAGE } from '#lib/auth/security-keys.server.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import { checkForm, postedForm, postOrShowRefusal } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readQuery } from '#lib/page-query.ts';
import { secondFactorSchema, totpCodeSchema, type FieldErrors } from '#lib/validation.ts';

/** `/profile/security`: its URL says nothing the page reads (the keys' section reads its own). */
export const querySchema = z.object({});

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type SecurityQuery = ReturnType<typeof read>;

/** What a post leaves to show: its messages, the form they belong to, recovery codes made (shown once). */
export type SecurityPosted = { errors: FieldErrors; formError: string | null; failed: string | null; recoveryCodes: string[] | null };

/**
 * The page's posts: a redirect (to the enrolment's new secret, to the keys once proved, with the
 * removal's toast); a refusal (a wrong password or code, a throttled wait) moves to the page's own
 * address, whose GET shows its messages again beside the form that posted, never what was typed
 * in a password or code field (decisions 039, 087): a reload sends nothing again, and the pending
 * secret, kept by the account, is the same. New recovery codes are shown in place, once. What the
 * page shows once (a secret, recovery codes) is never cached.
 */
export async function post(astro: AstroGlobal, _query: SecurityQuery): Promise<Response | SecurityPosted> {
  astro.response.headers.set('Cache-Control', 'no-store');
  const shown = await postOrShowRefusal<SecurityPosted>(astro, () => securityPost(astro), { inPlace: (state) => !!state.recoveryCodes });
  return shown ?? { errors: {}, formError: null, failed: null, recoveryCodes: null };
}

async function securityPost(astro: AstroGlobal): Promise<Response | SecurityPosted> {
  const state: SecurityPosted = { errors: {}, formError: null, failed: null, recoveryCodes: null };
  const { services, session } = astro.locals;
  const caller = { ip: astro.locals.clientAddress };
  const enabled = services.auth.methods.totp;
  const form = await postedForm(astro);
  const action = String(form.get('action') ?? '');
  state.failed = action;
  try {
    const refused = action === 'generate' || action === 'prove' ? await proveFromForm(services, session!, form, caller) : null;
    if (refused) {
      state.errors = refused.errors;
      // The reason stays in the form that asks; only a throttled proof says more, above.
      if (refused.status === 429) state.formError = refused.formError;
    } else if (action === 'prove') {
      // Proved for the keys: back to them, to the deletion that waited if there was one.
      const key = String(form.get('supprimer-cle') ?? '');
      return astro.redirect(`${SECURITY_PAGE}${isUuid(key) ? `?supprimer-cle=${key}` : ''}#cles-securite-titre`, 303);
    } else if (!enabled) {
      return astro.redirect(SECURITY_PAGE, 303);
    } else if (action === 'generate') {
      // The new secret is shown by the page's GET: a reload shows the same one, never makes another.
      await services.mfa.generateTotp(session!);
      return astro.redirect(SECURITY_PAGE, 303);
    } else if (action === 'cancel') {
      await services.mfa.cancelTotp(session!);
      return astro.redirect(SECURITY_PAGE, 303);
    } else if (action === 'activate') {
      const parsed = checkForm(form, { fields: ['code'], schema: totpCodeSchema });
      if (parsed.errors) state.errors = parsed.errors;
      else {
        state.recoveryCodes = (await services.mfa.activateTotp(session!, parsed.data.code, caller)).recoveryCodes;
        state.failed = null;
      }
    } else if (action === 'regenerate' || action === 'deactivate') {
      const parsed = checkForm(form, { fields: ['code'], schema: secondFactorSchema });
      if (parsed.errors) state.errors = parsed.errors;
      else if (action === 'regenerate') {
        state.recoveryCodes = (await services.mfa.regenerateRecoveryCodes(session!, parsed.data.code, caller)).recoveryCodes;
        state.failed = null;
      } else {
        await services.mfa.deactivateTotp(session!, parsed.data.code, caller);
        return redirectWithToast(astro, t('security.deactivated'), SECURITY_PAGE);
      }
    } else {
      return astro.redirect(SECURITY_PAGE, 303);
    }
  } catch (error) {
    const refusal = isServiceError(error) ? error : null;
    if (hasReason(refusal, 'elevated-claim-required')) state.formError = t('refusals.elevationRequired');
    else if (hasReason(refusal, 'invalid-totp')) state.errors = { code: t('security.codeWrong') };
    else state.formError = hasReason(refusal, 'too-many-requests') ? signInErrorMessage(error) : t('errors.generic');
  }
  return state;
}

/**
 * What the page shows, read once the post is done: the proof a new way in waits for (decision 048,
 * asked in the form that starts it: the app's set-up, or the keys' own small form; a key alone
 * proves itself on /profile/confirm), the enrolment in progress (its secret and QR code, shown only
 * to a sign-in that has proved itself: another starts over with the proof, which makes a new
 * secret), the account as it is now, and its recovery codes left.
 */
export async function load(locals: App.Locals, _query: SecurityQuery, posted: SecurityPosted) {
  const { services, session } = locals;
  const user = session!.user;
  const enabled = services.auth.methods.totp;
  const [{ ask, pending }, fresh] = await withinBudget(
    locals,
    Promise.all([
      proofAskOf(services, session!).then(async (ask) => ({ ask, pending: enabled && !ask ? await services.mfa.pendingTotp(user.id) : null })),
      services.auth.findUserById(user.id),
    ]),
  );
  const active = fresh?.activeMfaType === 'totp';
  const left = active ? await withinBudget(locals, services.mfa.recoveryCodesLeft(user.id)) : 0;
  const { recoveryCodes } = posted;
  // Activated: the enrolment is over, its codes shown instead.
  const shownPending = recoveryCodes ? null : pending;
  return {
    enabled,
    sms: services.auth.methods.sms,
    ask,
    pending: shownPending,
    active,
    left,
    phoneNumber: fresh?.phoneNumber ?? null,
    secretGroups: shownPending?.totpSecret.match(/.{1,4}/g)?.join(' ') ?? '',
    codesFile: recoveryCodes
      ? `data:text/plain;charset=utf-8,${encodeURIComponent(`${t('security.recoveryFileTitle', { email: fresh?.email ?? '' })}\n\n${recoveryCodes.join('\n')}\n`)}`
      : '',
  };
}
