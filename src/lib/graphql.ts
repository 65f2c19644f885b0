// The one way to write a GraphQL document (issue 16): `graphql(`…`)` types its result and
// variables from the schema (gql.tada, from graphql-env.d.ts, which `npm run graphql:env`
// writes), so a renamed field fails the type check. Shared selections are fragments, passed
// as the second argument; their fields are read directly (no masking).
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { uuid: string; timestamptz: string };
  disableMasking: true;
}>();

export type { ResultOf, TadaDocumentNode, VariablesOf } from 'gql.tada';

/** A document's variables as arguments: optional when none is required. */
export type VariablesArgs<Variables> = Record<string, never> extends Variables ? [variables?: Variables] : [variables: Variables];
