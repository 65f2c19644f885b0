// Issue 14, item 6: the storage API obeys the permission table, per bucket and verb. The table
// of expected answers is generated from src/lib/permissions.ts, then every cell is asked of the
// real HTTP API: bucket × owner of the file × role × verb, with the files on the local disk and in
// an S3 bucket (issue 19, item 1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buckets, type BucketId, PHOTO_BUCKET } from '#lib/storage/files.ts';
import { bucketWriters, capabilities } from '#lib/permissions.ts';
import { roles, type Role } from '#lib/roles.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { signInAll, type DemoRole } from './kit/index.ts';
import { PDF } from './support/fixtures.ts';
import { storageKinds, storageServer } from './support/storage.ts';

const s3 = storageServer();

type Verb = 'read' | 'upload' | 'replace' | 'delete';
type Caller = Role | 'anonymous';
/** Whose file it is: the caller's own upload, or a colleague's. */
type Owner = 'own' | 'colleague';

/** What the table says: 2xx when allowed, 403 when not, 401 without a token. */
function expected(bucket: BucketId, caller: Caller, verb: Verb): 'allowed' | 403 | 401 {
  if (caller === 'anonymous') return 401;
  if (verb === 'read') return 'allowed';
  return (capabilities[bucketWriters[bucket]] as readonly Role[]).includes(caller) ? 'allowed' : 403;
}

// Photos are written by the services only (decision 088): tests/order-photos.test.ts asks the API.
const bucketIds = (Object.keys(buckets) as BucketId[]).filter((b) => b !== PHOTO_BUCKET);
const callers: Caller[] = [...roles, 'anonymous'];
const verbs: Verb[] = ['read', 'upload', 'replace', 'delete'];
const cells = bucketIds.flatMap((bucket) =>
  callers.flatMap((caller) =>
    verbs.flatMap((verb) =>
      // An upload has no owner yet; only a role that may write a bucket owns files there.
      (verb === 'upload' ? (['colleague'] as Owner[]) : (['own', 'colleague'] as Owner[]))
        .filter((owner) => owner === 'colleague' || expected(bucket, caller, 'upload') === 'allowed')
        .map((owner) => ({ bucket, caller, verb, owner, expect: expected(bucket, caller, verb) })),
    ),
  ),
);

describe.each(storageKinds)('storage permissions on %s, from the capability table', (storage) => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  beforeAll(async () => {
    t = await startTestApp('pglite', { env: await s3.env(storage) });
    tokens = (await signInAll(t)) as Record<DemoRole, string>;
  });
  afterAll(() => t?.close());

  const auth = (caller: Caller): Record<string, string> => (caller === 'anonymous' ? {} : { authorization: `Bearer ${tokens[caller]}` });
  const form = (bucket?: BucketId) => {
    const body = new FormData();
    if (bucket) body.append('bucket-id', bucket);
    body.append('file[]', new Blob([new Uint8Array(PDF)]), 'fiche.pdf');
    return body;
  };
  /** A file of the bucket, uploaded by the admin (a colleague) or by the caller itself. */
  async function fileOf(bucket: BucketId, uploader: Role): Promise<string> {
    const res = await fetch(`${t.url}/api/storage/files`, { method: 'POST', headers: auth(uploader), body: form(bucket) });
    expect(res.status, `${uploader} uploads to ${bucket}`).toBe(201);
    return ((await res.json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
  }

  it('has a cell for every bucket, role and verb', () => {
    expect(new Set(cells.map((c) => `${c.bucket}/${c.caller}/${c.verb}`)).size).toBe(bucketIds.length * callers.length * verbs.length);
  });

  it.each(cells)('$bucket · $owner file · $caller · $verb → $expect', async ({ bucket, caller, verb, owner, expect: want }) => {
    const id = verb === 'upload' ? null : await fileOf(bucket, owner === 'own' ? (caller as Role) : caller === 'app_admin' ? 'diagnostician' : 'app_admin');
    const url = `${t.url}/api/storage/files${id ? `/${id}` : ''}`;
    const res =
      verb === 'read'
        ? await fetch(url, { headers: auth(caller) })
        : verb === 'upload'
          ? await fetch(url, { method: 'POST', headers: auth(caller), body: form(bucket) })
          : verb === 'replace'
            ? await fetch(url, { method: 'PUT', headers: auth(caller), body: form() })
            : await fetch(url, { method: 'DELETE', headers: auth(caller) });
    await res.arrayBuffer();
    if (want === 'allowed') expect(res.status).toBeGreaterThanOrEqual(200);
    if (want === 'allowed') expect(res.status).toBeLessThan(300);
    else expect(res.status).toBe(want);
  });
});
