// Where this installation's files live, as its instances last started (storage.location, issue 30,
// item 3). Settings that leave a bucket for the disk without a word are refused: by a start, which
// would serve no file, and by a backup, which would archive the rows of files it cannot reach.
import { sql } from 'drizzle-orm';
import { ConfigError, type StorageConfig } from '#server/config.ts';
import { type Db, queryRows } from '#server/db/client.ts';
import { bucketPlace } from './bucket-check.ts';

export type FilesLocation = { kind: 'disk' | 's3'; bucket: string | null; endpoint: string | null; region: string | null };

/** The recorded location; null before any start recorded one (or on a database of an older version). */
export async function readFilesLocation(db: Db): Promise<FilesLocation | null> {
  const [present] = await queryRows<{ ok: boolean }>(db, sql`select to_regclass('storage.location') is not null as ok`);
  if (!present?.ok) return null;
  const [row] = await queryRows<FilesLocation>(db, sql`select kind, bucket, endpoint, region from storage.location`);
  return row ?? null;
}

/**
 * Refuses settings that do not reach the recorded files: a bucket recorded and the disk configured,
 * or another bucket. Moving from the disk to a bucket (npm run storage:migrate) is not refused.
 */
export function assertReachesFiles(recorded: FilesLocation | null, storage: StorageConfig, command: 'start' | 'backup'): void {
  if (recorded?.kind !== 's3' || !recorded.bucket) return;
  const purpose = command === 'start' ? 'to serve them' : 'to back it up';
  const place = bucketPlace({ bucket: recorded.bucket, endpoint: recorded.endpoint ?? undefined, region: recorded.region ?? 'us-east-1' });
  if (storage.kind === 'disk') {
    throw new ConfigError(
      `Missing STORAGE_URL or S3_BUCKET: the files of this installation are in ${place}; set STORAGE_URL, or S3_BUCKET with S3_ENDPOINT, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, as the app has them, ${purpose}`,
    );
  }
  // A start on another bucket is a move (the start records it); a backup would name the wrong one.
  if (command === 'backup' && storage.bucket !== recorded.bucket) {
    throw new ConfigError(
      `Invalid ${storage.fromUrl ? 'STORAGE_URL' : 'S3_BUCKET'}: the files of this installation are in ${place}, not in bucket ${storage.bucket}; use the app's settings ${purpose}`,
    );
  }
}

/**
 * Records where files live now, after the start checked its settings; unchanged, the row is left
 * alone. True when it was written: a first start, or a move (the new home is claimed, decision 057).
 */
export async function recordFilesLocation(db: Db, storage: StorageConfig): Promise<boolean> {
  const value =
    storage.kind === 's3'
      ? { kind: 's3' as const, bucket: storage.bucket, endpoint: storage.endpoint ?? null, region: storage.region }
      : { kind: 'disk' as const, bucket: null, endpoint: null, region: null };
  const written = await queryRows<{ id: boolean }>(
    db,
    sql`insert into storage.location (kind, bucket, endpoint, region) values (${value.kind}, ${value.bucket}, ${value.endpoint}, ${value.region})
        on conflict (id) do update set kind = excluded.kind, bucket = excluded.bucket, endpoint = excluded.endpoint, region = excluded.region, updated_at = now()
        where (location.kind, location.bucket, location.endpoint, location.region) is distinct from (excluded.kind, excluded.bucket, excluded.endpoint, excluded.region)
        returning id`,
  );
  return written.length > 0;
}
