// Small helpers for the JSON APIs served beside Astro.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

/** An error with hasura-auth's body shape: { status, error, message }. */
export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: Record<string, string>;
  /** More for the API's clients, e.g. the reasons a deletion is refused. */
  readonly details: Record<string, unknown>;
  constructor(status: number, error: string, message: string, headers: Record<string, string> = {}, details: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.error = error;
    this.headers = headers;
    this.details = details;
  }
}

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

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, { status: error.status, error: error.error, message: error.message }, error.headers);
}

/** Reads a JSON body: JSON content type, at most 1 MB, well-formed. An empty body reads as {}. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    throw new ApiError(413, 'request-too-large', 'The request body is larger than 1 MB');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      throw new ApiError(413, 'request-too-large', 'The request body is larger than 1 MB');
    }
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  if (type !== 'application/json') {
    throw new ApiError(415, 'invalid-request', 'The request body must be application/json');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid-request', 'The request body is not valid JSON');
  }
}
