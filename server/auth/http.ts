// What every route module of the auth API shares: hasura-auth's body checks and error codes,
// the bearer token, the caller's address, and the handler shapes (routes.ts merges the tables).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { readJson, sendJson } from '#server/http/json.ts';
import { clientAddressOf } from '#server/http/client-address.ts';
import { DomainError } from '#server/errors.ts';
import { authErrors, type Caller } from './service.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;
/** `METHOD /path` (after /api/auth) to its handler. */
export type Routes = Record<string, Handler>;

export const OK = 'OK';

export const email = z.string().max(254).pipe(z.email());
export const password = z.string().min(1).max(256);
export const redirectTo = z.string().max(2048).optional();

/** hasura-auth's `options` of a sign-up or a passwordless sign-in; only some mean something here. */
export const authOptionsShape = {
  redirectTo,
  displayName: z.string().trim().max(120).optional(),
  locale: z.string().min(2).max(10).optional(),
  defaultRole: z.string().max(40).optional(),
  allowedRoles: z.array(z.string().max(40)).max(10).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
};
export const authOptions = z.strictObject(authOptionsShape).optional();

/** Maps a zod failure to hasura-auth's error codes. */
export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = String(issue.path.at(-1) ?? '');
  if (field === 'email' || field === 'newEmail') throw new DomainError('invalid', 'invalid-email', 'Email is incorrectly formatted');
  if (field === 'password' || field === 'newPassword') throw new DomainError('invalid', 'invalid-password', 'Password is incorrectly formatted');
  if (field === 'phoneNumber') throw new DomainError('invalid', 'invalid-phone-number', 'Phone number is incorrectly formatted');
  if (issue.code === 'unrecognized_keys') {
    throw new DomainError('invalid', 'invalid-request', `Unknown field: ${issue.keys.join(', ')}`);
  }
  throw new DomainError('invalid', 'invalid-request', `Invalid field ${issue.path.join('.') || 'body'}: ${issue.message}`);
}

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
