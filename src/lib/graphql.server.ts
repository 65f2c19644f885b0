// Server pages read and write through the GraphQL API, in process (ARCHITECTURE.md). Only typed
// documents (graphql(`…`), #lib/graphql.ts) are accepted: the answer's type is the document's.
import type { TadaDocumentNode } from 'gql.tada';
import { ClientError, GraphQLClient } from 'graphql-request';
import { apiErrorOf, hasCode } from './errors.ts';
import type { VariablesArgs } from './graphql.ts';

export type ServerGraphQL = {
  request<Result, Variables>(document: TadaDocumentNode<Result, Variables>, ...variables: VariablesArgs<Variables>): Promise<Result>;
};

/** The viewer of the session the middleware opened, or none when signed out. */
const viewerOf = ({ user, session }: App.Locals) => (user && session ? { id: user.id, role: user.role, sessionId: session.sessionId } : null);

export function serverGraphQL(locals: App.Locals): ServerGraphQL {
  const client = new GraphQLClient(new URL('/graphql', locals.services.config.publicUrl).toString(), {
    fetch: (input, init) => locals.services.graphql.fetch(String(input), init, viewerOf(locals)),
  });
  return { request: (document, ...[variables]) => client.request({ document, variables: variables as Record<string, unknown> | undefined }) };
}

/** The API's answers that mean "nothing the viewer may read there"; others (an outage, a timeout) reach the middleware's 503. */
export const isRefusal = (error: unknown) => error instanceof ClientError && hasCode(apiErrorOf(error), 'not-found', 'forbidden', 'validation');
