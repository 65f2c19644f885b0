// The screen module of the users page (`/users`, SPEC §2.9, admin only, decision 065): what its
// URL may say, the first page of the list rendered on the server (the island keeps it live), and
// the admin's actions posted without JavaScript (decision 019): add, role, disable, sign out
// everywhere, resend the e-mail, delete after confirmation; all through the viewer's services.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { redirectWithToast, setFlash } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import { formFailureOf, formValues, postedForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { lastPageIfBeyond, withinBudget } from '#lib/page-budget.ts';
import { flag, page, readQuery, recordId, text } from '#lib/page-query.ts';
import { type UserListItem, USERS_PAGE_SIZE, usersHref, usersWhere } from '#lib/users/user-list.ts';
import { addUserSchema, userActionSchema } from '#lib/users/users.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';

/**
 * `/users?recherche=&page=`, as the users screen reads it; without JavaScript also `&ajouter`
 * (the add form) and `&supprimer=id` (a deletion to confirm).
 */
export const querySchema = z
  .object({ recherche: text(120), page: page(), ajouter: flag(), supprimer: recordId() })
  .transform((q) => ({ search: q.recherche, page: q.page, adding: q.ajouter, confirmDelete: q.supprimer }));

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** Everything the page reads from its URL. */
type UsersPageQuery = ReturnType<typeof read>;

/** An add form that did not go through: what was typed and what is wrong beside it. */
export type AddUserFailure = { addValues: Record<string, string>; addErrors: FieldErrors; status: number };

/**
 * The admin's post (`action=`): a redirect with its toast (a refusal, other than the add form's,
 * is a flash over the list), or the add form to show again.
 */
export async function post(astro: AstroGlobal, { search, page }: Pick<UsersPageQuery, 'search' | 'page'>): Promise<Response | AddUserFailure> {
  const { users } = astro.locals.services;
  const back = usersHref(search, page);
  const form = await postedForm(astro);
  const posted = userActionSchema.safeParse(Object.fromEntries([...form].map(([k, v]) => [k, String(v)])));
  const failed = (message: string) => {
    setFlash(astro.cookies, { type: 'error', message });
    return astro.redirect(back, 303);
  };
  // Step-up: the proof asked for, then back to the list to do it again.
  const stepUp = () => astro.redirect(`/profile/confirm?retour=${encodeURIComponent(back)}`, 303);
  if (!posted.success) return failed(t('errors.generic'));
  const { action, id, defaultRole } = posted.data;
  if (action === 'ajouter') {
    const addValues: Record<string, string> = formValues(form, ['displayName', 'email', 'defaultRole'], 320);
    let addErrors: FieldErrors = {};
    const parsed = addUserSchema.safeParse(addValues);
    if (!parsed.success) addErrors = fieldErrors(parsed.error);
    else {
      try {
        await users.insert(parsed.data);
        return redirectWithToast(astro, t('users.added'), back);
      } catch (error) {
        // An address in use is said beside it; any other refusal, over the list.
        const refusal = formFailureOf(error, { fields: ['email'] });
        const { errors, formError } = refusal;
        if (hasReason(refusal, 'elevated-claim-required')) return stepUp();
        if (!errors.email) return failed(formError ?? t('errors.generic'));
        addErrors = errors;
      }
    }
    return { addValues, addErrors, status: 400 };
  }
  if (!id) return failed(t('errors.generic'));
  let name = '';
  try {
    if (action === 'role' && defaultRole) await users.update(id, { defaultRole });
    else if (action === 'desactiver' || action === 'activer') await users.update(id, { disabled: action === 'desactiver' });
    else if (action === 'deconnecter') {
      // The toast names who was signed out.
      name = (await users.get(id))?.displayName ?? '';
      await users.signOut(id);
    } else if (action === 'renvoyer') await users.resendAccountEmail(id);
    else if (action === 'supprimer') await users.remove(id);
    else return failed(t('errors.generic'));
    const done = {
      role: t('users.updated'),
      desactiver: t('users.updated'),
      activer: t('users.updated'),
      deconnecter: t('users.signedOut', { name }),
      renvoyer: t('users.emailSent'),
      supprimer: t('users.deleted'),
    }[action];
    return redirectWithToast(astro, done, back);
  } catch (error) {
    const failure = formFailureOf(error, { fields: [] });
    if (hasReason(failure, 'elevated-claim-required')) return stepUp();
    return failed(failure.formError ?? t('errors.generic'));
  }
}

/** A user as the list shows it and the island keeps it: no other field of the account leaves the server. */
const listed = (u: UserListItem): UserListItem => ({
  id: u.id,
  displayName: u.displayName,
  email: u.email,
  defaultRole: u.defaultRole,
  disabled: u.disabled,
  emailVerified: u.emailVerified,
});

/**
 * The URL's page of the list (the last when a bookmark asks past the end, said above the list),
 * its count and the user whose deletion is to confirm (never oneself); null when the reads fail.
 */
export async function load(locals: App.Locals, { search, page, confirmDelete }: Pick<UsersPageQuery, 'search' | 'page' | 'confirmDelete'>) {
  const { users } = locals.services;
  const where = usersWhere(search);
  // The page and its count in one read.
  const pageOf = (p: number) =>
    users.page({ where, orderBy: [{ displayName: 'asc' }, { email: 'asc' }], limit: USERS_PAGE_SIZE, offset: (p - 1) * USERS_PAGE_SIZE });
  try {
    const asked = await withinBudget(locals, pageOf(page));
    const shown = await lastPageIfBeyond(locals, {
      asked: page,
      size: USERS_PAGE_SIZE,
      total: asked.total,
      rows: asked.rows,
      rowsOf: async (p) => (await pageOf(p)).rows,
    });
    const listedRows = shown.rows.map(listed);
    const deleting = confirmDelete ? listedRows.find((u) => u.id === confirmDelete && u.id !== locals.user!.id) : undefined;
    return { users: listedRows, count: asked.total, page: shown.page, ignoredPage: shown.ignoredPage, deleting };
  } catch {
    return null;
  }
}
