// French messages for the refusals of the auth service (hasura-auth codes), for the pages that
// call it in process.
import { DomainError } from '#server/errors.ts';
import { statusOf } from '#server/http/json.ts';
import { hasReason, type RefusalReason } from '#lib/errors.ts';
import { formatWait } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import { isDatabaseUnavailable } from '#lib/unavailable.ts';

export const isServiceError = (value: unknown): value is DomainError => value instanceof DomainError;

/** The HTTP status of a refusal; the database away is 503 (decision 036); anything else is the server's fault. */
export const serviceStatusOf = (error: unknown) => (isServiceError(error) ? statusOf(error) : isDatabaseUnavailable(error) ? 503 : 500);

export function tooManyMessage(error: DomainError): string {
  return t('errors.tooManyAttempts', { wait: formatWait(error.details.retryAfter ?? 60) });
}

/** The message of a failed sign-in; it never tells whether the e-mail exists. */
export function signInErrorMessage(error: unknown): string {
  if (!isServiceError(error)) return isDatabaseUnavailable(error) ? t('errors.unavailableApi') : t('errors.generic');
  if (hasReason(error, 'invalid-email-password', 'disabled-user')) return t('errors.signIn');
  if (hasReason(error, 'too-many-requests')) return tooManyMessage(error);
  if (hasReason(error, 'totp-secret-unreadable')) return t('errors.totpSecretUnreadable');
  return t('errors.generic');
}

/** What a page says when the auth service refuses; it never tells whether an account exists. */
export function passwordlessErrorMessage(error: unknown): string {
  return isServiceError(error) ? (CODE_MESSAGES[error.reason]?.(error) ?? t('errors.generic')) : t('errors.generic');
}

const CODE_MESSAGES: Partial<Record<RefusalReason, (error: DomainError) => string>> = {
  'invalid-otp': () => t('passwordless.invalidCode'),
  'disabled-user': () => t('passwordless.invalidCode'),
  'too-many-requests': tooManyMessage,
};
