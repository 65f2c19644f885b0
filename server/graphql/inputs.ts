// Inputs checked by the zod schemas of src/lib (French messages), and service refusals turned
// into API errors: shared by every domain module.
import { type GraphQLError, isObjectType, type GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import { hasReason } from '#lib/errors.ts';
import { fieldErrors } from '#lib/validation.ts';
import { DomainError, type DomainErrorKind } from '#server/errors.ts';
import { apiError, conflict, forbidden, notFound, validationError } from './errors.ts';
import { requireViewerError, type GraphQLContext } from './builder.ts';
import { t } from '#lib/i18n.ts';
import { formatWait } from '#lib/format.ts';

/** Parses `value` (absent fields may come as null); failures name the field under `prefix` ('' for top-level arguments). */
export function parse<T extends z.ZodType>(schema: T, value: unknown, prefix: string): z.infer<T> {
  const result = schema.safeParse(Object.fromEntries(Object.entries(value as object).filter(([, v]) => v !== null && v !== undefined)));
  if (result.success) return result.data;
  const fields = Object.fromEntries(Object.entries(fieldErrors(result.error)).map(([k, v]) => [prefix ? `${prefix}.${k}` : k, v!]));
  throw validationError(fields);
}

/**
 * Wraps every field with a resolver of its own so that a service's refusal (`DomainError`) reaches
 * clients as the API error of its code: the one place where domain errors are translated.
 */
export function withServiceErrors(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      for (const key of ['resolve', 'subscribe'] as const) {
        const run = field[key];
        if (!run) continue;
        field[key] = (source, args, context: GraphQLContext, info) => {
          const refused = (error: unknown) => fromService(error, context);
          try {
            const result = run(source, args, context, info);
            // Any thenable (a query builder too), not only native promises.
            return typeof (result as PromiseLike<unknown> | null)?.then === 'function' ? Promise.resolve(result).catch(refused) : result;
          } catch (error) {
            return refused(error);
          }
        };
      }
    }
  }
  return schema;
}

/**
 * A service's refusal as the API error clients see, one row per kind (decision 021): a new kind
 * fails the type check here until it says what clients see. Null: not the caller's, thrown as it is.
 */
const API_ERROR: Record<DomainErrorKind, (error: DomainError, context: GraphQLContext) => GraphQLError | null> = {
  'not-found': () => notFound(),
  invalid: ({ details }) => validationError(details.fields ?? {}),
  forbidden: (error) => {
    const { reason, details } = error;
    // Step-up: the client asks for the second factor (POST /api/auth/elevate/…) and tries again.
    if (hasReason(error, 'elevated-claim-required')) {
      const say = { password: t('proof.passwordAsk'), signIn: t('proof.signInAgain'), secondFactor: t('refusals.elevationRequired') };
      return apiError('forbidden', say[details.proof ?? 'secondFactor'], { reason, proof: details.proof ?? 'secondFactor' });
    }
    // A personal access token's sign-in: the script is told why, not only that it may not.
    if (hasReason(error, 'forbidden-pat')) return apiError('forbidden', t('proof.patRefused'), { reason });
    return forbidden();
  },
  conflict: ({ reason, message, details }) => conflict(message, { reason, ...details }),
  'too-many-requests': ({ details }) => {
    const retryAfter = details.retryAfter ?? 60;
    return apiError('too-many-requests', t('refusals.tooManyRequests', { wait: formatWait(retryAfter) }), { retryAfter });
  },
  // A service refuses a caller without a viewer: the request's token says why (builder.ts).
  unauthenticated: (error, context) => (hasReason(error, 'unauthenticated') && !context.viewer ? requireViewerError(context)! : callersOwn(error)),
  // The caller's own refusals: a validation error, never an internal one.
  'not-allowed': callersOwn,
  'too-large': callersOwn,
  unsupported: callersOwn,
  // Not the caller's: the server's error (the database or the file store away, the disk full).
  unavailable: () => null,
  'storage-full': () => null,
};

function callersOwn({ reason, message }: DomainError): GraphQLError {
  return apiError('validation', message, { reason });
}

/** Service refusals as API errors with their code. */
function fromService(error: unknown, context: GraphQLContext): never {
  throw (error instanceof DomainError && API_ERROR[error.kind](error, context)) || error;
}
