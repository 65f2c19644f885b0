// The islands' client (src/lib/graphql-client.ts) in Node, against the real API: token reuse,
// one retry after invalid-jwt, and SPEC §8's transport messages.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';
import { freePort } from './support/postgres-server.ts';
import { graphql } from '#lib/graphql.ts';

type ClientModule = typeof import('#lib/graphql-client.ts');

/** Loads the client as a page of `origin` would, with `tokens` served by /api/session/token. */
async function loadClient(origin: string, tokens: string[]) {
  const served: string[] = [];
  const realFetch = globalThis.fetch;
  Object.assign(globalThis, { location: new URL(origin) });
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input), origin);
    if (url.pathname === '/api/session/token') {
      const accessToken = tokens[Math.min(served.length, tokens.length - 1)]!;
      served.push(accessToken);
      return new Response(JSON.stringify({ accessToken, expiresAt: Date.now() + 600_000 }), { headers: { 'content-type': 'application/json' } });
    }
    return realFetch(input, init);
  }) as typeof fetch;
  // A fresh module per page: its token cache and endpoint start empty.
  vi.resetModules();
  const module: ClientModule = await import('#lib/graphql-client.ts');
  return { module, served, restore: () => (globalThis.fetch = realFetch) };
}

const USERS_COUNT = graphql(`{ usersAggregate { aggregate { count } } }`);

describe("the islands' GraphQL client", () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp('pglite');
    token = (await postJson(`${t.url}/api/auth/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD })).body.session.accessToken;
  });
  afterAll(() => t?.close());

  it('reuses its token, and after invalid-jwt fetches a new one and retries once', async () => {
    const { module, served, restore } = await loadClient(t.url, ['expired-or-forged', token]);
    try {
      const data = await module.graphqlRequest(USERS_COUNT);
      expect(data.usersAggregate.aggregate.count).toBe(29);
      expect(served).toEqual(['expired-or-forged', token]);
      await module.graphqlRequest(USERS_COUNT);
      expect(served).toHaveLength(2);
    } finally {
      restore();
    }
  });

  it('gives up on a live socket the server does not acknowledge within 30 s (SPEC §9)', async () => {
    // A server that accepts the socket and never answers its connection_init.
    const { WebSocketServer } = await import('ws');
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as { port: number }).port;
    const closes: number[] = [];
    const opened = new Promise<void>((resolve) =>
      server.on('connection', (socket) => {
        socket.on('close', (code) => closes.push(code));
        socket.once('message', () => resolve());
      }),
    );
    const { module, restore } = await loadClient(`http://127.0.0.1:${port}`, [token]);
    try {
      // The client's timers only: the socket's I/O stays real.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const end = module.graphqlSubscribe(
        graphql(`subscription { users { id } }`),
        {},
        () => undefined,
        () => undefined,
      );
      await opened;
      await vi.advanceTimersByTimeAsync(29_900);
      expect(closes).toEqual([]);
      await vi.advanceTimersByTimeAsync(200);
      vi.useRealTimers();
      await expect.poll(() => closes, { timeout: 2000 }).toEqual([4504]);
      end();
    } finally {
      vi.useRealTimers();
      restore();
      server.close();
    }
  });

  it('hands API errors over with their code and French message', async () => {
    const { module, restore } = await loadClient(t.url, [token]);
    try {
      const error = await module
        .graphqlRequest(graphql(`mutation { insertUser(object: { email: "admin@demo.local", displayName: "X", defaultRole: "mechanic" }) { id } }`))
        .catch((e: unknown) => e);
      expect(module.apiErrorOf(error)).toEqual({
        code: 'conflict',
        message: 'Email non disponible',
        reason: 'email-already-in-use',
        fields: { email: 'Email non disponible' },
      });
    } finally {
      restore();
    }
  });

  describe('transport failures', () => {
    let server: Server;
    let origin: string;
    let answer: { status: number; body: string; type: string };
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      server = createServer((_req, res) => {
        res.writeHead(answer.status, { 'content-type': answer.type });
        res.end(answer.body);
      });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it.each([
      [{ status: 502, body: 'Bad gateway', type: 'text/plain' }, 'Response not successful: Received status code 502'],
      [{ status: 200, body: '{}', type: 'application/json' }, 'Server response was missing for query'],
    ])('%j → %s', async (given, message) => {
      answer = given;
      const { module, restore } = await loadClient(origin, ['token']);
      try {
        await expect(module.graphqlRequest(graphql(`{ __typename }`))).rejects.toThrow(message);
      } finally {
        restore();
      }
    });
  });
});
