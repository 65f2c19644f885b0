// A real S3 protocol server (s3rver, on loopback) with one bucket, for the tests and scripts that
// run the S3 backend of file storage (issue 19). Its `env` is what an instance is started with.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { freePort } from './postgres-server.ts';

/** s3rver's fixed credentials. */
const KEY = 'S3RVER';

export async function startS3Server(options: { bucket?: string; port?: number } = {}) {
  const bucket = options.bucket ?? 'atelier-files';
  const dir = mkdtempSync(path.join(tmpdir(), 'atelier-s3-'));
  const port = options.port ?? (await freePort());
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    port,
    /** The directory s3rver keeps its objects in: `<dir>/<bucket>/<key>._S3rver_object`. */
    dir,
    env: {
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: KEY,
      S3_SECRET_ACCESS_KEY: KEY,
      S3_FORCE_PATH_STYLE: '1',
    },
    stop: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
