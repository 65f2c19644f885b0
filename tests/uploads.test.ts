// Issue 14, item 7: uploads leave nothing behind, a full disk refuses early, names keep UTF-8; on
// the local disk and on an S3 bucket (issue 19, item 1): uploads land on this instance's disk first.
import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileStore } from '#server/storage/store.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { signInAll, type DemoRole } from './kit/index.ts';
import { PDF } from './support/fixtures.ts';
import { storageKinds, storageServer } from './support/storage.ts';

const s3 = storageServer();

function upload(t: TestApp, token: string, name: string, body: Buffer) {
  const form = new FormData();
  form.append('bucket-id', 'documents');
  form.append('file[]', new Blob([new Uint8Array(body)]), name);
  return fetch(`${t.url}/api/storage/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
}

const tmpFiles = (t: TestApp) => readdirSync(path.join(t.config.dataDir, 'files', 'tmp'));
const until = async (check: () => boolean, ms = 3_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return check();
};

describe.each(storageKinds)('uploads on %s', (storage) => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  beforeAll(async () => {
    t = await startTestApp('pglite', { env: await s3.env(storage) });
    tokens = (await signInAll(t)) as Record<DemoRole, string>;
  });
  afterAll(() => t?.close());

  it('removes what an upload cut off by its client had received', async () => {
    const boundary = 'coupure';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file[]"; filename="plan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    await new Promise<void>((resolve) => {
      const req = request(`${t.url}/api/storage/files`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.diagnostician}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(10 * 1024 * 1024),
        },
      });
      req.on('error', () => resolve());
      req.write(head);
      req.write(Buffer.alloc(2 * 1024 * 1024, 7));
      // The client goes away after 2 of its 10 MB.
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    expect(await until(() => tmpFiles(t).length === 0)).toBe(true);
    // The server still answers.
    expect((await upload(t, tokens.diagnostician, 'plan.pdf', PDF)).status).toBe(201);
  });

  it('removes the temporary files of refused uploads: wrong type, forbidden', async () => {
    expect((await upload(t, tokens.diagnostician, 'plan.pdf', Buffer.from('pas un PDF'))).status).toBe(415);
    expect((await upload(t, tokens.commercial, 'plan.pdf', PDF)).status).toBe(403);
    expect(tmpFiles(t)).toEqual([]);
  });

  it('sweeps what a killed server left behind when it starts', () => {
    const tmp = path.join(t.config.dataDir, 'files', 'tmp');
    writeFileSync(path.join(tmp, 'orphelin'), 'x'.repeat(1000));
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(path.join(tmp, 'orphelin'), old, old);
    writeFileSync(path.join(tmp, 'en-cours'), 'x');
    const store = createFileStore({ db: t.database.db, config: t.config });
    store.close();
    // An upload still being written is left alone.
    expect(tmpFiles(t)).toEqual(['en-cours']);
    t.app.services.files.sweepTmp(0);
    expect(tmpFiles(t)).toEqual([]);
  });

  it('keeps a UTF-8 file name and serves it as RFC 6266 says', async () => {
    const res = await upload(t, tokens.diagnostician, 'été – plan n°2.pdf', PDF);
    expect(res.status).toBe(201);
    const { processedFiles } = (await res.json()) as { processedFiles: { id: string; name: string }[] };
    expect(processedFiles[0]!.name).toBe('été – plan n°2.pdf');
    const file = await fetch(`${t.url}/api/storage/files/${processedFiles[0]!.id}`, { headers: { authorization: `Bearer ${tokens.commercial}` } });
    expect(file.headers.get('content-disposition')).toBe(
      `inline; filename="ete _ plan n_2.pdf"; filename*=UTF-8''%C3%A9t%C3%A9%20%E2%80%93%20plan%20n%C2%B02.pdf`,
    );
  });
});

describe.each(storageKinds)('a nearly full disk, files on %s', (storage) => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  beforeAll(async () => {
    // More free space asked for than any disk has.
    t = await startTestApp('pglite', { env: await s3.env(storage), storageMinFreeBytes: Number.MAX_SAFE_INTEGER });
    tokens = (await signInAll(t)) as Record<DemoRole, string>;
  });
  afterAll(() => t?.close());

  it('refuses an upload with 507 before reading it', async () => {
    const res = await upload(t, tokens.diagnostician, 'plan.pdf', PDF);
    expect(res.status).toBe(507);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^Espace disque insuffisant/);
    expect(tmpFiles(t)).toEqual([]);
  });
});
