// Server pages read and write through the GraphQL API, in process (ARCHITECTURE.md).
import { GraphQLClient } from 'graphql-request';

export function serverGraphQL(locals: App.Locals): GraphQLClient {
  return new GraphQLClient(new URL('/graphql', locals.services.config.publicUrl).toString(), {
    fetch: (input, init) => locals.services.graphql.fetch(String(input), init),
    headers: locals.accessToken ? { authorization: `Bearer ${locals.accessToken}` } : {},
  });
}
