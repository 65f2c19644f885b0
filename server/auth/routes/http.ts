// What every route module of the auth API shares: the bearer token, the caller's address, and the
// handler shapes (server/auth/routes.ts merges the tables; the bodies' shapes are server/auth/inputs.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from '#server/http/json.ts';
import { clientAddressOf } from '#server/http/client-address.ts';
import { authErrors, type Caller } from '#server/auth/service.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;
/** `METHOD /path` (after /api/auth) to its handler. */
export type Routes = Record<string, Handler>;

export const OK = 'OK';

export function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

export type RouteContext = { trustProxy: number };

export const callerOf = (req: IncomingMessage, context: RouteContext): Caller => ({ ip: clientAddressOf(req, context.trustProxy) });

/** A JSON POST: the handler gets the parsed body and answers 200 with what it returns. */
export const post =
  (handle: (body: unknown, req: IncomingMessage) => Promise<unknown>): Handler =>
  async (req, res) => {
    const body = await readJson(req);
    sendJson(res, 200, await handle(body, req));
  };

/** The query string of a GET, as an object for `parse`. */
export const queryOf = (req: IncomingMessage) => Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams);

/** The routes of a method, or each answering disabled-endpoint while it is off. */
export function whenEnabled(enabled: boolean, routes: Routes): Routes {
  if (enabled) return routes;
  const off: Handler = async (req) => {
    req.resume();
    throw authErrors.disabledEndpoint();
  };
  return Object.fromEntries(Object.keys(routes).map((key) => [key, off]));
}
