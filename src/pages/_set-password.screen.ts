// The screen module of the password page (`/set-password`, SPEC §2.6, issue 14, decisions 023,
// 046, 065): what its URL may say (arrived from a reset link, opened from the profile menu's
// dialog), which form it is (a first password with the terms, a new one, an update asking the
// current one), and its one post, saved through the auth service.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { isServiceError, tooManyMessage } from '#lib/auth/errors.server.ts';
import { PASSWORD_DIALOG_REFUSAL } from '#lib/auth/password-dialog.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import { postOrShowRefusal, readForm, redirectRefusal } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { choice, readQuery } from '#lib/page-query.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { HOME } from '#lib/routes.ts';
import { resetPasswordSchema, setPasswordSchema, updatePasswordSchema, type FieldErrors } from '#lib/validation.ts';

/**
 * `/set-password?type=passwordReset`: arrived from a reset link; `retour`: from the profile menu's
 * dialog, checked by `safeRedirect` (kept whole: a cut path is another page).
 */
export const querySchema = z
  .object({ type: choice(['passwordReset'] as const), retour: z.string().nullable().catch(null) })
  .transform((q) => ({ reset: q.type === 'passwordReset', retour: q.retour }));

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type SetPasswordQuery = ReturnType<typeof read>;

/** Which form the page is: where it goes back to, opened from the dialog or not, the current password asked, a first password or not. */
export function load(locals: App.Locals, query: SetPasswordQuery) {
  const { services } = locals;
  const session = locals.session ?? undefined;
  const back = safeRedirect(query.retour, services.config.publicUrl)?.path ?? HOME;
  // Opened from the profile menu's dialog (?retour=): an update, which always asks for the current
  // password and goes back where the dialog was opened.
  const fromDialog = !!session && query.retour != null;
  const needsCurrent = fromDialog || (session ? services.auth.needsCurrentPassword(session) : false);
  // A first password comes with the terms of use, whatever the link says.
  const reset = needsCurrent || (query.reset && !!session?.user.passwordHash);
  return { back, fromDialog, needsCurrent, reset };
}

type Refused = { errors: FieldErrors; formError: string | null };

/**
 * The page's post, for a signed-in user: a redirect with its toast once saved (or, from the dialog,
 * with its refusal, decision 046); a refusal of the page's own form moves to its own address, whose
 * GET shows the messages again, never a password (decision 087): a reload sends nothing. Null for
 * nothing to show.
 */
export function post(astro: AstroGlobal, query: SetPasswordQuery): Promise<Response | Refused | null> {
  return postOrShowRefusal<Refused>(astro, () => setPassword(astro, query));
}

async function setPassword(astro: AstroGlobal, query: SetPasswordQuery): Promise<Response | Refused | null> {
  const { locals } = astro;
  const session = locals.session ?? undefined;
  if (!session) return null;
  const { back, fromDialog, needsCurrent, reset } = load(locals, query);
  let errors: FieldErrors = {};
  let formError: string | null = null;
  const parsed = await readForm(astro, {
    fields: ['currentPassword', 'password', 'confirmation', 'terms'],
    schema: needsCurrent ? updatePasswordSchema : reset ? resetPasswordSchema : setPasswordSchema,
    // The terms are asked of a first password only: the update schema refuses any other key.
    input: ({ terms, ...typed }) => (needsCurrent ? typed : { ...typed, terms }),
  });
  if (parsed.errors) errors = parsed.errors;
  else {
    try {
      const currentPassword = needsCurrent ? parsed.values.currentPassword : undefined;
      await locals.services.auth.changePassword({ newPassword: parsed.data.password, session, currentPassword }, { ip: locals.clientAddress });
      return redirectWithToast(astro, fromDialog ? t('success.passwordSaved') : t('success.passwordSet'), back);
    } catch (error) {
      const refusal = isServiceError(error) ? error : null;
      if (hasReason(refusal, 'invalid-current-password')) errors = { currentPassword: t('errors.currentPasswordWrong') };
      else if (refusal && hasReason(refusal, 'too-many-requests')) formError = tooManyMessage(refusal);
      // The API says it in hasura-auth's words; the page, in the catalogue's.
      else formError = hasReason(refusal, 'invalid-password') ? t('setPassword.rules') : t('errors.generic');
    }
  }
  // The dialog's refusal shows in the dialog, on the page it was opened from (decision 046).
  const moved = fromDialog ? await redirectRefusal(astro, { errors, formError }, back, PASSWORD_DIALOG_REFUSAL) : null;
  return moved ?? { errors, formError };
}
