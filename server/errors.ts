// What a service refuses, as one small typed union (decision 021). Services throw it and know
// nothing of HTTP; each edge translates it once, in a Record<DomainErrorKind, …> (decision 060):
// statuses in server/http/json.ts, GraphQL errors in server/graphql/inputs.ts, the file API's
// headers in server/storage/routes.ts, form messages in src/lib/forms.server.ts. Its reason is one
// of the shared core's (src/lib/errors.ts), which pages and islands read.
import type { ApiErrorCode, RefusalReason } from '#lib/errors.ts';
import { formatWait } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';

export type DomainErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'not-allowed'
  | 'conflict'
  | 'too-large'
  | 'unsupported'
  | 'too-many-requests'
  | 'unavailable'
  | 'storage-full';

export type DomainErrorDetails = {
  /** The message of each field at fault, by field path. */
  fields?: Record<string, string>;
  /** Why a deletion is refused, one line each. */
  reasons?: string[];
  /** Seconds before trying again. */
  retryAfter?: number;
  /** The ceremony this wrong answer belonged to is used up: it cannot be answered again. */
  spent?: boolean;
  /** What a refused change of a way in must prove first (decision 048): each edge says it in its words. */
  proof?: 'password' | 'secondFactor' | 'signIn';
};

// Astro's build bundles its own copy of this module beside the one the services load: the brand,
// in the global symbol registry, makes `instanceof` true across both.
const BRAND = Symbol.for('atelier-bva.domain-error');

export class DomainError extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
  readonly [BRAND] = true;
  readonly kind: DomainErrorKind;
  /** A stable name clients branch on (hasura-auth's `error`, the API's `reason`), one of the shared core's. */
  readonly reason: RefusalReason;
  readonly details: DomainErrorDetails;
  constructor(kind: DomainErrorKind, reason: RefusalReason, message: string, details: DomainErrorDetails = {}) {
    super(message);
    this.kind = kind;
    this.reason = reason;
    this.details = details;
  }
}

export const notFound = (message: string) => new DomainError('not-found', 'not-found', message);

/** Input a schema could not check alone; `fields` name the fields at fault. */
export const invalid = (fields: Record<string, string>, reason: RefusalReason = 'invalid') =>
  new DomainError('invalid', reason, Object.values(fields)[0] ?? t('refusals.invalidData'), { fields });

/** The state of the data forbids the action; `field`, when one field is at fault. */
export const conflict = (reason: RefusalReason, message: string, details: { field?: string; reasons?: string[] } = {}) =>
  new DomainError('conflict', reason, message, {
    ...(details.field ? { fields: { [details.field]: message } } : {}),
    ...(details.reasons ? { reasons: details.reasons } : {}),
  });

/** A refusal that needs no reason of its own (the file API answers only a message). */
export const refuse = (kind: DomainErrorKind, message: string) => new DomainError(kind, kind, message);

/** A refusal as the caller is told it: the API's code, its French message and what else it carries. */
export type Told = { code: ApiErrorCode; message: string; extensions: Record<string, unknown> };

const callersOwn = ({ reason, message }: DomainError): Told => ({ code: 'validation', message, extensions: { reason } });

/**
 * What each kind of refusal tells its caller (decision 060), the one translation both edges read:
 * GraphQL answers it as an error, a page shows it over its form. Null: not the caller's (the
 * database or the file store away, the disk full), the server's own failure.
 */
export const TOLD_BY_KIND: Record<DomainErrorKind, (error: DomainError) => Told | null> = {
  'not-found': () => ({ code: 'not-found', message: t('refusals.itemNotFound'), extensions: {} }),
  invalid: ({ details }) => ({
    code: 'validation',
    message: Object.values(details.fields ?? {})[0] ?? t('refusals.invalidData'),
    extensions: { fields: details.fields ?? {} },
  }),
  forbidden: ({ reason, details }) => {
    // Step-up: the client asks for the second factor (POST /api/auth/elevate/…) and tries again.
    if (reason === 'elevated-claim-required') {
      const say = { password: t('proof.passwordAsk'), signIn: t('proof.signInAgain'), secondFactor: t('refusals.elevationRequired') };
      return { code: 'forbidden', message: say[details.proof ?? 'secondFactor'], extensions: { reason, proof: details.proof ?? 'secondFactor' } };
    }
    // A personal access token's sign-in: the script is told why, not only that it may not.
    if (reason === 'forbidden-pat') return { code: 'forbidden', message: t('proof.patRefused'), extensions: { reason } };
    return { code: 'forbidden', message: t('refusals.forbidden'), extensions: {} };
  },
  conflict: ({ reason, message, details }) => ({ code: 'conflict', message, extensions: { reason, ...details } }),
  'too-many-requests': ({ details }) => {
    const retryAfter = details.retryAfter ?? 60;
    return { code: 'too-many-requests', message: t('refusals.tooManyRequests', { wait: formatWait(retryAfter) }), extensions: { retryAfter } };
  },
  unauthenticated: callersOwn,
  'not-allowed': callersOwn,
  'too-large': callersOwn,
  unsupported: callersOwn,
  unavailable: () => null,
  'storage-full': () => null,
};
