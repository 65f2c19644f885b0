// The screen module of the profile page (`/profile`, SPEC §2.5, decisions 019, 023, 065): what its
// URL may say (where «Retour» goes), and its one post, the user's own name and e-mail, saved
// through the users service bound to the viewer; a new address asks the account's proof first
// (decision 048) and takes effect from the link sent to it.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { proofAskOf, proofMessage, proveFromForm, type ProofAsk } from '#lib/auth/proof.server.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { checkForm, postedForm, postOrShowRefusal, submitForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { readQuery } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { HOME } from '#lib/routes.ts';
import { profileSchema } from '#lib/users/users.ts';
import type { FieldErrors } from '#lib/validation.ts';

/** `/profile?retour=`: the page to go back to once saved, checked by `safeRedirect` (kept whole: a cut path is another page). */
export const querySchema = z.object({ retour: z.string().nullable().catch(null) });

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type ProfileQuery = ReturnType<typeof read>;

/** What the form shows: the account's name and e-mail, or what was typed and refused, with the proof it asks. */
export type ProfileForm = { values: { displayName: string; email: string }; errors: FieldErrors; formError: string | null; ask: ProofAsk | null };
type Refused = Omit<ProfileForm, 'ask'> & { ask?: ProofAsk | null; status?: number };

const form = { fields: ['displayName', 'email'], schema: profileSchema, max: 320 } as const;

/**
 * The profile's post (its own name and e-mail, for a role that may edit them): a redirect with its
 * toast, or on a GET what a refused post left to show again (decision 039); null for nothing.
 */
export async function post(astro: AstroGlobal): Promise<Response | Refused | null> {
  const { services, session, user } = astro.locals;
  if (!can(user?.role, 'editOwnProfile')) return null;
  // A refusal moves to this page's own address (decision 039); a password typed is never kept.
  return postOrShowRefusal<Refused>(astro, async () => {
    const posted = await postedForm(astro);
    const checked = checkForm(posted, form);
    const typed = checked.values;
    // A new address is a way in: the account's strongest factor first, typed in this form, and
    // only then whether the address is free (decision 048: a stolen sign-in learns no account).
    if (typed.email.trim().toLowerCase() !== (user!.email ?? '').toLowerCase() && !checked.errors) {
      const refused = await proveFromForm(services, session!, posted, { ip: astro.locals.clientAddress });
      if (refused) return { values: typed, ...refused };
    }
    return submitForm(astro, form, async (set) => {
      await services.users.update(user!.id, set);
      // A new address takes effect from the link sent to it: say where to look.
      const asked = set.email.toLowerCase() !== (user!.email ?? '').toLowerCase();
      return redirectWithToast(
        astro,
        asked ? t('success.emailChangeSent', { email: set.email }) : t('success.profileSaved'),
        astro.url.pathname + astro.url.search,
      );
    });
  });
}

/** Where «Retour» goes, and the form: the account's own values, or a refusal shown again with what is still needed now. */
export async function load(locals: App.Locals, query: ProfileQuery, refused: Refused | null) {
  const user = locals.user!;
  const { services, session } = locals;
  const back = safeRedirect(query.retour, services.config.publicUrl)?.path ?? HOME;
  const shown: ProfileForm = refused
    ? { values: refused.values, errors: refused.errors, formError: refused.formError, ask: refused.ask ?? null }
    : { values: { displayName: user.displayName, email: user.email ?? '' }, errors: {}, formError: null, ask: null };
  // Shown again after the proof was given elsewhere (a key, a new sign-in): what is still needed now.
  if (shown.ask) {
    const now = await proofAskOf(services, session!);
    if (now !== shown.ask) {
      if (shown.formError === proofMessage(shown.ask)) shown.formError = now ? proofMessage(now) : null;
      const { currentPassword: _password, code: _code, ...kept } = shown.errors;
      shown.errors = kept;
      shown.ask = now;
    }
  }
  return { back, canEdit: can(user.role, 'editOwnProfile'), ...shown };
}
