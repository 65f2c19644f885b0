// The users screen (SPEC §2.9, §9): documents, list rules and the add-user form, shared by the
// page (first render on the server) and its island (live afterwards).
import { flag, page, readQuery, recordId, text } from '#lib/page-query.ts';
import { isUuid } from '#lib/ids.ts';
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { roles } from '#lib/roles.ts';
import { escapeLike } from '#lib/search.ts';
import { email, required } from '#lib/validation.ts';
import { graphql, type ResultOf } from '#lib/graphql.ts';

export const USERS_PAGE_SIZE = 15;

const UserListFields = graphql(`fragment UserListFields on users { id displayName email defaultRole disabled emailVerified }`);
export const USERS_QUERY = graphql(
  `query UsersPage($where: users_bool_exp, $limit: Int, $offset: Int) {
    users(where: $where, limit: $limit, offset: $offset, order_by: [{ displayName: asc }, { email: asc }]) { ...UserListFields }
    usersAggregate(where: $where) { aggregate { count } }
  }`,
  [UserListFields],
);
export const USERS_LIVE = graphql(
  `subscription UsersLive($where: users_bool_exp, $limit: Int, $offset: Int) {
    users(where: $where, limit: $limit, offset: $offset, order_by: [{ displayName: asc }, { email: asc }]) { ...UserListFields }
  }`,
  [UserListFields],
);
export const USERS_COUNT_LIVE = graphql(`subscription UsersCount($where: users_bool_exp) { usersAggregate(where: $where) { aggregate { count } } }`);
export const INSERT_USER = graphql(`mutation InsertUser($object: users_insert_input!) { insertUser(object: $object) { id } }`);
export const UPDATE_USER = graphql(`mutation UpdateUser($id: uuid!, $set: users_set_input!) { updateUser(pk_columns: { id: $id }, _set: $set) { id } }`);
export const UPDATE_PROFILE = graphql(
  `mutation UpdateProfile($id: uuid!, $set: users_set_input!) { updateUser(pk_columns: { id: $id }, _set: $set) { displayName email newEmail } }`,
);
export const DELETE_USER = graphql(`mutation DeleteUser($id: uuid!) { deleteUser(id: $id) { id } }`);
export const RESEND_EMAIL = graphql(`mutation Resend($id: uuid!) { sendVerificationEmail(id: $id) }`);
export const SIGN_OUT_USER = graphql(`mutation SignOutUser($id: uuid!) { signOutUser(id: $id) }`);

export type UserListItem = ResultOf<typeof UserListFields>;
export type UsersPage = ResultOf<typeof USERS_QUERY>;

/** Case-insensitive search over name or e-mail (SPEC §9); the user's % and _ are literal. */
export function usersWhere(search: string) {
  const text = search.trim();
  if (!text) return {};
  const pattern = `%${escapeLike(text)}%`;
  return { _or: [{ displayName: { _ilike: pattern } }, { email: { _ilike: pattern } }] };
}

export function usersVariables(search: string, page: number) {
  return { where: usersWhere(search), limit: USERS_PAGE_SIZE, offset: (page - 1) * USERS_PAGE_SIZE };
}

/**
 * `/users?recherche=&page=`, as the users screen reads it; without JavaScript also `&ajouter`
 * (the add form) and `&supprimer=id` (a deletion to confirm).
 */
export const usersQuerySchema = z
  .object({ recherche: text(120), page: page(), ajouter: flag(), supprimer: recordId() })
  .transform((q) => ({ search: q.recherche, page: q.page, adding: q.ajouter, confirmDelete: q.supprimer }));

export const readUsersQuery = (params: URLSearchParams) => readQuery(usersQuerySchema, params);

/** The admin's actions as the screen posts them without JavaScript (the island calls the API). */
export const userActions = ['ajouter', 'role', 'desactiver', 'activer', 'deconnecter', 'renvoyer', 'supprimer'] as const;
export const userActionSchema = z.object({
  action: z.enum(userActions),
  id: z.string().refine(isUuid).optional(),
  defaultRole: z.enum(roles).optional(),
});

export function usersHref(search: string, page: number, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (search.trim()) params.set('recherche', search.trim());
  if (page > 1) params.set('page', String(page));
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const query = params.toString();
  return query ? `/users?${query}` : '/users';
}

export type UserStatus = 'active' | 'pending' | 'disabled';
export function statusOf(user: Pick<UserListItem, 'disabled' | 'emailVerified'>): UserStatus {
  if (user.disabled) return 'disabled';
  return user.emailVerified ? 'active' : 'pending';
}

/** A user, as every form and the API check it: each form picks its fields. */
export const userSchema = z.object({
  displayName: required().max(120, t('validation.maxLength', { max: 120 })),
  email: email(),
  defaultRole: z.enum(roles, { error: (issue) => (issue.input === undefined || issue.input === '' ? t('validation.required') : t('refusals.unknownRole')) }),
  disabled: z.boolean(),
});
export const addUserSchema = userSchema.pick({ displayName: true, email: true, defaultRole: true });
/** The profile menu's form: one's own name and e-mail. */
export const profileSchema = userSchema.pick({ displayName: true, email: true });
