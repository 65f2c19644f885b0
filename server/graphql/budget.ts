// The time budget of an operation (issue 14, item 3). Not an AbortSignal timer: PGlite answers
// in microtasks, so a busy operation never lets a timer fire. Each field that loads something
// checks the clock instead, so an operation past its budget starts no further query.
import { defaultFieldResolver, getNamedType, isLeafType, isObjectType, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';
import { apiError } from './errors.ts';
import { t } from '#lib/i18n.ts';

const timeoutError = (ms: number) => apiError('timeout', t('refusals.timeout', { seconds: new Intl.NumberFormat('fr-FR').format(ms / 1000) }));

/** Wraps every field that resolves to an object (where queries run) with the deadline check. */
export function withTimeBudget(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (isLeafType(getNamedType(field.type))) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context: GraphQLContext, info) => {
        if (context.deadline && Date.now() > context.deadline.at) throw timeoutError(context.deadline.ms);
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}

/**
 * Sets the deadline of each query and mutation; past it, the answer is the `timeout` error
 * alone, unless nothing was computed and the errors say why. Subscriptions live on: each gets a
 * context of its own without a deadline.
 */
export function timeBudgetPlugin(ms: number): Plugin {
  return {
    onExecute({ args }) {
      const context = args.contextValue as unknown as GraphQLContext;
      context.deadline = { at: Date.now() + ms, ms };
      return {
        onExecuteDone({ result, setResult }) {
          if (Date.now() <= context.deadline!.at) return;
          // Nothing computed (every field refused, e.g. over the cost limit): its own errors say why.
          const { data, errors } = 'data' in result ? (result as { data?: Record<string, unknown> | null; errors?: readonly unknown[] }) : {};
          if (data && Object.values(data).every((value) => value === null) && errors?.length) return;
          setResult({ errors: [timeoutError(ms)] });
        },
      };
    },
  };
}
