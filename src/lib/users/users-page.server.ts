// The users page (`/users`, SPEC §2.9, admin only): the first page of the list, rendered on the
// server, and the admin's actions posted without JavaScript (decision 019): add, role, disable,
// sign out everywhere, resend the e-mail, delete after confirmation.
import type { AstroGlobal } from 'astro';
import { redirectWithToast, setFlash } from '#lib/auth/session.server.ts';
import { formFailureOf, formValues } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { hasReason } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';
import { addUserSchema, type readUsersQuery, userActionSchema } from './users.ts';
import { DELETE_USER, INSERT_USER, RESEND_EMAIL, SIGN_OUT_USER, UPDATE_USER, type UsersPage, USERS_QUERY, usersHref, usersVariables } from './user-list.ts';

/** Everything the page reads from its URL. */
type UsersPageQuery = ReturnType<typeof readUsersQuery>;

const USER_NAME = graphql(`query($id: uuid!) { user(id: $id) { displayName } }`);

/** An add form that did not go through: what was typed and what is wrong beside it. */
export type AddUserFailure = { addValues: Record<string, string>; addErrors: FieldErrors; status: number };

/**
 * The admin's post (`action=`): a redirect with its toast (a refusal, other than the add form's,
 * is a flash over the list), or the add form to show again.
 */
export async function postUsersPage(astro: AstroGlobal, { search, page }: Pick<UsersPageQuery, 'search' | 'page'>): Promise<Response | AddUserFailure> {
  const api = serverGraphQL(astro.locals);
  const back = usersHref(search, page);
  const form = await astro.request.formData().catch(() => new FormData());
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
        await api.request(INSERT_USER, { object: parsed.data });
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
    if (action === 'role' && defaultRole) await api.request(UPDATE_USER, { id, set: { defaultRole } });
    else if (action === 'desactiver' || action === 'activer') await api.request(UPDATE_USER, { id, set: { disabled: action === 'desactiver' } });
    else if (action === 'deconnecter') {
      // The toast names who was signed out.
      name = (await api.request(USER_NAME, { id })).user?.displayName ?? '';
      await api.request(SIGN_OUT_USER, { id });
    } else if (action === 'renvoyer') await api.request(RESEND_EMAIL, { id });
    else if (action === 'supprimer') await api.request(DELETE_USER, { id });
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

/** The URL's page of the list and the user whose deletion is to confirm (never oneself); null when the API fails. */
export async function loadUsersPage(locals: App.Locals, { search, page, confirmDelete }: Pick<UsersPageQuery, 'search' | 'page' | 'confirmDelete'>) {
  let data: UsersPage;
  try {
    data = await serverGraphQL(locals).request(USERS_QUERY, usersVariables(search, page));
  } catch {
    return null;
  }
  const deleting = confirmDelete ? data.users.find((u) => u.id === confirmDelete && u.id !== locals.user!.id) : undefined;
  return { data, deleting };
}
