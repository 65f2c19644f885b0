// Inputs checked by the zod schemas of src/lib (French messages), and service refusals turned
// into API errors: shared by every domain module.
import { isObjectType, type GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import { hasReason } from '#lib/errors.ts';
import { fieldErrors } from '#lib/validation.ts';
import { DomainError, TOLD_BY_KIND } from '#server/errors.ts';
import { apiError, validationError } from './errors.ts';
import { requireViewerError, type GraphQLContext } from './builder.ts';

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
/** Service refusals as API errors with their code. */
function fromService(error: unknown, context: GraphQLContext): never {
  if (!(error instanceof DomainError)) throw error;
  // A service refuses a caller without a viewer: the request's token says why (builder.ts).
  if (error.kind === 'unauthenticated' && hasReason(error, 'unauthenticated') && !context.viewer) throw requireViewerError(context)!;
  const told = TOLD_BY_KIND[error.kind](error);
  throw told ? apiError(told.code, told.message, told.extensions) : error;
}
