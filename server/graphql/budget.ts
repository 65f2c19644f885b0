// The cost and time budgets of an operation (issue 14, item 3). The cost is refused before
// anything runs, so a refusal never depends on how busy the server is. The time budget is no
// AbortSignal timer: PGlite answers in microtasks, so a busy operation never lets a timer fire.
// Each field that loads something checks the clock instead, and starts no query past it.
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  defaultFieldResolver,
  type ExecutionArgs,
  getNamedType,
  getOperationAST,
  isLeafType,
  isObjectType,
  Kind,
  type GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { MAX_BREADTH, MAX_COST, MAX_DEPTH, type GraphQLContext } from './builder.ts';
import { apiError, refuseBeforeRunning } from './errors.ts';
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
        // A rejected promise, not a throw: when an item of a list throws synchronously, the
        // executor drops the promises of the items before it, and their rejections go unhandled.
        if (context.deadline && Date.now() > context.deadline.at) return Promise.reject(timeoutError(context.deadline.ms));
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
          // Nothing computed (every field refused, e.g. forbidden): its own errors say why.
          const { data, errors } = 'data' in result ? (result as { data?: Record<string, unknown> | null; errors?: readonly unknown[] }) : {};
          if (data && Object.values(data).every((value) => value === null) && errors?.length) return;
          setResult({ errors: [timeoutError(ms)] });
        },
      };
    },
  };
}

/** The refusal of an operation over the cost, depth or breadth limit, or null when it may run. */
function costRefusal(args: ExecutionArgs): GraphQLError | null {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return null; // execution reports it
  const fragments = args.document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION);
  let result: ReturnType<typeof complexityFromQuery>;
  try {
    result = complexityFromQuery(
      { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] },
      { schema: args.schema, ctx: args.contextValue as object, variables: (args.variableValues ?? {}) as Record<string, unknown> },
    );
  } catch (error) {
    // Bad variables: execution refuses them with its own message. Anything else is a bug.
    // By name: a second copy of graphql (CJS beside ESM) would defeat instanceof.
    if ((error as Error).name === 'GraphQLError') return null;
    throw error;
  }
  const { complexity, depth, breadth } = result;
  if (depth > MAX_DEPTH || breadth > MAX_BREADTH) return apiError('cost-limit', t('refusals.tooDeep'), { depth, breadth });
  if (complexity > MAX_COST)
    return apiError('cost-limit', t('refusals.tooCostly', { cost: complexity, max: MAX_COST }), { cost: complexity, maxCost: MAX_COST });
  return null;
}

/** Refuses an operation over its cost before any field runs. */
export const costLimitPlugin = (): Plugin => refuseBeforeRunning(costRefusal);
