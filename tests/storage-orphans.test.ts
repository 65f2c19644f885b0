// Issue 19, item 3 (decision 036): a crash at any moment of an upload, a replacement or a
// removal leaves neither a row without its bytes nor, once swept, bytes without their row.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { files } from '#server/db/schema/index.ts';
import { signInAll, startTestApp, type DemoRole, type TestApp } from './support/app.ts';

const PDF = (text: string) =>
  Buffer.from(`%PDF-1.4\n% ${text}\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n`);

describe('stored files after a crash', () => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  let root: string;
  beforeAll(async () => {
    t = await startTestApp('pglite');
    tokens = (await signInAll(t)) as Record<DemoRole, string>;
    root = path.join(t.config.dataDir, 'files');
  });
  afterAll(() => t?.close());

  const store = () => t.app.services.files;
  async function upload(body: Buffer, id?: string) {
    const form = new FormData();
    form.append('bucket-id', 'documents');
    if (id) form.append('metadata[]', new Blob([JSON.stringify({ id })]), 'metadata.json');
    form.append('file[]', new Blob([new Uint8Array(body)]), 'plan.pdf');
    return fetch(`${t.url}/api/storage/files`, { method: 'POST', headers: { authorization: `Bearer ${tokens.diagnostician}` }, body: form });
  }
  const download = async (id: string) => {
    const res = await fetch(`${t.url}/api/storage/files/${id}`, { headers: { authorization: `Bearer ${tokens.diagnostician}` } });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const rowOf = async (id: string) => (await t.database.db.select().from(files).where(eq(files.id, id)))[0];
  const aged = (key: string) => {
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    utimesSync(path.join(root, key), old, old);
  };

  it('writes no row when the bytes could not be put, and refuses a taken id without touching its bytes', async () => {
    const blobs = store().blobs;
    const put = blobs.put;
    blobs.put = () => Promise.reject(new Error('disque arraché'));
    const id = randomUUID();
    try {
      expect((await upload(PDF('perdu'), id)).status).toBe(500);
    } finally {
      blobs.put = put;
    }
    expect(await rowOf(id)).toBeUndefined();

    const first = await upload(PDF('premier'), id);
    expect(first.status).toBe(201);
    expect((await upload(PDF('second'), id)).status).toBe(409);
    expect((await download(id)).body.toString()).toContain('premier');
  });

  it('removes bytes no row claims once older than the grace period, thumbnails included, and keeps the rest', async () => {
    const kept = ((await (await upload(PDF('gardé'))).json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
    aged(kept);
    // What a server killed between the bytes and the row's commit leaves.
    const orphan = randomUUID();
    writeFileSync(path.join(root, orphan), PDF('orphelin'));
    writeFileSync(path.join(root, 'thumbnails', `${orphan}-96.webp`), 'x');
    const fresh = randomUUID();
    writeFileSync(path.join(root, fresh), PDF('en cours'));
    aged(orphan);
    aged(`thumbnails/${orphan}-96.webp`);

    expect(await store().sweepOrphans()).toBe(2);
    expect(existsSync(path.join(root, orphan))).toBe(false);
    expect(readdirSync(path.join(root, 'thumbnails'))).not.toContain(`${orphan}-96.webp`);
    // An upload still between its bytes and its commit is left alone.
    expect(existsSync(path.join(root, fresh))).toBe(true);
    expect((await download(kept)).status).toBe(200);
    expect(await store().sweepOrphans(0)).toBe(1);
    expect(existsSync(path.join(root, fresh))).toBe(false);
  });

  it('finishes a replacement whose row committed before its bytes moved in, and drops one whose row did not', async () => {
    const id = ((await (await upload(PDF('v1'))).json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
    const etag = (body: Buffer) => createHash('md5').update(body).digest('hex');
    // Killed after the row's commit: the row names v2, the bytes still are v1.
    const v2 = PDF('v2');
    writeFileSync(path.join(root, `${id}.replacing.${etag(v2)}`), v2);
    await t.database.db
      .update(files)
      .set({ etag: `"${etag(v2)}"`, size: v2.length })
      .where(eq(files.id, id));
    // Killed before its commit: the row never named v3.
    const v3 = PDF('v3');
    writeFileSync(path.join(root, `${id}.replacing.${etag(v3)}`), v3);

    await store().sweepOrphans(0);
    const now = await download(id);
    expect(now.body.equals(v2)).toBe(true);
    expect((await rowOf(id))!.size).toBe(v2.length);
    expect(readdirSync(root).filter((name) => name.startsWith(id))).toEqual([id]);
  });

  it('replaces through the API with the row and the bytes in agreement', async () => {
    const id = ((await (await upload(PDF('avant'))).json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
    const form = new FormData();
    const after = PDF('après');
    form.append('file[]', new Blob([new Uint8Array(after)]), 'plan.pdf');
    const res = await fetch(`${t.url}/api/storage/files/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${tokens.diagnostician}` }, body: form });
    expect(res.status).toBe(200);
    expect((await download(id)).body.equals(after)).toBe(true);
    expect((await rowOf(id))!.size).toBe(after.length);
    expect(readdirSync(root).filter((name) => name.startsWith(id))).toEqual([id]);
  });
});
