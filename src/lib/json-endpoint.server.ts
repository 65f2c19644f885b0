// Small helpers for the JSON endpoints of the Astro app.
import type { z } from 'zod';
import type { RefusalReason } from './errors.ts';
import { fieldErrors } from './validation.ts';
import { isServiceError, serviceStatusOf } from '#lib/auth/errors.server.ts';

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });
}

/** hasura-auth's body: `error` is one of the shared core's reasons (decision 060). */
export const jsonError = (status: number, error: RefusalReason, message: string, extra: object = {}) => json(status, { status, error, message, ...extra });

/** Parses a JSON body against a schema; answers the 4xx itself when it cannot. */
export async function readBody<T extends z.ZodType>(request: Request, schema: T): Promise<{ data: z.infer<T> } | { response: Response }> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    return { response: jsonError(415, 'invalid-request', 'The request body must be application/json') };
  }
  const text = await request.text();
  if (text.length > 64 * 1024) return { response: jsonError(413, 'request-too-large', 'The request body is too large') };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { response: jsonError(400, 'invalid-request', 'The request body is not valid JSON') };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { response: jsonError(400, 'validation', 'Invalid input', { fields: fieldErrors(parsed.error) }) };
  return { data: parsed.data };
}

/** Maps a service error to its JSON answer; anything else is rethrown. */
export function serviceErrorResponse(error: unknown): Response {
  if (isServiceError(error)) return jsonError(serviceStatusOf(error), error.reason, error.message);
  throw error;
}
