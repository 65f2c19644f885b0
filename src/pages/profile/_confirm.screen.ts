// The screen module of the step-up page (`/profile/confirm`, issue 18 item 7, decisions 048, 065):
// what its URL may say (where to go back), what it reads (the account's second factors, or without
// one the proof a change of a way in asks) and its posts: a code of the app (or a recovery code), a
// key proved by the page's script, or the current password; each elevates the sign-in through the
// auth services and goes back with the same toast.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { isServiceError, serviceStatusOf, signInErrorMessage } from '#lib/auth/errors.server.ts';
import { proveFromForm } from '#lib/auth/proof.server.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import { checkForm, postedForm, postOrShowRefusal } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readQuery } from '#lib/page-query.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { HOME } from '#lib/routes.ts';
import { secondFactorSchema, type FieldErrors } from '#lib/validation.ts';

/** `/profile/confirm?retour=`: where to go back once the identity is confirmed, checked by `safeRedirect` (kept whole). */
export const querySchema = z.object({ retour: z.string().nullable().catch(null) });

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type ConfirmQuery = ReturnType<typeof read>;

/** Where to go back, the account's second factors and, without one, the proof asked (the current password, or a new sign-in). */
export async function load(locals: App.Locals, query: ConfirmQuery) {
  const { services, session } = locals;
  const back = safeRedirect(query.retour, services.config.publicUrl)?.path ?? HOME;
  const { totp: hasTotp, securityKey: hasKeys } = await withinBudget(locals, services.auth.secondFactorsOf(session!.user));
  const ask = hasTotp || hasKeys ? null : await withinBudget(locals, services.auth.proofNeeded(session!));
  return { back, hasTotp, hasKeys, ask };
}

type Confirming = Awaited<ReturnType<typeof load>>;

type Refused = { errors: FieldErrors; formError: string | null };

/**
 * The page's posts: a redirect with its toast once the sign-in is elevated; a refusal (a wrong
 * password or code, a throttled wait) moves to the page's own address (`retour` kept), whose GET
 * shows its messages again, never what was typed (decision 087): a reload sends nothing. Null for
 * nothing to show.
 */
export function post(astro: AstroGlobal, confirming: Confirming): Promise<Response | Refused | null> {
  return postOrShowRefusal<Refused>(astro, () => confirm(astro, confirming));
}

async function confirm(astro: AstroGlobal, { back, hasTotp, hasKeys, ask }: Confirming): Promise<Response | Refused> {
  const { services, session } = astro.locals;
  let errors: FieldErrors = {};
  let formError: string | null = null;
  // The key proved by the page's script: the same toast as the code's and the password's.
  if (hasKeys) {
    const form = await postedForm(astro);
    if (form.get('action') === 'cle' && !(await services.auth.proofNeeded(session!))) return redirectWithToast(astro, t('security.stepUpDone'), back);
  }
  if (ask === 'password') {
    const form = await postedForm(astro);
    const refused = await proveFromForm(services, session!, form, { ip: astro.locals.clientAddress });
    if (!refused) return redirectWithToast(astro, t('security.stepUpDone'), back);
    ({ errors, formError } = refused);
    if (Object.keys(errors).length) formError = null;
    else if (!String(form.get('currentPassword') ?? '')) errors = { currentPassword: t('validation.required') };
    astro.response.status = refused.status;
  }
  if (hasTotp) {
    const parsed = checkForm(await postedForm(astro), { fields: ['code'], schema: secondFactorSchema });
    if (parsed.errors) errors = parsed.errors;
    else {
      try {
        await services.mfa.elevateTotp(session!, parsed.data.code, { ip: astro.locals.clientAddress });
        return redirectWithToast(astro, t('security.stepUpDone'), back);
      } catch (error) {
        const refusal = isServiceError(error) ? error : null;
        if (hasReason(refusal, 'invalid-totp')) errors = { code: t('security.codeWrong') };
        else formError = hasReason(refusal, 'too-many-requests') ? signInErrorMessage(error) : t('errors.generic');
        astro.response.status = serviceStatusOf(error);
      }
    }
    if (Object.keys(errors).length && astro.response.status === 200) astro.response.status = 400;
  }
  return { errors, formError };
}
