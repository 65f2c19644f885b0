// The storage suites run on both homes of file bytes (issue 19, item 1): the local disk and an S3
// bucket on a real S3 protocol server, one per test file.
import { afterAll, beforeAll } from 'vitest';
import { startS3Server } from './s3-server.ts';

export type StorageKind = 'disk' | 's3';
export const storageKinds: StorageKind[] = ['disk', 's3'];

/**
 * Starts one s3rver for the calling test file (call at its top level) and gives the environment an
 * app is started with for each kind; each call of `env('s3')` gets a bucket of its own.
 */
export function storageServer() {
  let server: Awaited<ReturnType<typeof startS3Server>> | undefined;
  let buckets = 0;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(() => server?.stop());
  return {
    env: async (kind: StorageKind): Promise<Record<string, string>> => {
      if (kind === 'disk') return {};
      const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
      const bucket = `suite-${++buckets}`;
      const client = new S3Client({
        endpoint: server!.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: server!.env.S3_ACCESS_KEY_ID, secretAccessKey: server!.env.S3_SECRET_ACCESS_KEY },
      });
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      client.destroy();
      return { ...server!.env, S3_BUCKET: bucket };
    },
    /** The server, once started (its `dir` holds the objects). */
    get server() {
      return server;
    },
  };
}
