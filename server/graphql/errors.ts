// Every error of the API carries extensions.code (issue 4), one of the shared core's codes (decision 060).
import { type ExecutionArgs, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ApiErrorCode } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';

export function apiError(code: ApiErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra } });
}

export const forbidden = () => apiError('forbidden', t('refusals.forbidden'));
export const notFound = () => apiError('not-found', t('refusals.itemNotFound'));
/** `fields` maps a field path to its French message. */
export const validationError = (fields: Record<string, string>) => apiError('validation', Object.values(fields)[0] ?? t('refusals.invalidData'), { fields });
/** A list's `limit` outside 0…`max`, its `offset` under 0. */
export const limitError = (max: number) => validationError({ limit: t('validation.between', { min: 0, max }) });
export const offsetError = () => validationError({ offset: t('validation.min', { min: 0 }) });
export const conflict = (message: string, extra: Record<string, unknown> = {}) => apiError('conflict', message, extra);

/**
 * Refuses a query, mutation or live subscription before any field runs, with the error
 * `refusalOf` gives for it (null: it may run), on HTTP and WebSocket alike.
 */
export function refuseBeforeRunning(refusalOf: (args: ExecutionArgs) => GraphQLError | null): Plugin {
  const refuse = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void }) => {
    const refusal = refusalOf(args);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  };
  return { onExecute: refuse, onSubscribe: refuse };
}
