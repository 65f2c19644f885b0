// The users screen's words for a failed call. Not in graphql-client.ts: the checkpoints' island
// gets its words as props, and importing the catalogue there would ship all of it to the tablet.
import { apiErrorOf, hasCode } from '#lib/errors.ts';
import { graphqlRequest } from '#lib/graphql-client.ts';
import { t } from '#lib/i18n.ts';
import { USER_NOW } from '#lib/users/user-list.ts';

/**
 * What an island says when a call fails: the API's own words for a conflict, a lost connection as
 * such (the tablet left the Wi-Fi: retrying is the fix, not the admin), else the generic error.
 */
export function failureMessage(error: unknown): string {
  const refusal = apiErrorOf(error);
  if (hasCode(refusal, 'conflict') && refusal.message) return refusal.message;
  if (noReply(error)) return t('errors.unreachable');
  return t('errors.generic');
}

/** A fetch that got no answer throws a TypeError: the token's own fetch, or the call's (transportError). */
export const noReply = (error: unknown) => error instanceof TypeError || (error instanceof Error && error.message === 'Network Error');

/**
 * The account as the server holds it now, after a call whose reply was lost (walk31 F11): null
 * when it is gone, undefined when that cannot be known either.
 */
export const userNow = (id: string) =>
  graphqlRequest(USER_NOW, { id }).then(
    (data) => data.user ?? null,
    () => undefined,
  );
