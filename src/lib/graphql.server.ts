// Server pages read and write through the GraphQL API, in process (ARCHITECTURE.md).
import { ClientError, GraphQLClient } from 'graphql-request';

export function serverGraphQL(locals: App.Locals): GraphQLClient {
  return new GraphQLClient(new URL('/graphql', locals.services.config.publicUrl).toString(), {
    fetch: (input, init) => locals.services.graphql.fetch(String(input), init),
    headers: locals.accessToken ? { authorization: `Bearer ${locals.accessToken}` } : {},
  });
}

/** The first API error of a failed call: code, French message, and per-field messages. */
export function graphqlErrorOf(error: unknown): { code?: string; message?: string; reason?: string; fields?: Record<string, string>; reasons?: string[] } {
  if (!(error instanceof ClientError)) throw error;
  const first = error.response.errors?.[0];
  return {
    code: first?.extensions?.code as string | undefined,
    message: first?.message,
    reason: first?.extensions?.reason as string | undefined,
    fields: first?.extensions?.fields as Record<string, string> | undefined,
    reasons: first?.extensions?.reasons as string[] | undefined,
  };
}
