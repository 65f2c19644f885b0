// What the pages of security keys share (decision 028): the bodies the islands post, and the
// French answer to each refusal of the WebAuthn service.
import { z } from 'zod';
import { authenticationCredential, registrationCredential } from '#server/auth/webauthn.ts';
import { isServiceError, serviceStatusOf, tooManyMessage } from '#lib/auth/errors.ts';
import { t } from '#lib/i18n.ts';
import { jsonError } from '#lib/json-endpoint.ts';

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
  if (!isServiceError(error)) return t('errors.generic');
  switch (error.reason) {
    case 'invalid-webauthn-security-key':
    case 'disabled-user':
      return t('securityKeys.errors.unknownKey');
    case 'invalid-webauthn-verification':
      return t('securityKeys.errors.failed');
    case 'webauthn-authenticator-previously-registered':
      return t('securityKeys.errors.previouslyRegistered');
    case 'unverified-user':
      return t('securityKeys.errors.unverified');
    case 'too-many-requests':
      return tooManyMessage(error);
    default:
      return t('errors.generic');
  }
}

/** A refusal as JSON for an island: the service's code and its French message. */
export function securityKeyErrorResponse(error: unknown): Response {
  if (!isServiceError(error)) throw error;
  const status = serviceStatusOf(error);
  const headers = error.details.retryAfter ? { retryAfter: error.details.retryAfter } : {};
  // A disabled account answers as an unknown key does.
  const reason = error.reason === 'disabled-user' ? 'invalid-webauthn-security-key' : error.reason;
  return jsonError(status, reason, securityKeyMessage(error), headers);
}
