// The bytes of stored files in an S3-compatible bucket (AWS, MinIO, Garage…), decision 033. Same
// keys as on disk (`<id>`, `thumbnails/<id>-<width>.webp`), at the root of the bucket: the bucket is
// the application's own. Uploads still land checked on this instance's disk (store.ts), then `put`
// sends them and removes the temporary file.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '#server/config.ts';
import type { Blobs } from './blobs.ts';
import { createS3Client } from './bucket-check.ts';

export type S3Blobs = Blobs & {
  kind: 's3';
  client: S3Client;
  bucket: string;
  /** The size and ETag (an MD5 in hex for a single put) of `key`'s bytes, or null when there are none. */
  head(key: string): Promise<{ size: number; etag: string } | null>;
  /** Sends a local file as `key`'s bytes and leaves the file alone; the bucket checks the MD5. */
  copyIn(key: string, file: string): Promise<void>;
  /** A GET URL of the bucket itself, valid `expiresIn` seconds, answering with these headers. */
  presignedGet(key: string, options: { expiresIn: number; contentType: string; contentDisposition: string }): Promise<string>;
  close(): void;
};

export const isS3Blobs = (blobs: Blobs): blobs is S3Blobs => (blobs as Partial<S3Blobs>).kind === 's3';

/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH = 1000;

/** S3 says "no such object": HeadObject's 404 has no body, GetObject's names NoSuchKey. */
function isMissing(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NotFound' || error.name === 'NoSuchKey');
}

const PUT_ATTEMPTS = 3;
/** A request cut on its way, with no HTTP answer: safe to send again (a put replaces the same key). */
const cutBeforeAnswer = (error: unknown) =>
  (error as S3ServiceException).$metadata?.httpStatusCode === undefined &&
  (['ECONNRESET', 'EPIPE'].includes((error as { code?: string }).code ?? '') || /socket hang up/i.test((error as Error).message ?? ''));

/** The MD5 of a file's bytes, in base64 (Content-MD5) or hex (an ETag). */
export function md5Of(file: string, encoding: 'base64' | 'hex' = 'base64'): Promise<string> {
  const hash = createHash('md5');
  return pipeline(createReadStream(file), hash).then(() => hash.digest(encoding));
}

export function createS3Blobs(config: S3Config, options: { tmpDir: string }): S3Blobs {
  const client = createS3Client(config);
  const Bucket = config.bucket;
  mkdirSync(options.tmpDir, { recursive: true });

  /**
   * Puts a file's bytes, once more on a fresh connection when the first was cut before any answer
   * (a kept-alive socket the server had just closed: «socket hang up»). The SDK retries such cuts
   * itself, but not for a streamed body; the file can be read again, so this can.
   */
  const send = async (key: string, file: string, md5?: string) => {
    for (let attempt = 1; ; attempt += 1) {
      const body = createReadStream(file);
      try {
        await client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentLength: statSync(file).size, ...(md5 ? { ContentMD5: md5 } : {}) }));
        return;
      } catch (error) {
        if (attempt >= PUT_ATTEMPTS || !cutBeforeAnswer(error)) throw error;
      } finally {
        // A refused put may leave the file half read: its descriptor is closed all the same.
        body.destroy();
      }
    }
  };

  const blobs: S3Blobs = {
    kind: 's3',
    client,
    bucket: Bucket,
    put: async (key, tmpFile) => {
      await send(key, tmpFile);
      rmSync(tmpFile, { force: true });
    },
    create: async (key, bytes) => {
      // A conditional put: S3 (and MinIO, Garage) answer 412 when the key exists, 409 when another
      // conditional put of it is in flight. s3rver ignores the condition: the caller reads back.
      try {
        await client.send(new PutObjectCommand({ Bucket, Key: key, Body: bytes, ContentType: 'application/json', IfNoneMatch: '*' }));
        return true;
      } catch (error) {
        const status = (error as S3ServiceException).$metadata?.httpStatusCode;
        if (error instanceof S3ServiceException && (status === 412 || status === 409)) return false;
        throw error;
      }
    },
    copyIn: async (key, file) => send(key, file, await md5Of(file)),
    move: async (from, to) => {
      // S3 has no rename: a copy made by the bucket itself (the bytes do not come back here), then the delete.
      await client.send(new CopyObjectCommand({ Bucket, Key: to, CopySource: `${Bucket}/${encodeURIComponent(from)}` }));
      await blobs.remove([from]);
    },
    head: async (key) => {
      try {
        const answer = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: answer.ContentLength ?? 0, etag: (answer.ETag ?? '').replace(/"/g, '') };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    size: async (key) => (await blobs.head(key))?.size ?? null,
    stream: async (key, range) => {
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      return object.Body as Readable;
    },
    read: async (key) => {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    withLocalFile: async (key, use) => {
      const file = path.join(options.tmpDir, randomUUID());
      try {
        await pipeline(await blobs.stream(key), createWriteStream(file));
        return await use(file);
      } finally {
        rmSync(file, { force: true });
      }
    },
    remove: async (keys) => {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        const answer = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
        const failed = answer.Errors?.[0];
        if (failed) throw new Error(`S3 could not delete ${failed.Key}: ${failed.Code} ${failed.Message ?? ''}`.trim());
      }
    },
    list: async function* () {
      for await (const page of paginateListObjectsV2({ client }, { Bucket })) {
        for (const object of page.Contents ?? []) {
          if (object.Key) yield { key: object.Key, modifiedAt: object.LastModified ?? new Date(0) };
        }
      }
    },
    presignedGet: (key, { expiresIn, contentType, contentDisposition }) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket, Key: key, ResponseContentType: contentType, ResponseContentDisposition: contentDisposition }), {
        expiresIn,
      }),
    close: () => client.destroy(),
  };
  return blobs;
}
