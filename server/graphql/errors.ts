// Every error of the API carries extensions.code (issue 4): clients branch on it.
import { GraphQLError } from 'graphql';

export type ErrorCode =
  | 'invalid-jwt'
  | 'forbidden'
  | 'validation'
  | 'not-found'
  | 'conflict'
  | 'internal'
  // Limits (issue 14, item 3): an operation too costly, too long, or one live subscription too many.
  | 'cost-limit'
  | 'timeout'
  | 'too-many-subscriptions'
  | 'too-many-requests'
  | 'too-large';

export function apiError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra } });
}

export const forbidden = () => apiError('forbidden', 'Accès refusé');
export const notFound = () => apiError('not-found', 'Élément introuvable');
/** `fields` maps a field path to its French message. */
export const validationError = (fields: Record<string, string>) => apiError('validation', Object.values(fields)[0] ?? 'Données invalides', { fields });
export const conflict = (message: string, extra: Record<string, unknown> = {}) => apiError('conflict', message, extra);
