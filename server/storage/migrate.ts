// npm run storage:migrate: copies the bytes of DATA_DIR/files (thumbnails included) into the bucket
// that STORAGE_URL or S3_* name (decision 033). Keys already there with the same bytes (size and MD5) are skipped,
// so a cut run is resumed by running it again; each copy is checked (MD5 by the bucket, then its
// size); local files are never deleted. Needs no database: it may run while the app still serves.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { type Config, ConfigError, loadConfig } from '#server/config.ts';
import { createDiskBlobs } from './blobs.ts';
import { assertMayMoveInto, HOME_MARKER } from './home.ts';
import { createS3Blobs, md5Of } from './s3-blobs.ts';

export type MigrationResult = { copied: number; skipped: number; failed: number; bytes: number };

/** Copies at most this many files at once. */
const PARALLEL = 4;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function migrateFiles(config: Pick<Config, 'dataDir' | 'storage'>, print: (line: string) => void): Promise<MigrationResult> {
  const storage = config.storage;
  if (storage.kind !== 's3') {
    throw new ConfigError('No S3 storage configured: set STORAGE_URL or S3_BUCKET (with S3_ENDPOINT and the keys) to the bucket the files go to');
  }
  const root = path.join(config.dataDir, 'files');
  const result: MigrationResult = { copied: 0, skipped: 0, failed: 0, bytes: 0 };
  if (!existsSync(root)) {
    print(`Nothing to copy: ${root} does not exist.`);
    return result;
  }
  const bucket = createS3Blobs(storage, { tmpDir: path.join(root, 'tmp') });
  try {
    try {
      await bucket.client.send(new HeadBucketCommand({ Bucket: storage.bucket }));
    } catch (error) {
      throw new ConfigError(
        `Cannot reach bucket ${storage.bucket}${storage.endpoint ? ` at ${storage.endpoint}` : ''}: ${(error as Error).name} ${(error as Error).message}`.trim(),
      );
    }
    // Never into another installation's bucket (decision 057).
    await assertMayMoveInto(bucket, createDiskBlobs(root), config);
    print(`Copying ${root} into bucket ${storage.bucket}${storage.endpoint ? ` at ${storage.endpoint}` : ''}…`);
    const keys = createDiskBlobs(root).list()[Symbol.asyncIterator]();
    const copyOne = async (key: string) => {
      const file = path.join(root, key);
      try {
        const size = statSync(file).size;
        const there = await bucket.head(key);
        if (there?.size === size && there.etag === (await md5Of(file, 'hex'))) {
          result.skipped++;
          return;
        }
        await bucket.copyIn(key, file);
        const copied = await bucket.size(key);
        if (copied !== size) throw new Error(`the bucket holds ${copied ?? 'nothing'} bytes instead of ${size}`);
        result.copied++;
        result.bytes += size;
      } catch (error) {
        result.failed++;
        print(`Failed: ${key}: ${(error as Error).message}`);
      }
    };
    // A few workers share one walk of the directory.
    const worker = async () => {
      for (let next = await keys.next(); !next.done; next = await keys.next()) {
        // The disk's marker is its own: the start on the bucket claims the bucket (decision 057).
        if (next.value.key !== HOME_MARKER) await copyOne(next.value.key);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  } finally {
    bucket.close();
  }
  return result;
}

async function main() {
  try {
    const config = loadConfig();
    const result = await migrateFiles(config, (line) => process.stdout.write(`${line}\n`));
    process.stdout.write(
      `Copied ${result.copied} (${mb(result.bytes)}), skipped ${result.skipped} already in the bucket, failed ${result.failed}.\n` +
        (result.failed
          ? 'Some files were not copied: run it again once the cause above is fixed (what is already copied is skipped).\n'
          : 'The local files are left in place: remove DATA_DIR/files once the app runs on the bucket and files open.\n'),
    );
    process.exit(result.failed ? 1 : 0);
  } catch (error) {
    process.stderr.write(`atelier-bva: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
