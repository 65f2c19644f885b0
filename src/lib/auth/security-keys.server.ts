// What the pages of security keys share (decision 028): the bodies the islands post, and the
// French answer to each refusal of the WebAuthn service.
import { z } from 'zod';
import { authenticationCredential, registrationCredential } from '#server/auth/webauthn.ts';
import { isServiceError, serviceStatusOf, tooManyMessage } from '#lib/auth/errors.server.ts';
import type { DomainError } from '#server/errors.ts';
import { hasReason, type RefusalReason } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import { jsonError } from '#lib/json-endpoint.server.ts';

/** The account page that holds the keys' section; the section's forms come back to it. */
export const SECURITY_PAGE = '/profile/security';

/** The sign-in island's post: the key's answer to /api/auth/signin/webauthn's options. */
export const signInWithKeyBody = z.strictObject({ credential: authenticationCredential, redirectTo: z.string().max(2048).optional() });
/** A step-up with a key from a page: the key's answer to /api/auth/elevate/webauthn's options. */
export const elevateWithKeyBody = z.strictObject({ credential: authenticationCredential });
/** The add island's post: the new key's answer to /api/auth/user/webauthn/add's options. */
export const addKeyBody = z.strictObject({ credential: registrationCredential, nickname: z.string().trim().min(1).max(80) });

/** The French message of a refused ceremony; nothing tells a disabled account from an unknown key. */
export function securityKeyMessage(error: unknown): string {
  return isServiceError(error) ? (KEY_MESSAGES[error.reason]?.(error) ?? t('errors.generic')) : t('errors.generic');
}

const KEY_MESSAGES: Partial<Record<RefusalReason, (error: DomainError) => string>> = {
  'invalid-webauthn-security-key': () => t('securityKeys.errors.unknownKey'),
  'disabled-user': () => t('securityKeys.errors.unknownKey'),
  'invalid-webauthn-verification': () => t('securityKeys.errors.failed'),
  'webauthn-authenticator-previously-registered': () => t('securityKeys.errors.previouslyRegistered'),
  'unverified-user': () => t('securityKeys.errors.unverified'),
  'too-many-requests': tooManyMessage,
};

/** A refusal as JSON for an island: the service's code and its French message. */
export function securityKeyErrorResponse(error: unknown): Response {
  if (!isServiceError(error)) throw error;
  const status = serviceStatusOf(error);
  const headers = error.details.retryAfter ? { retryAfter: error.details.retryAfter } : {};
  // A disabled account answers as an unknown key does.
  const reason = hasReason(error, 'disabled-user') ? 'invalid-webauthn-security-key' : error.reason;
  return jsonError(status, reason, securityKeyMessage(error), headers);
}
