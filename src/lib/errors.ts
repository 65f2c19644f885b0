// The API's words for what went wrong (decision 060): the codes and reasons the server says and
// the pages and islands read, as typed constants. Client-safe: no server import. Code never
// compares one as a string: `hasCode` and `hasReason` take the union, so a typo fails the type check.
// It imports nothing: the sign-in page's islands read it too.

/** `extensions.code` of every GraphQL error (issue 4): clients branch on it. */
export const API_ERROR_CODES = [
  'invalid-jwt',
  'forbidden',
  'validation',
  'not-found',
  'conflict',
  'internal',
  // Limits (issue 14, item 3): an operation too costly, too long, or one live subscription too many.
  'cost-limit',
  'timeout',
  'too-many-subscriptions',
  'too-many-requests',
  'too-large',
  // The database cannot be reached (decision 036): 503, try again in a moment.
  'unavailable',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * The stable name of a refusal: hasura-auth's `error` on the auth and JSON endpoints, the API's
 * `extensions.reason`. A service names one of these when it refuses (`DomainError.reason`).
 */
export const REFUSAL_REASONS = [
  // Generic: a refusal that needs no name of its own is named by its kind.
  'invalid',
  'validation',
  'unauthenticated',
  'forbidden',
  'not-found',
  'not-allowed',
  'conflict',
  'too-large',
  'unsupported',
  'too-many-requests',
  'unavailable',
  'storage-full',
  // The HTTP endpoints (hasura-auth's words).
  'invalid-request',
  'request-too-large',
  'route-not-found',
  'method-not-allowed',
  // The server's own failures: an unexpected error, a page's session the database could not check.
  'internal-error',
  'session-unavailable',
  'disabled-endpoint',
  // Signing in and the ways in (hasura-auth's words, `totp-secret-unreadable` and the OAuth provider's unavailability ours).
  'invalid-email-password',
  'disabled-user',
  'unverified-user',
  'unauthenticated-user',
  'user-not-anonymous',
  'invalid-email',
  'invalid-password',
  'invalid-current-password',
  'invalid-phone-number',
  'phone-number-already-in-use',
  'email-already-in-use',
  'email-domain-not-allowed',
  'role-not-allowed',
  'redirectTo-not-allowed',
  'invalid-expiry',
  'invalid-ticket',
  'invalid-refresh-token',
  'invalid-pat',
  'forbidden-pat',
  'elevated-claim-required',
  'invalid-otp',
  'invalid-totp',
  'invalid-mfa-ticket',
  'no-mfa-ticket',
  'no-totp-secret',
  'totp-not-active',
  'totp-already-active',
  'totp-secret-unreadable',
  'invalid-webauthn-security-key',
  'invalid-webauthn-verification',
  'webauthn-authenticator-previously-registered',
  'invalid-state',
  'oauth-provider-error',
  // Sic: hasura-auth's wire name.
  'oauth-token-echange-failed',
  'oauth-profile-fetch-failed',
  'oauth-provider-unavailable',
  'provider-account-already-linked',
  // The workshop's rules (the API's `extensions.reason`).
  'stale',
  'closed',
  'not-closed',
  'validated',
  'not-validated',
  'answered',
  'incomplete',
  'step-skipped',
  'checkpoints-open',
  'measures-off',
  'reading-off',
  'delete-refused',
  'already-removed',
  'file-linked',
  'unsupported-format',
  'model-locked',
  'item-unknown',
  'model-taken',
  'name-taken',
  'code-exists',
  'code-used',
  'item-exists',
  'item-in-use',
  'last-admin',
  'own-account',
  'own-admin-rights',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** What one refusal of the API says, read from its first error. */
export type ApiRefusal = {
  code?: ApiErrorCode | undefined;
  reason?: RefusalReason | undefined;
  message?: string | undefined;
  /** The message of each field at fault, by field path. */
  fields?: Record<string, string> | undefined;
  /** Why a deletion is refused, one line each. */
  reasons?: string[] | undefined;
};

type GraphQLAnswer = { response?: { errors?: { message?: string; extensions?: Omit<ApiRefusal, 'message'> }[] } };

/** The refusal a GraphQL answer carries (its first error; graphql-request's ClientError, read by its shape); nothing for any other failure. */
export function apiErrorOf(error: unknown): ApiRefusal {
  const first = error instanceof Error ? (error as GraphQLAnswer).response?.errors?.[0] : undefined;
  if (!first) return {};
  const extensions = first.extensions ?? {};
  return { code: extensions.code, message: first.message, reason: extensions.reason, fields: extensions.fields, reasons: extensions.reasons };
}

/** Whether a refusal has one of these codes. */
export const hasCode = (refusal: { code?: string | undefined } | null | undefined, ...codes: readonly ApiErrorCode[]): boolean =>
  (codes as readonly string[]).includes(refusal?.code ?? '');

/** Whether a refusal has one of these reasons. */
export const hasReason = (refusal: { reason?: string | undefined } | null | undefined, ...reasons: readonly RefusalReason[]): boolean =>
  (reasons as readonly string[]).includes(refusal?.reason ?? '');
