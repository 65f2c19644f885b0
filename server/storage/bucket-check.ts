// Is the bucket of S3Config there, and do its settings open it (issue 30, item 2)? One HEAD of the
// bucket, with a deadline: the start refuses wrong settings with one line naming the setting, and
// /readyz reports the bucket (server/readiness.ts). The answer names the env variable to fix.
import { HeadBucketCommand, S3Client, type S3ServiceException } from '@aws-sdk/client-s3';
import type { S3Config } from '#server/config.ts';

/** What is wrong: the setting to fix and why, in the operator's English. */
export type BucketProblem = { setting: string; reason: string };

/** The env variables an operator set for each part: STORAGE_URL or the S3_* settings. */
function settingsOf(config: S3Config) {
  return config.fromUrl
    ? { bucket: 'STORAGE_URL', endpoint: 'STORAGE_URL', keys: 'STORAGE_URL', region: 'STORAGE_URL' }
    : {
        bucket: 'S3_BUCKET',
        endpoint: 'S3_ENDPOINT',
        keys: config.credentials ? 'S3_ACCESS_KEY_ID or S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY',
        region: 'S3_REGION',
      };
}

/** The bucket and where it is, as the lines say it. */
export const bucketPlace = (config: Pick<S3Config, 'bucket' | 'endpoint' | 'region'>) =>
  `bucket ${config.bucket} at ${config.endpoint ?? `AWS S3 (${config.region})`}`;

/** An S3 client of these settings, with the checksums only where S3 requires them (decision 033). */
export function createS3Client(config: S3Config): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Without a logger of its own the SDK writes bare lines on stderr between the app's JSON lines
    // («An error was encountered in a non-retryable streaming request.»); the error itself is
    // thrown to the caller, which retries or logs it.
    logger: silentSdkLogger,
  });
}

const silentSdkLogger = { trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Reads a failed HEAD of the bucket as the setting that is wrong. */
export function bucketProblemOf(config: S3Config, error: unknown, timeoutMs: number): BucketProblem {
  const names = settingsOf(config);
  const place = bucketPlace(config);
  const status = (error as S3ServiceException).$metadata?.httpStatusCode;
  const name = (error as Error).name;
  if (name === 'CredentialsProviderError') {
    return { setting: names.keys, reason: `no credentials for ${place} (nor AWS_ACCESS_KEY_ID, an AWS profile or an instance role)` };
  }
  if (name === 'TimeoutError' || name === 'AbortError') return { setting: names.endpoint, reason: `${place} did not answer within ${timeoutMs / 1000} s` };
  if (status === 404) return { setting: names.bucket, reason: `there is no ${place}` };
  if (status === 401 || status === 403) return { setting: names.keys, reason: `${place} refused the keys (${status})` };
  if (status === 301 || (status === 400 && !config.endpoint)) return { setting: names.region, reason: `${place} is in another region (${status})` };
  if (status !== undefined) return { setting: names.endpoint, reason: `${place} answered ${status} ${name}` };
  // No HTTP answer at all: a wrong host or port, or TLS to a server without it.
  const message = (error as Error).message || (error as NodeJS.ErrnoException).code || name;
  return { setting: names.endpoint, reason: `cannot reach ${place} (${message.split('\n')[0]})` };
}

/** null when the bucket answers its HEAD within `timeoutMs`, else what is wrong. */
export async function checkBucket(config: S3Config, options: { client?: S3Client; timeoutMs: number }): Promise<BucketProblem | null> {
  const client = options.client ?? createS3Client(config);
  try {
    await client.send(new HeadBucketCommand({ Bucket: config.bucket }), { abortSignal: AbortSignal.timeout(options.timeoutMs) });
    return null;
  } catch (error) {
    return bucketProblemOf(config, error, options.timeoutMs);
  } finally {
    if (!options.client) client.destroy();
  }
}
