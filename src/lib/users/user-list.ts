// The users list as the page renders it and the island keeps it live: the island's documents,
// search and page rules, the admin's mutations. Its own module: the island imports it, and takes no zod with it.
import { graphql, type ResultOf } from '#lib/graphql.ts';
import { escapeLike } from '#lib/search.ts';

export const USERS_PAGE_SIZE = 15;

const UserListFields = graphql(`fragment UserListFields on users { id displayName email defaultRole disabled emailVerified }`);
export const USERS_LIVE = graphql(
  `subscription UsersLive($where: users_bool_exp, $limit: Int, $offset: Int) {
    users(where: $where, limit: $limit, offset: $offset, order_by: [{ displayName: asc }, { email: asc }]) { ...UserListFields }
  }`,
  [UserListFields],
);
export const USERS_COUNT_LIVE = graphql(`subscription UsersCount($where: users_bool_exp) { usersAggregate(where: $where) { aggregate { count } } }`);
export const INSERT_USER = graphql(`mutation InsertUser($object: users_insert_input!) { insertUser(object: $object) { id } }`);
export const UPDATE_USER = graphql(`mutation UpdateUser($id: uuid!, $set: users_set_input!) { updateUser(pk_columns: { id: $id }, _set: $set) { id } }`);
export const DELETE_USER = graphql(`mutation DeleteUser($id: uuid!) { deleteUser(id: $id) { id } }`);
/** An account read again after a change whose reply was lost: did the change arrive? */
export const USER_NOW = graphql(`query UserNow($id: uuid!) { user(id: $id) { id defaultRole disabled } }`);
export const RESEND_EMAIL = graphql(`mutation Resend($id: uuid!) { sendVerificationEmail(id: $id) }`);
export const SIGN_OUT_USER = graphql(`mutation SignOutUser($id: uuid!) { signOutUser(id: $id) }`);

export type UserListItem = ResultOf<typeof UserListFields>;

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

/** The viewer's second factors: what the step-up dialog offers (issue 18, item 7). */
export type StepUpFactors = { totp: boolean; securityKey: boolean };
