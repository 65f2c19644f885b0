// Issue 19, item 3 (decision 036): a crash at any moment of an upload, a replacement or a
// removal leaves neither a row without its bytes nor, once swept, bytes without their row; on
// the disk and in an S3 bucket alike.
import { createHash, randomUUID } from 'node:crypto';
import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { files } from '#server/db/schema/index.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { signInAll, type DemoRole } from './kit/index.ts';
import { pdf } from './support/fixtures.ts';
import { storageKinds, storageServer } from './support/storage.ts';

const md5 = (body: Buffer) => createHash('md5').update(body).digest('hex');
const s3 = storageServer();

describe.each(storageKinds)('stored files after a crash, on %s', (storage) => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  let bucket: string | undefined;
  beforeAll(async () => {
    const env = await s3.env(storage);
    bucket = env.S3_BUCKET;
    t = await startTestApp('pglite', { env });
    tokens = (await signInAll(t)) as Record<DemoRole, string>;
  });
  afterAll(() => t?.close());

  const store = () => t.app.services.files;
  /** Writes bytes under a key as a crash would have left them. */
  const leave = async (key: string, body: Buffer) => {
    const tmp = path.join(store().tmpDir, randomUUID());
    writeFileSync(tmp, body);
    await store().blobs.put(key, tmp);
  };
  /** Makes a key's bytes look two hours old (s3rver dates an object by its file). */
  const aged = (key: string) => {
    const file = bucket ? path.join(s3.server!.dir, bucket, `${key}._S3rver_object`) : path.join(t.config.dataDir, 'files', key);
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    utimesSync(file, old, old);
  };
  const has = async (key: string) => (await store().blobs.size(key)) !== null;
  const keysOf = async (id: string) => {
    const keys: string[] = [];
    for await (const { key } of store().blobs.list()) if (key.startsWith(id)) keys.push(key);
    return keys;
  };
  async function upload(body: Buffer, id?: string) {
    const form = new FormData();
    form.append('bucket-id', 'documents');
    if (id) form.append('metadata[]', new Blob([JSON.stringify({ id })]), 'metadata.json');
    form.append('file[]', new Blob([new Uint8Array(body)]), 'plan.pdf');
    return fetch(`${t.url}/api/storage/files`, { method: 'POST', headers: { authorization: `Bearer ${tokens.diagnostician}` }, body: form });
  }
  const uploaded = async (body: Buffer) => ((await (await upload(body)).json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
  const download = async (id: string) => {
    const res = await fetch(`${t.url}/api/storage/files/${id}`, { headers: { authorization: `Bearer ${tokens.diagnostician}` } });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const rowOf = async (id: string) => (await t.database.db.select().from(files).where(eq(files.id, id)))[0];

  it('writes no row when the bytes could not be put, and refuses a taken id without touching its bytes', async () => {
    const blobs = store().blobs;
    const put = blobs.put;
    blobs.put = () => Promise.reject(new Error('disque arraché'));
    const id = randomUUID();
    try {
      expect((await upload(pdf('perdu'), id)).status).toBe(500);
    } finally {
      blobs.put = put;
    }
    expect(await rowOf(id)).toBeUndefined();

    expect((await upload(pdf('premier'), id)).status).toBe(201);
    expect((await upload(pdf('second'), id)).status).toBe(409);
    expect((await download(id)).body.toString()).toContain('premier');
    expect(await keysOf(id)).toEqual([id]);
  });

  it('keeps the database free while the bytes of an upload are on their way (no transaction waits on the store)', async () => {
    const blobs = store().blobs;
    const put = blobs.put;
    let started!: () => void;
    const putStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    blobs.put = async (key, tmp) => {
      started();
      await released;
      return put(key, tmp);
    };
    try {
      const answer = upload(pdf('lent'));
      await putStarted;
      // The embedded database has one connection: a transaction held open here would stall this.
      const ready = await fetch(`${t.url}/readyz`, { signal: AbortSignal.timeout(15_000) });
      expect(ready.status).toBe(200);
      release();
      expect((await answer).status).toBe(201);
    } finally {
      release();
      blobs.put = put;
    }
  });

  it('removes bytes no row claims once older than the grace period, thumbnails included, and keeps the rest', async () => {
    const kept = await uploaded(pdf('gardé'));
    aged(kept);
    // What a server killed between the bytes and the row's commit leaves.
    const orphan = randomUUID();
    await leave(orphan, pdf('orphelin'));
    await leave(`thumbnails/${orphan}-96.webp`, Buffer.from('x'));
    const stagedOrphan = `${randomUUID()}.staged.${md5(pdf('jamais'))}`;
    await leave(stagedOrphan, pdf('jamais'));
    const fresh = randomUUID();
    await leave(fresh, pdf('en cours'));
    for (const key of [orphan, `thumbnails/${orphan}-96.webp`, stagedOrphan]) aged(key);

    expect(await store().sweepOrphans()).toBe(3);
    expect(await has(orphan)).toBe(false);
    expect(await has(`thumbnails/${orphan}-96.webp`)).toBe(false);
    expect(await has(stagedOrphan)).toBe(false);
    // An upload still between its bytes and its commit is left alone.
    expect(await has(fresh)).toBe(true);
    expect((await download(kept)).status).toBe(200);
    expect(await store().sweepOrphans(0)).toBe(1);
    expect(await has(fresh)).toBe(false);
  });

  it('moves in at once the staged bytes of an upload or a replacement whose row committed, and drops those of one whose row did not', async () => {
    // An upload killed after its row's commit: the row is there, its bytes still staged.
    const id = randomUUID();
    const v1 = pdf('v1');
    await leave(`${id}.staged.${md5(v1)}`, v1);
    await t.database.db
      .insert(files)
      .values({ id, bucketId: 'documents', name: 'plan.pdf', size: v1.length, mimeType: 'application/pdf', etag: `"${md5(v1)}"` });
    // The default grace period: bytes a committed row names need no waiting.
    await store().sweepOrphans();
    expect((await download(id)).body.equals(v1)).toBe(true);

    // A replacement killed after the row's commit: the row names v2, the bytes still are v1.
    const v2 = pdf('v2');
    await leave(`${id}.staged.${md5(v2)}`, v2);
    await t.database.db
      .update(files)
      .set({ etag: `"${md5(v2)}"`, size: v2.length })
      .where(eq(files.id, id));
    // Killed before its commit: the row never named v3.
    const v3 = pdf('v3');
    await leave(`${id}.staged.${md5(v3)}`, v3);
    aged(`${id}.staged.${md5(v3)}`);

    await store().sweepOrphans();
    expect((await download(id)).body.equals(v2)).toBe(true);
    expect((await rowOf(id))!.size).toBe(v2.length);
    expect(await keysOf(id)).toEqual([id]);
  });

  it('replaces through the API with the row and the bytes in agreement, and nothing left staged', async () => {
    const id = await uploaded(pdf('avant'));
    const form = new FormData();
    const after = pdf('après');
    form.append('file[]', new Blob([new Uint8Array(after)]), 'plan.pdf');
    const res = await fetch(`${t.url}/api/storage/files/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${tokens.diagnostician}` }, body: form });
    expect(res.status).toBe(200);
    expect((await download(id)).body.equals(after)).toBe(true);
    expect((await rowOf(id))!.size).toBe(after.length);
    expect(await keysOf(id)).toEqual([id]);
  });
});
