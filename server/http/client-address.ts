// Who is calling, for the rate limits: the socket's address, or with TRUST_PROXY = n (n
// reverse proxies in front, each appending what it saw) the n-th X-Forwarded-For entry from
// the right. Entries further left are the client's own word, never trusted.
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export function clientAddressOf(req: IncomingMessage, trustProxy: number): string {
  const remote = req.socket.remoteAddress ?? 'unknown';
  if (trustProxy <= 0) return remote;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const candidate = hops[hops.length - trustProxy];
  return candidate && isIP(candidate) ? candidate : remote;
}
