// The islands' API client (SPEC §7.3): graphql-request for queries and mutations, a lazy
// graphql-ws socket for subscriptions, both with a short-lived token from the session.
import type { TadaDocumentNode } from 'gql.tada';
import { print } from 'graphql';
import { ClientError, GraphQLClient } from 'graphql-request';
import { createClient, type Client } from 'graphql-ws/client';
import { listenForSignOut } from './auth/session-channel.ts';
import { apiErrorOf, hasCode } from './errors.ts';

/** The refusal an answer carries, for toasts and forms: the shared core's reader (decision 060). */
export { apiErrorOf };
import type { VariablesArgs } from './graphql.ts';

// An island's page holds a session: a sign-out in another tab of this browser ends it here too.
if (typeof window !== 'undefined') listenForSignOut(() => window.location.assign('/sign-in'));

type Token = { accessToken: string; expiresAt: number };
let token: (Token & { margin: number }) | null = null;
let pendingToken: Promise<Token> | null = null;

async function currentToken(force = false): Promise<string> {
  // SPEC §9: renew before expiry by the smaller of a constant and half the lifetime.
  if (!force && token && token.expiresAt - Date.now() > token.margin) return token.accessToken;
  pendingToken ??= fetch('/api/session/token', { credentials: 'same-origin', cache: 'no-store' })
    .then(async (res) => {
      if (res.status === 401) {
        if (typeof window !== 'undefined') window.location.assign('/sign-in');
        throw new Error('signed out');
      }
      if (!res.ok) throw new Error(`Response not successful: Received status code ${res.status}`);
      return (await res.json()) as Token;
    })
    .finally(() => (pendingToken = null));
  const next = await pendingToken;
  // The first token is no change: the socket asking for it has not authenticated yet.
  const changed = token !== null && token.accessToken !== next.accessToken;
  token = { ...next, margin: Math.min(30_000, (next.expiresAt - Date.now()) / 2) };
  // The socket authenticated with the old token: close it, it reconnects with the new one.
  if (changed && socket && socket.readyState === WebSocket.OPEN) socket.close(4000, 'tokenChanged');
  return next.accessToken;
}

const http = new GraphQLClient(typeof location === 'undefined' ? 'http://localhost/graphql' : `${location.origin}/graphql`);

/** SPEC §8's transport messages, for answers that carry no GraphQL error. */
function transportError(error: unknown): unknown {
  if (error instanceof ClientError) {
    if (error.response.errors?.length) return error;
    if (error.response.status >= 300) return new Error(`Response not successful: Received status code ${error.response.status}`);
    return new Error('Server response was missing for query');
  }
  if (error instanceof SyntaxError) return new Error(`JSON parse error: ${error.message}`);
  if (error instanceof TypeError) return new Error('Network Error');
  return error;
}

/** A query or mutation; after invalid-jwt or a lost connection, one retry with a fresh token. */
export async function graphqlRequest<Result, Variables>(
  document: TadaDocumentNode<Result, Variables>,
  ...[variables]: VariablesArgs<Variables>
): Promise<Result> {
  const run = async (force: boolean) => {
    const authorization = `Bearer ${await currentToken(force)}`;
    let data: Result;
    try {
      data = await http.request<Result>({ document, variables: variables as Record<string, unknown> | undefined, requestHeaders: { authorization } });
    } catch (error) {
      throw transportError(error);
    }
    if (data === undefined || data === null) throw new Error('Server response was missing for query');
    return data;
  };
  try {
    return await run(false);
  } catch (error) {
    const retry = hasCode(apiErrorOf(error), 'invalid-jwt') || String((error as Error)?.message).includes('connection_error');
    if (!retry) throw error;
    return run(true);
  }
}

let client: Client | null = null;
let socket: WebSocket | null = null;

function ws(): Client {
  client ??= createClient({
    url: `${location.origin.replace(/^http/, 'ws')}/graphql`,
    lazy: true,
    connectionParams: async () => ({ headers: { Authorization: `Bearer ${await currentToken()}` } }),
    // SPEC §9: a socket the server does not acknowledge within 30 s is closed (4504), then retried.
    connectionAckWaitTimeout: 30_000,
    retryAttempts: 5,
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, 500 * 2 ** retries)),
    shouldRetry: () => true,
    on: {
      opened: (opened) => (socket = opened as WebSocket),
      closed: (event) => {
        socket = null;
        const code = (event as CloseEvent | undefined)?.code;
        // The server ended the socket's sign-in (4401) or saw a new role (4403): the next
        // connection needs a new token; a session that has ended goes back to /sign-in.
        if (code === 4401 || code === 4403) {
          token = null;
          if (code === 4401) void currentToken(true).catch(() => undefined);
        }
      },
    },
  });
  return client;
}

/** A live subscription; returns the function that ends it. */
export function graphqlSubscribe<Result, Variables>(
  document: TadaDocumentNode<Result, Variables>,
  variables: Variables,
  onData: (data: Result) => void,
  onError: (error: unknown) => void,
): () => void {
  return ws().subscribe<Result>(
    { query: print(document), variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        if (result.errors?.length) onError(result.errors[0]);
        else if (result.data) onData(result.data as Result);
      },
      error: onError,
      complete: () => undefined,
    },
  );
}
