// Whether an error means the database cannot be reached (stopped, restarting, network cut),
// not that a query was wrong: such failures answer 503 with Retry-After, never 500 (decision 036).
// Pure: the pages' middleware and the server's edges both read it.

/** Seconds after which a client tries again during an outage. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // postgres.js's own: a connection lost, ended (the server shutting down) or not opened in time.
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
]);
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down|in recovery mode)/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  let e = error as { code?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown } | null | undefined;
  for (let depth = 0; e && depth < 6; depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    // 08: connection exception; 57P01–57P03: shutdown, crash, not accepting yet; 53300: too many connections.
    if (NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '53300') return true;
    if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
    // An AggregateError (a connection to each address failed) carries its causes in `errors`.
    if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return false;
}
