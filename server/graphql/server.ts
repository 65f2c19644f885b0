// GraphQL over HTTP (Yoga) and over WebSocket (graphql-ws, graphql-transport-ws) on /graphql,
// sharing one envelop: the same plugins, limits and context on both (STYLE.md, the API layer).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { BREAK, GraphQLError, visit, type DocumentNode, type ExecutionArgs, type ValidationContext } from 'graphql';
import { CloseCode, type Context, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, type Plugin } from 'graphql-yoga';
import { WebSocketServer, type WebSocket } from 'ws';
import { resolveViewer, type Viewer } from '#server/auth/viewer.ts';
import type { Services } from '#server/services.ts';
import type { ApiErrorCode } from '#lib/errors.ts';
import type { Changes } from '#server/realtime/changes.ts';
import type { GraphQLContext } from './builder.ts';
import { apiError, refuseBeforeRunning } from './errors.ts';
import { costLimitPlugin, timeBudgetPlugin } from './budget.ts';
import { databaseRefusal } from '#server/db/errors.ts';
import { schema } from './schema.ts';
import type { Logger } from '#server/log.ts';
import { defaultGraphQLLimits, type GraphQLLimits } from '#server/config.ts';
import { t } from '#lib/i18n.ts';
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_SECONDS } from '#lib/unavailable.ts';

export const GRAPHQL_PATH = '/graphql';
const INIT_TIMEOUT_MS = 3_000;

async function contextFor(headers: { get(name: string): string | null | undefined }, services: Services, changes: Changes): Promise<GraphQLContext> {
  const identity = await resolveViewer(headers, services);
  return { services: services.forViewer(identity.viewer), changes, viewer: identity.viewer, authError: identity.error };
}

/** The API code of an error. Duck-typed: a second copy of `graphql` (CJS beside ESM) defeats instanceof. */
const codeOf = (error: unknown) => (error as { extensions?: { code?: unknown } } | null)?.extensions?.code;

/**
 * Armor throws its refusals from inside validation, where Yoga masks them as internal errors:
 * reported instead, they answer like the cost refusal, coded and in French.
 */
const reportedByValidation = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null) => context?.reportError(apiError('cost-limit', t('refusals.tooDeep')))],
};

/** Errors that GraphQL itself raises (syntax, validation, limits) get the validation code. */
const withCode = (error: Error): GraphQLError => {
  if (codeOf(error)) return error as GraphQLError;
  const e = error as Partial<GraphQLError>;
  return new GraphQLError(error.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    extensions: { ...e.extensions, code: 'validation' satisfies ApiErrorCode },
  });
};

function codePlugin(): Plugin {
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length) setResult(result.map(withCode));
      };
    },
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result instanceof Error) replaceParseResult(withCode(result));
      };
    },
  };
}

/** What PostgreSQL refused because of the input (`databaseRefusal`, the one reading): the caller's, not a bug. */
function databaseError(error: unknown): GraphQLError | null {
  const refusal = databaseRefusal(error);
  if (!refusal) return null;
  return refusal.kind === 'invalid' ? apiError('validation', refusal.message, { http: { status: 400 } }) : apiError('conflict', refusal.message);
}

const NUL = /\\u0000|\u0000/;

/** A NUL in a variable or in the document is refused before anything runs: no column takes one. */
function nulPlugin(): Plugin {
  const refusal = apiError('validation', t('refusals.nulCharacter'));
  const holdsNul = (args: ExecutionArgs) => NUL.test(JSON.stringify(args.variableValues ?? {})) || NUL.test(args.document.loc?.source.body ?? '');
  return refuseBeforeRunning((args) => (holdsNul(args) ? refusal : null));
}

/** Whether a document asks for the schema itself (`__typename` is not introspection). */
function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
    },
  });
  return found;
}

/**
 * In production only admins may read the schema (ASVS 4.3.2). Checked at execution, once the
 * viewer is known, on HTTP and WebSocket alike; suggestions are masked for all (armor).
 */
function introspectionPlugin(): Plugin<GraphQLContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext;
      if (context.viewer?.role !== 'app_admin' && introspects(args.document)) {
        setResultAndStopExecution({ errors: [apiError('forbidden', t('refusals.introspection'))] });
      }
    },
  };
}

/**
 * A browser's request comes from our pages: PUBLIC_URL's, or the address the page itself was
 * reached by (a tablet on the server's IP address), as the pages' own check reads it
 * (src/middleware.ts). Another site's page names another host.
 */
function fromOurPages(origin: string, allowedOrigin: string, host: string | null | undefined): boolean {
  if (origin === allowedOrigin) return true;
  try {
    return !!host && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** Browser requests must come from our pages; POST bodies must be JSON. */
function originPlugin(allowedOrigin: string): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const refuse = (status: number, message: string) =>
        endResponse(
          new fetchAPI.Response(
            JSON.stringify({ errors: [{ message, extensions: { code: (status === 403 ? 'forbidden' : 'validation') satisfies ApiErrorCode } }] }),
            {
              status,
              headers: { 'content-type': 'application/json; charset=utf-8' },
            },
          ),
        );
      const origin = request.headers.get('origin');
      if (origin && !fromOurPages(origin, allowedOrigin, request.headers.get('host'))) return refuse(403, t('refusals.originRefused'));
      if (request.method === 'POST') {
        const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/json' && type !== 'application/graphql+json') return refuse(415, t('refusals.jsonBody'));
      }
    },
  };
}

/**
 * Open sockets are checked against their sign-in every `sessionSweepMs`, in one query: an ended
 * sign-in or a disabled account closes its sockets (4401, fatal for the client), a changed
 * role closes them with 4403 so the client reconnects with a token of the new role.
 */
function sweepSessions(services: Services, sockets: Map<WebSocket, Viewer>, logger?: Logger) {
  return async () => {
    if (!sockets.size) return;
    let open;
    try {
      open = await services.auth.openSessions([...sockets.values()].map((viewer) => viewer.sessionId));
    } catch (error) {
      // The database is away: keep the sockets, the next sweep decides.
      logger?.error('socket session sweep failed', { error: error instanceof Error ? error.message : String(error) });
      return;
    }
    for (const [socket, viewer] of sockets) {
      const session = open.get(viewer.sessionId);
      if (!session || session.user.id !== viewer.id) socket.close(CloseCode.Unauthorized, 'Session ended');
      else if (session.user.defaultRole !== viewer.role) socket.close(CloseCode.Forbidden, 'Role changed');
      else continue;
      sockets.delete(socket);
    }
  };
}

export function createGraphQL(options: {
  services: Services;
  changes: Changes;
  publicUrl: string;
  production: boolean;
  logger?: Logger;
  sessionSweepMs?: number;
  limits?: GraphQLLimits;
}) {
  const { services, changes } = options;
  const limits = options.limits ?? defaultGraphQLLimits;
  const allowedOrigin = new URL(options.publicUrl).origin;
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    context: ({ request }) => contextFor(request.headers, services, changes),
    graphiql: false,
    landingPage: false,
    batching: false,
    cors: false,
    logging: false,
    maskedErrors: {
      maskError: (error) => {
        const original = (error as { originalError?: unknown }).originalError;
        if (codeOf(original)) return original as Error;
        if (codeOf(error)) return error as Error;
        const known = databaseError(original);
        if (known) return known;
        if (isDatabaseUnavailable(original ?? error)) {
          return apiError('unavailable', t('errors.unavailableApi'), {
            http: { status: 503, headers: { 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) } },
          });
        }
        // Raised by GraphQL itself before any field ran (a variable of the wrong type): the caller's.
        if (!(error as GraphQLError).path && (!original || (original as Error).name === 'GraphQLError')) {
          return apiError('validation', t('errors.badValue'), { http: { status: 400 } });
        }
        // The client learns nothing of it; the log keeps what happened.
        const cause = original ?? error;
        options.logger?.error('graphql internal error', {
          error: cause instanceof Error ? cause.message : String(cause),
          stack: cause instanceof Error ? cause.stack : undefined,
        });
        return apiError('internal', t('errors.generic'));
      },
    },
    plugins: [
      originPlugin(allowedOrigin),
      EnvelopArmorPlugin({
        // Fields count, not the fragment spreads between them: shared selections add no depth.
        maxDepth: { n: 8, flattenFragments: true, ...reportedByValidation },
        maxAliases: { n: 15, ...reportedByValidation },
        maxDirectives: { n: 10, ...reportedByValidation },
        maxTokens: { n: 2_000 },
        // The cost is budget.ts's, with the schema's real weights: not armor's guess.
        costLimit: { enabled: false },
        blockFieldSuggestion: { enabled: options.production },
      }),
      codePlugin(),
      nulPlugin(),
      costLimitPlugin(),
      timeBudgetPlugin(limits.timeBudgetMs),
      ...(options.production ? [introspectionPlugin()] : []),
    ],
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const sockets = new Map<WebSocket, Viewer>();
  // Operations running on each socket, and per user across this instance's sockets.
  const operations = new Map<WebSocket, { userId: string; ids: Set<string> }>();
  const perUser = new Map<string, number>();
  const release = (socket: WebSocket, id: string) => {
    const running = operations.get(socket);
    if (!running?.ids.delete(id)) return;
    if (!running.ids.size) operations.delete(socket);
    const left = (perUser.get(running.userId) ?? 1) - 1;
    if (left > 0) perUser.set(running.userId, left);
    else perUser.delete(running.userId);
  };
  const sweep = setInterval(sweepSessions(services, sockets, options.logger), options.sessionSweepMs ?? 5_000);
  sweep.unref();
  type Extra = { request: IncomingMessage; socket: WebSocket; context?: GraphQLContext };
  type WsContext = Context<Record<string, unknown> | undefined, Extra>;
  // graphql-ws's server, not a React hook.
  // biome-ignore lint/correctness/useHookAtTopLevel: not a React hook
  useServer(
    {
      connectionInitWaitTimeout: INIT_TIMEOUT_MS,
      onConnect: async (ctx: WsContext) => {
        const params = ctx.connectionParams ?? {};
        const raw = (params.headers ?? {}) as Record<string, unknown>;
        const headers = new Map(Object.entries(raw).map(([k, v]) => [k.toLowerCase(), typeof v === 'string' ? v : undefined]));
        const context = await contextFor({ get: (name) => headers.get(name) }, services, changes);
        if (!context.viewer) {
          if (context.authError === 'invalid') ctx.extra.socket.close(CloseCode.Unauthorized, 'Unauthorized');
          return false;
        }
        ctx.extra.context = context;
        const socket = ctx.extra.socket;
        sockets.set(socket, context.viewer);
        socket.once('close', () => {
          sockets.delete(socket);
          for (const id of [...(operations.get(socket)?.ids ?? [])]) release(socket, id);
        });
        return true;
      },
      execute: (args: ExecutionArgs & { rootValue: { execute: typeof import('graphql').execute } }) => args.rootValue.execute(args),
      subscribe: (args: ExecutionArgs & { rootValue: { subscribe: typeof import('graphql').subscribe } }) => args.rootValue.subscribe(args),
      onComplete: (ctx: WsContext, id: string) => release(ctx.extra.socket, id),
      onSubscribe: async (ctx: WsContext, id: string, payload: SubscribePayload) => {
        const socket = ctx.extra.socket;
        const userId = ctx.extra.context!.viewer!.id;
        // One user's live lists are bounded: every write re-runs each of them.
        if ((operations.get(socket)?.ids.size ?? 0) >= limits.subscriptionsPerConnection || (perUser.get(userId) ?? 0) >= limits.subscriptionsPerUser) {
          return [apiError('too-many-subscriptions', t('refusals.tooManySubscriptions'))];
        }
        const { schema: enveloped, execute, subscribe, parse, validate } = yoga.getEnveloped({ ...ctx, req: ctx.extra.request, params: payload });
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [withCode(error as Error)];
        }
        const errors = validate(enveloped, document);
        if (errors.length) return errors.map(withCode);
        let running = operations.get(socket);
        if (!running) operations.set(socket, (running = { userId, ids: new Set() }));
        running.ids.add(id);
        perUser.set(userId, (perUser.get(userId) ?? 0) + 1);
        return {
          schema: enveloped,
          operationName: payload.operationName,
          document,
          variableValues: payload.variables,
          // A context of its own: a deadline set for one operation must not reach another.
          contextValue: { ...ctx.extra.context! },
          rootValue: { execute, subscribe },
        } as ExecutionArgs;
      },
    } as never,
    wss,
  );

  return {
    yoga,
    /** `exclusive`: no other WebSocket lives on this server (in `astro dev`, Vite's does). */
    attach(server: Server, { exclusive }: { exclusive: boolean }) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        const path = (req.url ?? '').split('?')[0];
        if (path !== GRAPHQL_PATH) {
          if (exclusive) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
          return;
        }
        const origin = req.headers.origin;
        if (origin && !fromOurPages(origin, allowedOrigin, req.headers.host)) {
          socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      });
    },
    /** 1001 (going away): graphql-ws clients reconnect; a client that does not answer is cut after 2 s. */
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        for (const client of wss.clients) client.close(1001, 'Server shutting down');
        const cut = setTimeout(() => {
          for (const client of wss.clients) client.terminate();
        }, 2_000);
        cut.unref();
        wss.close(() => {
          clearTimeout(cut);
          resolve();
        });
      }),
  };
}
