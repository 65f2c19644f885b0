// Issue 30, items 2 and 3: /readyz reports every dependency and answers 503 while the bucket is
// away; wrong bucket settings stop a start with one line naming the setting; a backup of an
// installation whose files are in a bucket refuses to run without the bucket's settings.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDatabase } from '#server/bootstrap.ts';
import { loadConfig, type S3Config } from '#server/config.ts';
import { openDatabase } from '#server/db/client.ts';
import { createLogger } from '#server/log.ts';
import { BUCKET_CHECK_TIMEOUT_MS, createReadiness } from '#server/readiness.ts';
import { checkBucket } from '#server/storage/bucket-check.ts';
import { assertReachesFiles, readFilesLocation } from '#server/storage/location.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { freePort } from './support/postgres-server.ts';
import { startS3Server } from './support/s3-server.ts';

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(tmpdir(), 'atelier-ready-'));
let s3: Awaited<ReturnType<typeof startS3Server>>;

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A script as an operator runs it, with only these settings. */
function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, Record<string, unknown>> };
};

describe('/readyz with files in a bucket', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('reports the database, the bucket and the mail backlog, and answers 503 naming the bucket while it is away', async () => {
    t = await startTestApp('pglite', {
      env: { ...s3.env, DEMO_DATA: '0', ADMIN_EMAIL: 'chef@garage.fr', ADMIN_PASSWORD: 'Chef-Garage-2026!' },
      // The bucket's answer is kept 5 s in service; a short while here, so the test need not wait.
      readyBucketCacheMs: 300,
    });
    // A mail waiting since 90 s, not due yet: the backlog is reported, it does not fail.
    await t.database.db.execute(
      sql`insert into auth.message_queue (channel, kind, recipient, vars, created_at, next_attempt_at)
          values ('email', 'passwordReset', 'chef@garage.fr', '{}'::jsonb, now() - interval '90 seconds', now() + interval '1 hour')`,
    );
    const up = await readyz(t.url);
    expect(up.status).toBe(200);
    expect(up.body).toEqual({
      status: 'ok',
      database: { status: 'ok', kind: 'pglite' },
      files: { status: 'ok', kind: 's3', bucket: 'atelier-files' },
      mail: { status: 'ok', waiting: 1, oldestWaitingSeconds: expect.any(Number), failed: 0 },
    });
    expect(up.body.mail!.oldestWaitingSeconds).toBeGreaterThanOrEqual(90);

    await s3.stop();
    // The bucket's last answer is kept a few seconds: a proxy's checks do not hammer it.
    expect(await until(async () => (await readyz(t.url)).status === 503, 10_000)).toBe(true);
    const down = await readyz(t.url);
    expect(down.body).toMatchObject({
      status: 'unavailable',
      database: { status: 'ok', kind: 'pglite' },
      files: { status: 'unavailable', kind: 's3', bucket: 'atelier-files', error: expect.stringContaining('cannot reach bucket atelier-files') },
      mail: { status: 'ok', waiting: 1 },
    });
    // Alive all the same: a supervisor must not restart it for a bucket away.
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);

    s3 = await startS3Server({ port: s3.port, bucket: s3.bucket });
    expect(await until(async () => (await readyz(t.url)).status === 200, 10_000)).toBe(true);
  });

  it("keeps the bucket's answer a few seconds, however many checks a proxy sends, and stops waiting for it in 2 s", async () => {
    let heads = 0;
    let clock = 0;
    let hang = false;
    const client = {
      send: async (_command: unknown, options: { abortSignal: AbortSignal }) => {
        heads += 1;
        if (!hang) return {};
        // A bucket that never answers: only the deadline ends the wait.
        return new Promise((_resolve, reject) => options.abortSignal.addEventListener('abort', () => reject(options.abortSignal.reason)));
      },
    } as unknown as S3Client;
    const readiness = createReadiness({
      config: { dataDir: work, storage: loadConfig({ DATA_DIR: work, ...s3.env }).storage, readyBucketCacheMs: 5_000 },
      database: t.database,
      s3Client: client,
      now: () => clock,
    });
    await Promise.all(Array.from({ length: 20 }, () => readiness.check()));
    clock = 4_999;
    expect((await readiness.check()).files.status).toBe('ok');
    expect(heads).toBe(1);
    clock = 5_000;
    hang = true;
    const started = performance.now();
    const report = await readiness.check();
    expect(performance.now() - started).toBeLessThan(BUCKET_CHECK_TIMEOUT_MS + 1_000);
    expect(report).toMatchObject({
      status: 'unavailable',
      files: { status: 'unavailable', error: `bucket atelier-files at ${s3.endpoint} did not answer within 2 s` },
    });
    expect(heads).toBe(2);
  });
});

describe('wrong bucket settings', () => {
  it('stop the start with one line naming the setting', async () => {
    const dataDir = path.join(work, 'refused');
    const start = run(['server/main.ts'], { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', ...s3.env, S3_BUCKET: 'no-such-bucket' });
    expect(await start.exited).toBe(1);
    expect(start.stderr()).toBe(`atelier-bva: Invalid S3_BUCKET: there is no bucket no-such-bucket at ${s3.endpoint}\n`);
    // Nothing was opened: no database was made for settings that cannot serve.
    expect(existsSync(path.join(dataDir, 'db'))).toBe(false);
  });

  it('are each named: the endpoint, the keys, the bucket of STORAGE_URL', async () => {
    const problem = (env: Record<string, string>) =>
      checkBucket(loadConfig({ DATA_DIR: work, ...env }).storage as S3Config, { timeoutMs: BUCKET_CHECK_TIMEOUT_MS });
    expect(await problem(s3.env)).toBeNull();
    const closedPort = `http://127.0.0.1:${await freePort()}`;
    expect(await problem({ ...s3.env, S3_ENDPOINT: closedPort })).toEqual({
      setting: 'S3_ENDPOINT',
      reason: expect.stringMatching(new RegExp(`^cannot reach bucket atelier-files at ${closedPort} \\(.*ECONNREFUSED.*\\)$`)),
    });
    expect(await problem({ ...s3.env, S3_ACCESS_KEY_ID: 'WRONG', S3_SECRET_ACCESS_KEY: 'WRONG' })).toEqual({
      setting: 'S3_ACCESS_KEY_ID or S3_SECRET_ACCESS_KEY',
      reason: `bucket atelier-files at ${s3.endpoint} refused the keys (403)`,
    });
    const host = new URL(s3.endpoint).host;
    expect(await problem({ STORAGE_URL: `s3+http://S3RVER:S3RVER@${host}/no-such-bucket?forcePathStyle=1` })).toEqual({
      setting: 'STORAGE_URL',
      reason: `there is no bucket no-such-bucket at ${s3.endpoint}`,
    });
  });
});

describe('a backup of an installation whose files are in a bucket', () => {
  const dataDir = path.join(work, 'workshop');
  const missingSettings = (purpose: string) =>
    `Missing STORAGE_URL or S3_BUCKET: the files of this installation are in bucket atelier-files at ${s3.endpoint}; set STORAGE_URL, or S3_BUCKET with S3_ENDPOINT, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, as the app has them, ${purpose}`;

  beforeAll(async () => {
    // A workshop whose first start was on the bucket, with two files named by its rows.
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', DEMO_DATA: '0', ADMIN_EMAIL: 'chef@garage.fr', ADMIN_PASSWORD: 'Chef-Garage-2026!', ...s3.env };
    const database = await prepareDatabase(loadConfig(env), createLogger('silent'));
    await database.db.execute(
      sql`insert into storage.files (bucket_id, name, size, mime_type, etag)
          values ('documents', 'notice.pdf', 1234, 'application/pdf', '"e1"'), ('documents', 'schema.pdf', 5678, 'application/pdf', '"e2"')`,
    );
    await database.close();
  });

  it('refuses without the bucket settings, naming them, and writes nothing', async () => {
    const file = path.join(work, 'without.tar.gz');
    const backup = run(['server/cli.ts', 'backup', file], { DATA_DIR: dataDir });
    expect(await backup.exited).toBe(1);
    expect(backup.stderr()).toBe(`atelier-bva: ${missingSettings('to back it up')}\n`);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.partial`)).toBe(false);
  });

  it('names the bucket in its summary with the settings, and needs no other secret', async () => {
    const file = path.join(work, 'with.tar.gz');
    const backup = run(['server/cli.ts', 'backup', file], { DATA_DIR: dataDir, ...s3.env });
    expect(await backup.exited).toBe(0);
    expect(backup.stderr()).toMatch(
      new RegExp(
        `^Backup written to ${file} \\(\\d+ rows in \\d+ tables, 2 files left in bucket atelier-files at ${s3.endpoint}, migration \\d{4}_\\w+\\)\\n$`,
      ),
    );
  });

  it('refuses another bucket, and a start on the disk, where its files would all be missing', async () => {
    const database = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
    try {
      const recorded = await readFilesLocation(database.db);
      expect(() => assertReachesFiles(recorded, { kind: 'disk' }, 'start')).toThrow(missingSettings('to serve them'));
      const other = loadConfig({ DATA_DIR: dataDir, ...s3.env, S3_BUCKET: 'other-files' }).storage;
      expect(() => assertReachesFiles(recorded, other, 'backup')).toThrow(
        `Invalid S3_BUCKET: the files of this installation are in bucket atelier-files at ${s3.endpoint}, not in bucket other-files; use the app's settings to back it up`,
      );
      // Another bucket at a start is a move to it: the start records it.
      expect(() => assertReachesFiles(recorded, other, 'start')).not.toThrow();
    } finally {
      await database.close();
    }
  });
});
