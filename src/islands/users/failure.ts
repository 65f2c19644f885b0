// The users screen's words for a failed call. Not in graphql-client.ts: the checkpoints' island
// gets its words as props, and importing the catalogue there would ship all of it to the tablet.
import { apiErrorOf, hasCode } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';

/**
 * What an island says when a call fails: the API's own words for a conflict, a lost connection as
 * such (the tablet left the Wi-Fi: retrying is the fix, not the admin), else the generic error.
 */
export function failureMessage(error: unknown): string {
  const refusal = apiErrorOf(error);
  if (hasCode(refusal, 'conflict') && refusal.message) return refusal.message;
  // A fetch that got no answer throws a TypeError: the token's own fetch, or the call's (transportError).
  if (error instanceof TypeError || (error instanceof Error && error.message === 'Network Error')) return t('errors.unreachable');
  return t('errors.generic');
}
