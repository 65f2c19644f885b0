// What /readyz answers (issue 30, item 2): one field per dependency this instance needs to serve.
// The database and the files' home decide: 503 when either is away, so a proxy sends requests to
// another instance. The mail queue's backlog is reported, never failing: mail waits, it is not lost.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { sql } from 'drizzle-orm';
import type { Config } from './config.ts';
import { type Database, queryRows } from './db/client.ts';
import { checkBucket } from './storage/bucket-check.ts';

type Check = { status: 'ok' | 'unavailable'; error?: string };

export type ReadinessReport = {
  status: 'ok' | 'unavailable';
  database: Check & { kind: Database['kind'] };
  files: Check & ({ kind: 'disk' } | { kind: 's3'; bucket: string });
  /** Mail and SMS waiting to leave: how many, and how long the oldest has waited (decision 049). */
  mail: { status: 'ok' | 'unknown'; waiting?: number; oldestWaitingSeconds?: number | null; failed?: number };
};

/** A bucket's HEAD must answer within this (its answer is kept `readyBucketCacheMs`). */
export const BUCKET_CHECK_TIMEOUT_MS = 2_000;

/** Any failure, as one short line (a stalled pool, a read-only disk). */
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);

export function createReadiness(deps: {
  config: Pick<Config, 'dataDir' | 'storage' | 'readyBucketCacheMs'>;
  database: Database;
  /** The file store's own S3 client, when files are in a bucket. */
  s3Client?: S3Client;
  now?: () => number;
}): { check(): Promise<ReadinessReport> } {
  const { config, database } = deps;
  const now = deps.now ?? Date.now;
  const storage = config.storage;
  const filesDir = path.join(config.dataDir, 'files');
  let bucket: { at: number; result: Promise<Check> } | undefined;

  /** The bucket's HEAD, shared by the checks of the next few seconds (and those waiting on it). */
  const checkFiles = async (): Promise<Check> => {
    if (storage.kind === 'disk') {
      try {
        // Uploads land in files/tmp, then are renamed into files/.
        await access(filesDir, constants.W_OK);
        await access(path.join(filesDir, 'tmp'), constants.W_OK);
        return { status: 'ok' };
      } catch (error) {
        return { status: 'unavailable', error: reasonOf(error) };
      }
    }
    if (!bucket || now() - bucket.at >= config.readyBucketCacheMs) {
      const result = checkBucket(storage, { client: deps.s3Client, timeoutMs: BUCKET_CHECK_TIMEOUT_MS }).then(
        (problem): Check => (problem ? { status: 'unavailable', error: problem.reason } : { status: 'ok' }),
      );
      bucket = { at: now(), result };
    }
    return bucket.result;
  };

  const checkDatabase = async (): Promise<Check> => {
    try {
      await database.ping();
      return { status: 'ok' };
    } catch (error) {
      return { status: 'unavailable', error: reasonOf(error) };
    }
  };

  const mailBacklog = async (): Promise<ReadinessReport['mail']> => {
    try {
      const [row] = await queryRows<{ waiting: number; oldest: number | null; failed: number }>(
        database.db,
        sql`select count(*) filter (where status = 'waiting')::int as waiting,
                   floor(extract(epoch from now() - min(created_at) filter (where status = 'waiting')))::int as oldest,
                   count(*) filter (where status = 'failed')::int as failed
              from auth.message_queue where status in ('waiting', 'failed')`,
      );
      return { status: 'ok', waiting: row?.waiting ?? 0, oldestWaitingSeconds: row?.oldest ?? null, failed: row?.failed ?? 0 };
    } catch {
      return { status: 'unknown' };
    }
  };

  return {
    async check() {
      const [db, files] = await Promise.all([checkDatabase(), checkFiles()]);
      const mail = db.status === 'ok' ? await mailBacklog() : { status: 'unknown' as const };
      return {
        status: db.status === 'ok' && files.status === 'ok' ? 'ok' : 'unavailable',
        database: { ...db, kind: database.kind },
        files: storage.kind === 's3' ? { ...files, kind: 's3', bucket: storage.bucket } : { ...files, kind: 'disk' },
        mail,
      };
    },
  };
}
