// What a service refuses, as one small typed union (decision 021). Services throw it and know
// nothing of HTTP; each edge translates it once, in a Record<DomainErrorKind, …> (decision 060):
// statuses in server/http/json.ts, GraphQL errors in server/graphql/inputs.ts, the file API's
// headers in server/storage/routes.ts, form messages in src/lib/forms.server.ts. Its reason is one
// of the shared core's (src/lib/errors.ts), which pages and islands read.
import type { RefusalReason } from '#lib/errors.ts';
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
