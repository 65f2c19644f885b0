// The HTTP server of the one process: health, the auth API, static files, then Astro.
import { randomUUID } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { createAuthRoutes } from './auth/routes.ts';
import type { Mailer } from './auth/mailer.ts';
import { clientAddressOf } from './http/client-address.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { maintainPglite } from './db/pglite-maintenance.ts';
import { sendJson } from './http/json.ts';
import { handedWhole, type Logger } from './log.ts';
import { createChanges } from './realtime/changes.ts';
import { createGraphQL, GRAPHQL_PATH } from './graphql/server.ts';
import { createReadiness } from './readiness.ts';
import { isS3Blobs } from './storage/s3-blobs.ts';
import { createStorageRoutes } from './storage/routes.ts';
import { serveLiveBackups } from './backup/live.ts';
import type { ApiErrorCode, RefusalReason } from '#lib/errors.ts';
import { createServices, type DomainServices, type Services } from './services.ts';
import { setWorkshopTimeZone } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_SECONDS } from '#lib/unavailable.ts';

export type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (() => Promise<void>) | undefined, locals: object) => Promise<void>;

export type App = {
  services: Services;
  /** The domain services, unbound (tests reach them to count or to fail on purpose). */
  domain: DomainServices;
  mailer: Mailer;
  /** Handles backend paths; returns false for the paths Astro renders. */
  handleBackend(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The GraphQL WebSocket on another HTTP server (`astro dev`). */
  attachWebSocket(server: Server): void;
  server: Server;
  listen(): Promise<{ port: number; url: string }>;
  /** Stops accepting, waits for requests in flight, then closes the database. */
  close(): Promise<void>;
};

const MIME: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.txt', '.webmanifest']);
// Built assets never change while the process runs: each is compressed once.
const gzipCache = new Map<string, Buffer>();

function serveStatic(clientDir: string, req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  const file = path.join(clientDir, path.normalize(decoded));
  if (!file.startsWith(clientDir + path.sep)) return false;
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return false;
  }
  if (!stat.isFile()) return false;
  const ext = path.extname(file);
  const headers: Record<string, string | number> = {
    'Content-Type': MIME[ext] ?? 'application/octet-stream',
    'X-Content-Type-Options': 'nosniff',
    // Astro fingerprints what it emits under /_astro/.
    'Cache-Control': pathname.startsWith('/_astro/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
    Vary: 'Accept-Encoding',
  };
  if (COMPRESSIBLE.has(ext) && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    let body = gzipCache.get(file);
    if (!body) gzipCache.set(file, (body = gzipSync(readFileSync(file), { level: 9 })));
    res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }
  res.writeHead(200, { ...headers, 'Content-Length': stat.size });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
  return true;
}

/**
 * A /graphql body is refused before it is read (issue 14): over its limit by its declared
 * length, or without one (a chunked body could be endless). Anonymous callers get a small one.
 */
function graphqlBodyRefusal(req: IncomingMessage, limits: Config['graphqlLimits']): { status: number; message: string } | null {
  if (req.method !== 'POST') return null;
  const declared = req.headers['content-length'];
  if (declared === undefined) return { status: 411, message: t('refusals.requestLengthRequired') };
  const max = req.headers.authorization ? limits.maxBodyBytes : limits.maxAnonymousBodyBytes;
  if (Number(declared) > max) return { status: 413, message: t('refusals.requestTooLarge', { kib: Math.round(max / 1024) }) };
  return null;
}

const standardPhrases = new Set(Object.values(STATUS_CODES));

/**
 * Astro hands Node its Response's statusText, and a page that sets only `Astro.response.status`
 * keeps the 'OK' of the 200 it began as: a refused form answered `400 OK` (issue 28). Every page
 * goes through here, so the status line says its status's own reason phrase, unless the page
 * gave one of its own.
 */
function keepReasonPhraseHonest(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    const chosen = typeof rest[0] === 'string';
    if (!chosen && (!this.statusMessage || standardPhrases.has(this.statusMessage)) && STATUS_CODES[status]) this.statusMessage = STATUS_CODES[status]!;
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

export async function createApp(options: {
  config: Config;
  database: Database;
  logger: Logger;
  astroHandler?: AstroHandler;
  clientDir?: string;
  production?: boolean;
}): Promise<App> {
  const { config, database, logger } = options;
  // Every date of pages, PDFs, exports and mails reads this clock (decision 038).
  setWorkshopTimeZone(config.workshopTimeZone);
  const { services, mailer, domain } = createServices({ config, database, logger });
  const files = services.files;
  const handleAuth = createAuthRoutes(services, { trustProxy: config.trustProxy });
  const changes = await createChanges(database);
  const readiness = createReadiness({ config, database, s3Client: isS3Blobs(files.blobs) ? files.blobs.client : undefined });
  const handleStorage = createStorageRoutes({ store: services.files, services, config });
  const graphql = createGraphQL({
    services,
    changes,
    publicUrl: config.publicUrl,
    production: options.production ?? process.env.NODE_ENV === 'production',
    logger,
    sessionSweepMs: config.sessionSweepMs,
    limits: config.graphqlLimits,
  });

  async function handleBackend(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const pathname = (req.url ?? '/').split('?')[0]!;
    if (pathname === '/healthz') {
      sendJson(res, 200, { status: 'ok' });
      return true;
    }
    if (pathname === '/readyz') {
      // Draining: out of the proxy's rotation at once, even asked on a connection still open.
      if (draining) {
        sendJson(res, 503, { status: 'draining' });
        return true;
      }
      const report = await readiness.check();
      sendJson(res, report.status === 'ok' ? 200 : 503, report);
      return true;
    }
    if (pathname === GRAPHQL_PATH) {
      const refused = graphqlBodyRefusal(req, config.graphqlLimits);
      if (refused) {
        req.resume();
        sendJson(
          res,
          refused.status,
          { errors: [{ message: refused.message, extensions: { code: 'too-large' satisfies ApiErrorCode } }] },
          { Connection: 'close' },
        );
        return true;
      }
      await graphql.yoga.requestListener(req, res);
      return true;
    }
    if (pathname.startsWith('/api/storage/')) {
      await handleStorage(req, res, (req.url ?? '').slice('/api/storage'.length));
      return true;
    }
    if (pathname === '/api/auth' || pathname.startsWith('/api/auth/')) {
      await handleAuth(req, res, pathname.slice('/api/auth'.length) || '/');
      return true;
    }
    return false;
  }

  // Once draining, every answer closes its connection: a client that keeps its connection alive
  // (a browser, a proxy) sends its next request elsewhere instead of holding the drain open.
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const server = createServer(async (req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    inFlight.add(res);
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    const pathname = (req.url ?? '/').split('?')[0]!;
    res.setHeader('X-Request-Id', id);
    const fields = () => ({ id, method: req.method, path: pathname, status: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10 });
    res.on('finish', () => {
      logger.info('request', fields());
      // An answer whose headers left before the drain began said keep-alive: its connection is
      // ended now all the same, so that nothing more comes on it while draining.
      if (draining) req.socket.end();
    });
    // The connection closed before the answer was known to have left. Ended by the server, or every
    // byte handed over (curl and nginx close at the last byte; a cancel in the last buffered bytes
    // looks the same): a request. Else the client went away (a download cancelled), or a failure
    // here broke it off.
    res.on('close', () => {
      inFlight.delete(res);
      if (!res.writableFinished) logger.info(res.writableEnded || handedWhole.has(res) ? 'request' : 'request cut short', fields());
    });
    try {
      if (await handleBackend(req, res)) return;
      if (options.clientDir && serveStatic(options.clientDir, req, res, pathname)) return;
      if (options.astroHandler) {
        // Astro renders its 404 for unknown paths without our locals; send those through the
        // /404 route instead, so the middleware (and its guard) runs with the services.
        // The pages read the client address the same way the APIs do (TRUST_PROXY).
        const locals = { services, clientAddress: clientAddressOf(req, config.trustProxy) };
        keepReasonPhraseHonest(res);
        const notFound = () => {
          req.url = '/404';
          return options.astroHandler!(req, res, undefined, locals);
        };
        return await options.astroHandler(req, res, notFound, locals);
      }
      sendJson(res, 404, { status: 404, error: 'route-not-found' satisfies RefusalReason, message: 'Route not found' });
    } catch (error) {
      logger.error('request failed', { id, path: pathname, error: error instanceof Error ? error.message : String(error) });
      // The database is away (decision 036): the client tries again, nothing is broken.
      if (!res.headersSent && isDatabaseUnavailable(error)) {
        sendJson(
          res,
          503,
          { status: 503, error: 'unavailable' satisfies RefusalReason, message: t('errors.unavailableApi') },
          { 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) },
        );
      } else if (!res.headersSent) sendJson(res, 500, { status: 500, error: 'internal-error' satisfies RefusalReason, message: 'Internal error' });
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 5_000;
  graphql.attach(server, { exclusive: true });

  let closing: Promise<void> | undefined;
  // The embedded database's lock keeps `npm run db:backup` out: it asks this process (decision 035).
  let stopBackups: (() => Promise<void>) | undefined;
  let stopVacuums: (() => Promise<void>) | undefined;
  return {
    services,
    domain,
    mailer,
    handleBackend,
    attachWebSocket: (other) => graphql.attach(other, { exclusive: false }),
    server,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, async () => {
          const address = server.address();
          const port = typeof address === 'object' && address ? address.port : config.port;
          if (database.kind === 'pglite') {
            stopVacuums = maintainPglite(database.pglite!, logger);
            stopBackups = await serveLiveBackups(database, config, logger).catch((error: Error) => {
              logger.error('live backups are off', { error: error.message });
              return undefined;
            });
          }
          // The queue's worker sends what waits, this instance's and the others' (decision 049).
          mailer.start();
          resolve({ port, url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}` });
        });
      }),
    close: () =>
      (closing ??= (async () => {
        // close() stops accepting and ends idle keep-alive sockets; requests in flight get
        // 10 s, then their sockets are cut so the process can end (decision 036).
        draining = true;
        for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
        const drained = new Promise<void>((resolve) => {
          server.close(() => resolve());
          setTimeout(() => {
            server.closeAllConnections();
            resolve();
          }, 10_000).unref();
        });
        // WebSockets say 1001 (going away) at once: their clients reconnect to another instance.
        await graphql.close();
        await drained;
        // Its last PDF finished (no request waits for one any more), then the thread ends.
        await services.reportPdf.close();
        await stopBackups?.();
        await stopVacuums?.();
        await changes.close();
        await mailer.close();
        await files.close();
        await database.close();
      })()),
  };
}
