// The storage API with real files, and Nhost's own client against it, on the local disk and on an
// S3 bucket (issue 19, item 1).
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import path from 'node:path';
import { HasuraStorageClient } from '@nhost/hasura-storage-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';
import { signInAll } from './kit/index.ts';
import { PDF, png } from './support/fixtures.ts';
import { storageKinds, storageServer } from './support/storage.ts';

const s3 = storageServer();

const CSV = Buffer.from('pression;valeur\nligne principale;4,2\n', 'utf8');
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.from([0, 0, 0, 0]), Buffer.from('mp42isom'), Buffer.alloc(200, 7)]);

describe.each(storageKinds)('storage API on %s', (storage) => {
  let t: TestApp;
  let api: string;
  let tokens: Record<string, string>;

  async function upload(token: string | null, parts: { name: string; body: Buffer }[], bucket?: string) {
    const form = new FormData();
    for (const part of parts) {
      form.append('file[]', new Blob([new Uint8Array(part.body)]), part.name);
      form.append('metadata[]', new Blob([JSON.stringify({ name: part.name })], { type: 'application/json' }), '');
    }
    if (bucket) form.append('bucket-id', bucket);
    const res = await fetch(`${api}/files`, { method: 'POST', body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: await res.json() };
  }

  beforeAll(async () => {
    t = await startTestApp('pglite', { env: { STORAGE_MAX_FILE_MB: '1', ...(await s3.env(storage)) } });
    api = `${t.url}/api/storage`;
    tokens = await signInAll(t);
  });
  afterAll(() => t?.close());

  it('stores a PDF, a PNG and a CSV, checked by content and extension', async () => {
    const res = await upload(
      tokens.diagnostician!,
      [
        { name: 'courbe.pdf', body: PDF },
        { name: 'photo.png', body: png() },
        { name: 'mesures.csv', body: CSV },
      ],
      'measure',
    );
    expect(res.status).toBe(201);
    expect(res.body.processedFiles.map((f: { name: string; mimeType: string; size: number }) => [f.name, f.mimeType, f.size])).toEqual([
      ['courbe.pdf', 'application/pdf', PDF.length],
      ['photo.png', 'image/png', png().length],
      ['mesures.csv', 'text/csv', CSV.length],
    ]);
    const pdf = await fetch(`${api}/files/${res.body.processedFiles[0].id}`, { headers: { authorization: `Bearer ${tokens.commercial}` } });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`inline; filename="courbe.pdf"; filename*=UTF-8''courbe.pdf`);
    expect(pdf.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await pdf.arrayBuffer())).toEqual(PDF);
    const csv = await fetch(`${api}/files/${res.body.processedFiles[2].id}`, { headers: { authorization: `Bearer ${tokens.commercial}` } });
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="mesures.csv"; filename*=UTF-8''mesures.csv`);
  });

  it('refuses an executable renamed .pdf, a wrong extension and an empty file with "Format non supporté"', async () => {
    const elf = readFileSync(process.execPath).subarray(0, 64 * 1024);
    for (const part of [
      { name: 'facture.pdf', body: elf },
      { name: 'photo.gif', body: png() },
      { name: 'vide.pdf', body: Buffer.alloc(0) },
      { name: 'donnees.csv', body: Buffer.from([0, 1, 2, 3]) },
    ]) {
      const res = await upload(tokens.diagnostician!, [part], 'measure');
      expect(res, part.name).toEqual({ status: 415, body: { error: { message: 'Format non supporté' } } });
    }
    // A video belongs to outages and documents, not to measures.
    expect((await upload(tokens.diagnostician!, [{ name: 'essai.mp4', body: MP4 }], 'measure')).status).toBe(415);
  });

  it('keeps only the base of a name with ../ and stores the bytes under its own name', async () => {
    const res = await upload(tokens.diagnostician!, [{ name: '../../etc/passwd.pdf', body: PDF }], 'documents');
    expect(res.status).toBe(201);
    expect(res.body.processedFiles[0].name).toBe('passwd.pdf');
  });

  it('refuses a file over the bucket cap, 500 files, and a request without a file, writing nothing', async () => {
    const big = Buffer.concat([PDF, Buffer.alloc(1024 * 1024 + 10, 32)]);
    const tooBig = await upload(tokens.diagnostician!, [{ name: 'gros.pdf', body: big }], 'documents');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.message).toMatch(/^Fichier trop volumineux/);
    const many = await upload(
      tokens.diagnostician!,
      Array.from({ length: 500 }, (_, i) => ({ name: `f${i}.csv`, body: CSV })),
      'measure',
    );
    expect(many.status).toBe(413);
    const none = await upload(tokens.diagnostician!, [], 'measure');
    expect(none).toEqual({ status: 400, body: { error: { message: 'Aucun fichier reçu' } } });
    const notMultipart = await fetch(`${api}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.diagnostician}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(notMultipart.status).toBe(415);
    expect((await upload(tokens.diagnostician!, [{ name: 'a.pdf', body: PDF }], 'inconnu')).status).toBe(400);
  });

  it('follows the roles: commercials and mechanics read, diagnosticians and admins write (tests/storage-permissions.test.ts has the whole table)', async () => {
    expect((await upload(tokens.commercial!, [{ name: 'a.pdf', body: PDF }], 'documents')).status).toBe(403);
    expect((await upload(tokens.mechanic!, [{ name: 'a.pdf', body: PDF }], 'outage')).status).toBe(403);
    expect((await upload(null, [{ name: 'a.pdf', body: PDF }], 'documents')).status).toBe(401);
    const byDiag = (await upload(tokens.diagnostician!, [{ name: 'plan.pdf', body: PDF }], 'documents')).body.processedFiles[0].id;
    const byAdmin = (await upload(tokens.app_admin!, [{ name: 'photo.png', body: png() }], 'outage')).body.processedFiles[0].id;
    const del = (token: string, id: string) =>
      fetch(`${api}/files/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await del(tokens.mechanic!, byDiag)).toBe(403);
    expect(await del(tokens.commercial!, byAdmin)).toBe(403);
    expect(await del(tokens.diagnostician!, byAdmin)).toBe(204);
    expect(await del(tokens.diagnostician!, byDiag)).toBe(204);
    expect((await fetch(`${api}/files/${byDiag}`, { headers: { authorization: `Bearer ${tokens.app_admin}` } })).status).toBe(404);
    expect((await fetch(`${api}/files/not-an-id`, { headers: { authorization: `Bearer ${tokens.app_admin}` } })).status).toBe(404);
    expect((await fetch(`${api}/files/${byAdmin}`)).status).toBe(401);
  });

  it('serves video ranges', async () => {
    const id = (await upload(tokens.diagnostician!, [{ name: 'bruit.mp4', body: MP4 }], 'outage')).body.processedFiles[0].id;
    const res = await fetch(`${api}/files/${id}`, { headers: { authorization: `Bearer ${tokens.commercial}`, range: 'bytes=4-11' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 4-11/${MP4.length}`);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('ftypmp42');
  });

  describe('a download the client leaves, and one whose source fails', () => {
    /** 32 MiB: more than the loopback's buffers hold (4 MiB and 6 MiB at most on Linux), so a client that stops reading stops the server mid-stream. */
    const SIZE = 32 * 1024 * 1024;
    let id: string;
    beforeAll(async () => {
      id = (await upload(tokens.diagnostician!, [{ name: 'long.mp4', body: MP4 }], 'outage')).body.processedFiles[0].id;
      const big = path.join(t.config.dataDir, 'big');
      writeFileSync(big, Buffer.concat([MP4, Buffer.alloc(SIZE - MP4.length, 7)]));
      await t.app.services.files.blobs.put(id, big);
    });

    /**
     * GETs (or HEADs) the file on a connection of its own and destroys the socket once `stopAt`
     * bytes of the body came (all of them when undefined); resolves with what came.
     */
    const leave = (request: string, options: { method?: string; headers?: Record<string, string>; stopAt?: number } = {}) =>
      new Promise<{ status: number; received: number }>((resolve, reject) => {
        const req = httpRequest(
          `${api}/files/${id}`,
          {
            method: options.method ?? 'GET',
            agent: false,
            headers: { authorization: `Bearer ${tokens.commercial}`, 'x-request-id': request, ...options.headers },
          },
          (res) => {
            let received = 0;
            const done = () => {
              req.destroy();
              resolve({ status: res.statusCode!, received });
            };
            res.on('data', (chunk: Buffer) => {
              received += chunk.length;
              if (options.stopAt !== undefined && received >= options.stopAt) done();
            });
            res.on('end', done);
            // A server that breaks off: the answer ends there, cut short.
            res.on('error', () => {});
            res.on('close', () => resolve({ status: res.statusCode!, received }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const linesOf = (request: string) => t.logLines.filter((line) => line.id === request);
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 100 && !what(); i++) await new Promise((r) => setTimeout(r, 20));
    };

    it('logs no error when the client goes away at the last byte, mid-stream, after a range or a HEAD', async () => {
      const clients = [
        { request: `${storage}-whole`, expected: { status: 200, received: SIZE } },
        { request: `${storage}-mid`, stopAt: 64 * 1024, expected: { status: 200 } },
        { request: `${storage}-range`, headers: { range: 'bytes=1000-' }, stopAt: 64 * 1024, expected: { status: 206 } },
        { request: `${storage}-range-whole`, headers: { range: 'bytes=-1000' }, expected: { status: 206, received: 1000 } },
        { request: `${storage}-head`, method: 'HEAD', expected: { status: 200, received: 0 } },
      ];
      for (const { request, expected, ...options } of clients) {
        expect(await leave(request, options)).toMatchObject(expected);
      }
      // The server has seen each client go: a line for each, at info.
      await until(() => clients.every(({ request }) => linesOf(request).length > 0));
      await new Promise((r) => setTimeout(r, 100));
      for (const { request } of clients) {
        expect.soft(linesOf(request).length, request).toBeGreaterThan(0);
        expect
          .soft(
            linesOf(request).filter((line) => line.level !== 'info'),
            request,
          )
          .toEqual([]);
      }
      // Those that had every byte were answered whole, however they closed (curl at the last byte).
      for (const whole of [`${storage}-whole`, `${storage}-range-whole`, `${storage}-head`]) {
        expect.soft(linesOf(whole), whole).toEqual([expect.objectContaining({ level: 'info', msg: 'request' })]);
      }
      // Those that left early did leave mid-stream: the answer never finished.
      expect(linesOf(`${storage}-mid`)).toEqual([expect.objectContaining({ level: 'info', msg: 'request cut short', status: 200 })]);
      expect(linesOf(`${storage}-range`)).toEqual([expect.objectContaining({ level: 'info', msg: 'request cut short', status: 206 })]);
    });

    it('logs an error when the bytes stop coming mid-stream', async () => {
      const blobs = t.app.services.files.blobs;
      const stream = blobs.stream;
      // The bucket (or the disk) fails once the first bytes have gone: a connection reset, a read error.
      blobs.stream = async (key, range) => {
        const source = await stream(key, range);
        source.once('data', () =>
          setTimeout(() => {
            const socket = (source as Partial<IncomingMessage>).socket;
            if (socket) socket.destroy();
            else source.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
          }, 10),
        );
        return source;
      };
      try {
        const request = `${storage}-failing`;
        expect((await leave(request)).received).toBeLessThan(SIZE);
        await until(() => linesOf(request).some((line) => line.level === 'error'));
        expect(linesOf(request)).toContainEqual(expect.objectContaining({ level: 'error', msg: 'request failed' }));
      } finally {
        blobs.stream = stream;
      }
    });
  });

  it('makes WebP thumbnails of an image, and answers 404 once the bytes are gone', async () => {
    const id = (await upload(tokens.diagnostician!, [{ name: 'photo.png', body: png() }], 'outage')).body.processedFiles[0].id;
    const auth = { authorization: `Bearer ${tokens.commercial}` };
    const thumb = await fetch(`${api}/files/${id}?w=96`, { headers: auth });
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    expect(
      Buffer.from(await thumb.arrayBuffer())
        .subarray(8, 12)
        .toString(),
    ).toBe('WEBP');
    const keys: string[] = [];
    for await (const entry of t.app.services.files.blobs.list()) keys.push(entry.key);
    expect(keys).toEqual(expect.arrayContaining([id, `thumbnails/${id}-96.webp`]));
    // A crash between the row and the bytes: the file answers as if it did not exist.
    await t.app.services.files.blobs.remove([id, `thumbnails/${id}-96.webp`]);
    expect((await fetch(`${api}/files/${id}`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${api}/files/${id}?w=96`, { headers: auth })).status).toBe(404);
  });

  it(`keeps the bytes ${storage === 's3' ? 'in the bucket, none under DATA_DIR/files' : 'under DATA_DIR/files'}`, async () => {
    const id = (await upload(tokens.diagnostician!, [{ name: 'plan.pdf', body: PDF }], 'documents')).body.processedFiles[0].id;
    const local = readdirSync(path.join(t.config.dataDir, 'files'));
    if (storage === 'disk') expect(local).toContain(id);
    else {
      expect(local).toEqual(['tmp']);
      const bucket = readdirSync(path.join(s3.server!.dir, t.config.storage.kind === 's3' ? t.config.storage.bucket : ''));
      expect(bucket).toContain(`${id}._S3rver_object`);
    }
  });

  it('works with @nhost/hasura-storage-js: upload, presigned URL, download, delete', async () => {
    const storage = new HasuraStorageClient({ url: api });
    storage.setAccessToken(tokens.diagnostician!);
    const uploaded = await storage.upload({
      file: new File([new Uint8Array(PDF)], 'schema-hydraulique.pdf', { type: 'application/pdf' }),
      bucketId: 'documents',
      name: 'schema-hydraulique.pdf',
    });
    expect(uploaded.error).toBeNull();
    const id = uploaded.fileMetadata!.id;
    expect(uploaded.fileMetadata).toMatchObject({ name: 'schema-hydraulique.pdf', bucketId: 'documents', mimeType: 'application/pdf', isUploaded: true });

    const { presignedUrl, error } = await storage.getPresignedUrl({ fileId: id });
    expect(error).toBeNull();
    expect(presignedUrl!.expiration).toBe(3600);
    const viaLink = await fetch(presignedUrl!.url.replace(t.config.publicUrl, t.url));
    expect(viaLink.status).toBe(200);
    expect(Buffer.from(await viaLink.arrayBuffer())).toEqual(PDF);
    const forged = await fetch(presignedUrl!.url.replace(t.config.publicUrl, t.url).replace(/signature=[^&]+/, 'signature=abc'));
    expect(forged.status).toBe(403);

    const refused = await storage.upload({
      file: new File([new Uint8Array(readFileSync(process.execPath).subarray(0, 4096))], 'outil.pdf'),
      bucketId: 'documents',
    });
    expect(refused.error).toMatchObject({ status: 415, message: 'Format non supporté' });

    expect((await storage.delete({ fileId: id })).error).toBeNull();
    expect((await fetch(`${api}/files/${id}`, { headers: { authorization: `Bearer ${tokens.diagnostician}` } })).status).toBe(404);
  });

  it("keeps the id and the name given to Nhost's client (metadata[]), and refuses an id that is no uuid or is taken", async () => {
    const storage = new HasuraStorageClient({ url: api });
    storage.setAccessToken(tokens.diagnostician!);
    const pdf = () => new File([new Uint8Array(PDF)], 'scan-0042.pdf', { type: 'application/pdf' });
    const id = randomUUID();
    const uploaded = await storage.upload({ file: pdf(), bucketId: 'documents', id, name: 'Schéma hydraulique.pdf' });
    expect(uploaded.error).toBeNull();
    expect(uploaded.fileMetadata).toMatchObject({ id, name: 'Schéma hydraulique.pdf', bucketId: 'documents' });
    const read = await fetch(`${api}/files/${id}`, { headers: { authorization: `Bearer ${tokens.diagnostician}` } });
    expect(read.status).toBe(200);
    expect(read.headers.get('content-disposition')).toContain("filename*=UTF-8''Sch%C3%A9ma%20hydraulique.pdf");
    expect(Buffer.from(await read.arrayBuffer())).toEqual(PDF);

    // hasura-storage's answers: a taken id is a conflict, an id that is no uuid a bad request; nothing stored.
    const taken = await storage.upload({ file: pdf(), bucketId: 'documents', id, name: 'autre.pdf' });
    expect(taken.error).toMatchObject({ status: 409, message: 'Un fichier existe déjà avec cet identifiant' });
    const malformed = await storage.upload({ file: pdf(), bucketId: 'documents', id: 'schema-1', name: 'autre.pdf' });
    expect(malformed.error).toMatchObject({ status: 400, message: "L'identifiant du fichier doit être un uuid" });
    // The same, posted as plain form fields rather than JSON parts.
    const form = new FormData();
    form.append('file[]', pdf());
    form.append('metadata[]', JSON.stringify({ id: 'x', name: 'a.pdf' }));
    const asField = await fetch(`${api}/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${tokens.diagnostician}` } });
    expect(asField.status).toBe(400);
    expect(await asField.json()).toEqual({ error: { message: "L'identifiant du fichier doit être un uuid" } });
  });
});

describe('presigned URLs from the bucket itself (STORAGE_PRESIGNED_URLS=bucket)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp('pglite', { env: { ...(await s3.env('s3')), STORAGE_PRESIGNED_URLS: 'bucket' } });
    token = (await postJson(`${t.url}/api/auth/signin/email-password`, { email: 'commercial@demo.local', password: DEMO_PASSWORD })).body.session.accessToken;
  });
  afterAll(() => t?.close());

  it('gives a signed-in reader a URL of the bucket that serves the file with its type and name, for the same hour', async () => {
    const diagnostician = (await postJson(`${t.url}/api/auth/signin/email-password`, { email: 'diagnostic@demo.local', password: DEMO_PASSWORD })).body.session
      .accessToken;
    const storage = new HasuraStorageClient({ url: `${t.url}/api/storage` });
    storage.setAccessToken(diagnostician);
    const uploaded = await storage.upload({ file: new File([new Uint8Array(PDF)], 'boîte.pdf'), bucketId: 'documents' });
    const id = uploaded.fileMetadata!.id;

    storage.setAccessToken(token);
    const { presignedUrl, error } = await storage.getPresignedUrl({ fileId: id });
    expect(error).toBeNull();
    expect(presignedUrl!.expiration).toBe(3600);
    expect(presignedUrl!.url.startsWith(`${s3.server!.endpoint}/`)).toBe(true);
    // Signed with the instance's key for the same hour (s3rver checks the key, not the signature:
    // refusing a forged one is the real bucket's part).
    const query = new URL(presignedUrl!.url).searchParams;
    expect(query.get('X-Amz-Expires')).toBe('3600');
    expect(query.get('X-Amz-Credential')).toMatch(/^S3RVER\//);
    expect(query.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const direct = await fetch(presignedUrl!.url);
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toBe('application/pdf');
    expect(direct.headers.get('content-disposition')).toBe(`inline; filename="boite.pdf"; filename*=UTF-8''bo%C3%AEte.pdf`);
    expect(Buffer.from(await direct.arrayBuffer())).toEqual(PDF);

    // No URL without a valid token, none for a file that is not there.
    expect((await fetch(`${t.url}/api/storage/files/${id}/presignedurl`)).status).toBe(401);
    await t.app.services.files.blobs.remove([id]);
    const gone = await fetch(`${t.url}/api/storage/files/${id}/presignedurl`, { headers: { authorization: `Bearer ${token}` } });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: { message: 'Fichier introuvable' } });
  });
});
