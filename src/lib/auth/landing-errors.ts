// The French message of an `error` a redirect of the auth API lands with (hasura-auth puts
// `error` and `errorDescription` in the URL: SPEC §8). Identity providers' codes have their own
// message; anything else is an e-mail link that no longer holds.
import { t, type MessageKey } from '#lib/i18n.ts';

const messages: Record<string, MessageKey> = {
  'invalid-state': 'providers.errors.invalidState',
  'oauth-provider-error': 'providers.errors.providerError',
  'oauth-provider-unavailable': 'providers.errors.unavailable',
  'oauth-token-echange-failed': 'providers.errors.failed',
  'oauth-profile-fetch-failed': 'providers.errors.failed',
  'disabled-user': 'providers.errors.disabledUser',
  'email-already-in-use': 'providers.errors.emailInUse',
  'email-domain-not-allowed': 'providers.errors.domainNotAllowed',
  'provider-account-already-linked': 'providers.errors.alreadyLinked',
  'disabled-endpoint': 'providers.errors.disabled',
  'too-many-requests': 'providers.errors.tooMany',
};

export function landingErrorMessage(error: string | null): string {
  const key = error ? messages[error] : undefined;
  return t(key ?? 'errors.linkExpired');
}
