// The Pothos builder: context and scalars. Permissions are the services' (decision 061).
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import { getNamedType, getNullableType, type GraphQLError, isLeafType, isListType, Kind, type GraphQLField } from 'graphql';
import type { RequestServices } from '#server/services.ts';
import type { Changes } from '#server/realtime/changes.ts';
import { apiError, forbidden } from './errors.ts';

import type { Viewer } from '#server/auth/viewer.ts';
import { t } from '#lib/i18n.ts';
export type { Viewer };

export type GraphQLContext = {
  viewer: Viewer | null;
  /** Why there is no viewer: no token at all, or one that is not valid. */
  authError: 'none' | 'invalid' | null;
  /** The process's services, the domain ones bound to this viewer (decision 061). */
  services: RequestServices;
  changes: Changes;
  /** Set per query or mutation by the time budget (budget.ts). */
  deadline?: { at: number; ms: number };
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A malformed value of a scalar is a bad request: 400, as Yoga reads extensions.http. */
const badValue = (message: string) => apiError('validation', message, { http: { status: 400 } });

/**
 * The cost of an operation (issue 14, item 3), computed before anything runs (budget.ts): a value read from
 * its row costs nothing, a field that runs a query costs 1, a list multiplies what it selects by
 * its `limit` (10 without one), and the outage ranking costs RANKING_COST per order.
 */
export const MAX_COST = 5_000;
export const MAX_DEPTH = 10;
export const MAX_BREADTH = 300;
export const RANKING_COST = 100;
const LIST_WITHOUT_LIMIT = 10;

function fieldComplexity(args: Record<string, unknown>, _context: GraphQLContext, field: GraphQLField<unknown, GraphQLContext, Record<string, unknown>>) {
  if (isLeafType(getNamedType(field.type))) return 0;
  if (!isListType(getNullableType(field.type))) return 1;
  const limit = typeof args.limit === 'number' ? Math.max(0, args.limit) : LIST_WITHOUT_LIMIT;
  return { field: 1, multiplier: limit };
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    uuid: { Input: string; Output: string };
    timestamptz: { Input: Date; Output: Date | string };
  };
}>({
  plugins: [ComplexityPlugin],
  // Fields are non-null unless they say so, as Hasura exposes NOT NULL columns: typed documents
  // then read `string`, not `string | null`.
  defaultFieldNullability: false,
  // Weights only: the limits are checked once per operation, before it runs (budget.ts).
  complexity: { fieldComplexity, disabled: true },
});

/** The error for a request without a valid identity, or null when there is one. */
export function requireViewerError(context: GraphQLContext): GraphQLError | null {
  if (context.viewer) return null;
  return context.authError === 'invalid' ? apiError('invalid-jwt', t('refusals.invalidToken')) : forbidden();
}

builder.scalarType('uuid', {
  serialize: (value) => String(value),
  parseValue: (value) => {
    if (typeof value !== 'string' || !UUID.test(value)) throw badValue(t('refusals.invalidId'));
    return value.toLowerCase();
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING || !UUID.test(ast.value)) throw badValue(t('refusals.invalidId'));
    return ast.value.toLowerCase();
  },
});

builder.scalarType('timestamptz', {
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw badValue(t('refusals.invalidDate'));
    return date;
  },
});

export const OrderBy = builder.enumType('order_by', { values: ['asc', 'desc'] as const });

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
