// Boots the real app (auth API, database, mail) on a free port for a test file.
import { HasuraAuthClient } from '@nhost/hasura-auth-js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createApp, type App } from '#server/app.ts';
import { prepareDatabase } from '#server/bootstrap.ts';
import { loadConfig, defaultRateLimits, type Config } from '#server/config.ts';
import type { Database } from '#server/db/client.ts';
import type { Viewer } from '#server/auth/viewer.ts';
import type { Logger } from '#server/log.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { freePort, MIGRATED_TEMPLATE } from './postgres-server.ts';
import { loadAstro } from '#server/main.ts';

/** PGlite, PostgreSQL 18 ('postgres') or 15: the supported versions' ends (README). */
export type DatabaseKind = 'pglite' | 'postgres' | 'postgres-15';
export const databaseKinds: DatabaseKind[] = ['pglite', 'postgres', 'postgres-15'];

/**
 * A fresh database on the shared PostgreSQL server, 18 unless 15 is asked: empty, or `migrated`
 * (a copy of the global setup's template, as the app's migrations leave a new database).
 */
export async function createPostgresDatabase(version: 15 | 18 = 18, options: { migrated?: boolean } = {}): Promise<string> {
  const base = inject(version === 15 ? 'postgres15Url' : 'postgresUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: `${base}/postgres` });
  await client.connect();
  await client.query(`create database ${name}${options.migrated ? ` template ${MIGRATED_TEMPLATE}` : ''}`);
  await client.end();
  return `${base}/${name}`;
}

export type TestApp = {
  /** Where the app listens (PUBLIC_URL may name another address). */
  url: string;
  app: App;
  config: Config;
  database: Database;
  logLines: Record<string, unknown>[];
  /** Mails written to DATA_DIR/outbox, oldest first, once the queue has sent what was due. */
  outbox(): Promise<string[]>;
  close(): Promise<void>;
};

export async function startTestApp(
  kind: DatabaseKind,
  overrides: Partial<Config> & { env?: Record<string, string>; pages?: boolean; production?: boolean } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-test-'));
  const port = await freePort();
  const { env, pages, production, encryptionKeys, ...rest } = overrides;
  const config = loadConfig(
    { LOG_LEVEL: 'info', DEMO_DATA: '1', ...env },
    {
      dataDir,
      port,
      host: '127.0.0.1',
      publicUrl: rest.publicUrl ?? `http://127.0.0.1:${port}`,
      jwtSecret: randomBytes(32).toString('hex'),
      sessionSecret: randomBytes(32).toString('hex'),
      // A key of its own, unless the test names one, or says undefined for DATA_DIR's key file.
      ...('encryptionKeys' in overrides ? (encryptionKeys ? { encryptionKeys } : {}) : { encryptionKeys: [randomBytes(32).toString('hex')] }),
      // A database of the test's own (`databaseUrl` among the overrides) is not made here.
      databaseUrl: kind === 'pglite' || 'databaseUrl' in rest ? undefined : await createPostgresDatabase(kind === 'postgres-15' ? 15 : 18, { migrated: true }),
      // Functional suites hold one token for minutes; sessions have their own tests.
      accessTokenExpiresIn: 900,
      // Functional suites make many calls from one address; the limits have their own tests.
      rateLimits: Object.fromEntries(Object.entries(defaultRateLimits).map(([k, rule]) => [k, { ...rule, max: rule.max * 100 }])) as Config['rateLimits'],
      ...rest,
    },
  );
  const logLines: Record<string, unknown>[] = [];
  const logger: Logger = {
    info: (msg, fields) => logLines.push({ level: 'info', msg, ...fields }),
    error: (msg, fields) => logLines.push({ level: 'error', msg, ...fields }),
  };
  const database = await prepareDatabase(config, logger);
  const astro = pages ? await loadAstro() : {};
  const app = await createApp({ config, database, logger, astroHandler: astro.handler, clientDir: astro.clientDir, production });
  await app.listen();
  const outboxDir = path.join(dataDir, 'outbox');
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    config,
    database,
    logLines,
    outbox: async () => {
      await app.mailer.settled();
      try {
        return readdirSync(outboxDir)
          .sort()
          .map((f) => readFileSync(path.join(outboxDir, f), 'utf8'));
      } catch {
        return [];
      }
    },
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Any viewer, for a service function called directly that reads no one in particular. */
export const SOMEONE: Viewer = { id: '00000000-0000-0000-0000-000000000000', role: 'app_admin', sessionId: '' };

/** The viewer of a fresh sign-in of `email`, as GraphQL finds it: to call the services as that user. */
export async function viewerOf(t: TestApp, email: string): Promise<Viewer> {
  const { body } = await postJson(`${t.url}/api/auth/signin/email-password`, { email, password: DEMO_PASSWORD });
  const claims = (await t.app.services.auth.issuer.verify(body.session.accessToken))!;
  return { id: claims.userId, role: claims.defaultRole as Viewer['role'], sessionId: claims.sessionId };
}

/** POSTs JSON to the auth API and returns status, headers and parsed body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json };
}

/** Undoes header folding, MIME encoded words and quoted-printable, enough to read our own mails. */
export function decodeMail(raw: string): string {
  const text = raw.replace(/\r\n/g, '\n');
  const split = text.indexOf('\n\n');
  const qp = (s: string) =>
    Buffer.from(
      s.replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  const headers = text
    .slice(0, split)
    .replace(/\n[ \t]+/g, ' ')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_, q: string) => qp(q.replace(/_/g, ' ')));
  return `${headers}\n\n${qp(text.slice(split + 2).replace(/=\n/g, ''))}`;
}

/** The /api/auth/verify link of a mail. */
export function verifyLink(raw: string): string {
  const match = decodeMail(raw).match(/https?:\/\/\S+\/api\/auth\/verify\?\S+/);
  if (!match) throw new Error('no verify link in mail');
  return match[0].replace(/&amp;/g, '&').replace(/["<].*$/, '');
}

/** Nhost's own client, unchanged, against a test app: its session in memory, nothing automatic. */
export function authClient(url: string) {
  const storage = new Map<string, string>();
  return new HasuraAuthClient({
    url: `${url}/api/auth`,
    clientStorageType: 'custom',
    clientStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
      removeItem: (key: string) => void storage.delete(key),
    },
    autoRefreshToken: false,
    autoSignIn: false,
    start: true,
  });
}
