// French messages for the errors of the auth service (hasura-auth codes).
import { t } from './i18n.ts';

export type ServiceError = { status: number; error: string; message: string; headers?: Record<string, string> };

export function isServiceError(value: unknown): value is ServiceError {
  return typeof value === 'object' && value !== null && typeof (value as ServiceError).error === 'string' && typeof (value as ServiceError).status === 'number';
}

export function tooManyMessage(error: ServiceError): string {
  const seconds = Number(error.headers?.['Retry-After'] ?? 60);
  return t('errors.tooManyAttempts', { minutes: Math.max(1, Math.ceil(seconds / 60)) });
}

/** The message of a failed sign-in; it never tells whether the e-mail exists. */
export function signInErrorMessage(error: unknown): string {
  if (!isServiceError(error)) return t('errors.generic');
  if (error.error === 'invalid-email-password' || error.error === 'disabled-user') return t('errors.signIn');
  if (error.error === 'too-many-requests') return tooManyMessage(error);
  return t('errors.generic');
}
