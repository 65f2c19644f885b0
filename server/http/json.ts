// Small helpers for the JSON APIs served beside Astro.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, type DomainErrorKind } from '#server/errors.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** The one table from a domain refusal to its HTTP status. */
const STATUS: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  'not-allowed': 405,
  conflict: 409,
  'too-large': 413,
  unsupported: 415,
  'too-many-requests': 429,
  unavailable: 502,
  'storage-full': 507,
};

export const statusOf = (error: DomainError) => STATUS[error.kind];

/** hasura-auth's body shape: { status, error, message }. */
export function sendError(res: ServerResponse, error: DomainError): void {
  const status = statusOf(error);
  const headers: Record<string, string> = error.details.retryAfter ? { 'Retry-After': String(error.details.retryAfter) } : {};
  sendJson(res, status, { status, error: error.reason, message: error.message }, headers);
}

/** Reads a JSON body: JSON content type, at most 1 MB, well-formed. An empty body reads as {}. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    throw new DomainError('too-large', 'request-too-large', 'The request body is larger than 1 MB');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      throw new DomainError('too-large', 'request-too-large', 'The request body is larger than 1 MB');
    }
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  if (type !== 'application/json') {
    throw new DomainError('unsupported', 'invalid-request', 'The request body must be application/json');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new DomainError('invalid', 'invalid-request', 'The request body is not valid JSON');
  }
}
