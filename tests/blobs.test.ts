// Issue 19, item 1: both homes of file bytes keep the same contract (server/storage/blobs.ts):
// the local disk and an S3 bucket (a real S3 protocol server, s3rver).
import { type AddressInfo, connect, createServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Blobs, createDiskBlobs, thumbnailKey } from '#server/storage/blobs.ts';
import { createS3Blobs, type S3Blobs } from '#server/storage/s3-blobs.ts';
import { freePort } from './support/postgres-server.ts';
import { startS3Server } from './support/s3-server.ts';

const ID = '6f1c2a9e-3b7d-4e21-9a55-0c8d7e6f5a41';
const OTHER = '0b9e8d7c-6a5f-4e3d-8c2b-1a0f9e8d7c6b';
const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type Backend = { blobs: Blobs; tmpDir: string; stop(): Promise<void> };

const backends: Record<'disk' | 's3', () => Promise<Backend>> = {
  disk: async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atelier-blobs-'));
    return { blobs: createDiskBlobs(path.join(dir, 'files')), tmpDir: path.join(dir, 'tmp'), stop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  s3: async () => {
    const server = await startS3Server();
    const dir = mkdtempSync(path.join(tmpdir(), 'atelier-blobs-'));
    const tmpDir = path.join(dir, 'tmp');
    const blobs = createS3Blobs(
      {
        kind: 's3',
        endpoint: server.endpoint,
        bucket: server.bucket,
        region: 'us-east-1',
        credentials: { accessKeyId: server.env.S3_ACCESS_KEY_ID, secretAccessKey: server.env.S3_SECRET_ACCESS_KEY },
        forcePathStyle: true,
        presignedUrls: 'app',
      },
      { tmpDir },
    );
    return {
      blobs,
      tmpDir,
      stop: async () => {
        blobs.close();
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

describe.each(['disk', 's3'] as const)('file bytes on %s', (kind) => {
  let backend: Backend;
  let blobs: Blobs;
  let n = 0;
  /** A temporary file as an upload leaves it, checked. */
  const tmpFile = (content: Buffer) => {
    const file = path.join(backend.tmpDir, `upload-${n++}`);
    writeFileSync(file, content);
    return file;
  };
  beforeAll(async () => {
    backend = await backends[kind]();
    blobs = backend.blobs;
    mkdirSync(backend.tmpDir, { recursive: true });
  });
  afterAll(() => backend?.stop());

  it('moves bytes from one key to another, replacing what was there, and leaves nothing under the first', async () => {
    const staged = `${OTHER}.staged.abc`;
    await blobs.put(OTHER, tmpFile(Buffer.from('ancien')));
    await blobs.put(staged, tmpFile(Buffer.from('nouveau')));
    await blobs.move(staged, OTHER);
    expect((await blobs.read(OTHER))?.toString()).toBe('nouveau');
    expect(await blobs.size(staged)).toBeNull();
    await blobs.remove([OTHER]);
  });

  it('keeps what put moved in, whole or by range, and takes the temporary file away', async () => {
    const tmp = tmpFile(bytes);
    await blobs.put(ID, tmp);
    expect(existsSync(tmp)).toBe(false);
    expect(await blobs.size(ID)).toBe(bytes.length);
    expect(await blobs.read(ID)).toEqual(bytes);
    expect(await collect(await blobs.stream(ID))).toEqual(bytes);
    expect(await collect(await blobs.stream(ID, { start: 10, end: 19 }))).toEqual(bytes.subarray(10, 20));
    expect(await collect(await blobs.stream(ID, { start: 4990, end: 4999 }))).toEqual(bytes.subarray(4990));
  });

  it('replaces the bytes of a key put again', async () => {
    await blobs.put(ID, tmpFile(Buffer.from('nouvelle version')));
    expect((await blobs.read(ID))?.toString()).toBe('nouvelle version');
    await blobs.put(ID, tmpFile(bytes));
    expect(await blobs.size(ID)).toBe(bytes.length);
  });

  it('lends a local file for tools that read files, and keeps nothing of it after', async () => {
    const before = readdirSync(backend.tmpDir);
    const seen = await blobs.withLocalFile(ID, async (file) => readFileSync(file));
    expect(seen).toEqual(bytes);
    expect(readdirSync(backend.tmpDir)).toEqual(before);
  });

  it('says "nothing" for a key without bytes, and refuses to stream or lend one', async () => {
    expect(await blobs.size(OTHER)).toBeNull();
    expect(await blobs.read(OTHER)).toBeNull();
    await expect(blobs.stream(OTHER).then(collect)).rejects.toThrow();
    await expect(blobs.withLocalFile(OTHER, async (file) => readFileSync(file))).rejects.toThrow();
  });

  it('lists every key with bytes, thumbnails included, with when they were written', async () => {
    const start = Date.now() - 60_000;
    await blobs.put(thumbnailKey(ID, 96), tmpFile(Buffer.from('webp')));
    const listed: { key: string; modifiedAt: Date }[] = [];
    for await (const entry of blobs.list()) listed.push(entry);
    expect(listed.map((e) => e.key).sort()).toEqual([ID, thumbnailKey(ID, 96)].sort());
    for (const entry of listed) expect(entry.modifiedAt.getTime()).toBeGreaterThan(start);
  });

  it('removes keys, those without bytes being no error, more than one batch at once', async () => {
    const many = Array.from({ length: 1203 }, (_, i) => `thumbnails/absent-${i}.webp`);
    await blobs.remove([ID, OTHER, thumbnailKey(ID, 96), ...many]);
    expect(await blobs.size(ID)).toBeNull();
    expect(await blobs.size(thumbnailKey(ID, 96))).toBeNull();
    const listed: string[] = [];
    for await (const entry of blobs.list()) listed.push(entry.key);
    expect(listed).toEqual([]);
  });

  if (kind === 's3') {
    it('throws what is not a missing key instead of answering "nothing"', async () => {
      const s3 = blobs as S3Blobs;
      const wrongConfig = {
        kind: 's3' as const,
        endpoint: String(await s3.client.config.endpoint?.().then((e) => `${e.protocol}//${e.hostname}:${e.port}`)),
        bucket: 'bucket-absent',
        region: 'us-east-1',
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        forcePathStyle: true,
        presignedUrls: 'app' as const,
      };
      const wrong = createS3Blobs(wrongConfig, { tmpDir: backend.tmpDir });
      // Nobody listening: a failure, not "no such file".
      const port = await freePort();
      const down = createS3Blobs({ ...wrongConfig, endpoint: `http://127.0.0.1:${port}`, bucket: 'atelier-files' }, { tmpDir: backend.tmpDir });
      try {
        await expect(wrong.read(ID)).rejects.toMatchObject({ name: 'NoSuchBucket' });
        await expect(wrong.put(ID, tmpFile(bytes))).rejects.toThrow();
        await expect(down.size(ID)).rejects.toThrow(/ECONNREFUSED/);
        await expect(down.read(ID)).rejects.toThrow(/ECONNREFUSED/);
      } finally {
        wrong.close();
        down.close();
      }
    });

    it('puts the bytes again on a fresh connection when the first is cut before any answer («socket hang up»)', async () => {
      const s3 = blobs as S3Blobs;
      const target = await s3.client.config.endpoint!();
      // A relay that cuts its first connection as the request arrives, then passes the others through.
      let connections = 0;
      const relay = createServer((client) => {
        connections += 1;
        if (connections === 1) return void client.once('data', () => client.destroy());
        const upstream = connect(Number(target.port), target.hostname, () => client.pipe(upstream).pipe(client));
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      const { port } = relay.address() as AddressInfo;
      const endpoint = `http://127.0.0.1:${port}`;
      const cut = createS3Blobs(
        {
          kind: 's3',
          endpoint,
          bucket: s3.bucket,
          region: 'us-east-1',
          credentials: await s3.client.config.credentials(),
          forcePathStyle: true,
          presignedUrls: 'app',
        },
        { tmpDir: backend.tmpDir },
      );
      try {
        await cut.put(ID, tmpFile(bytes));
        expect(connections).toBe(2);
        expect(await blobs.read(ID)).toEqual(bytes);
      } finally {
        cut.close();
        relay.close();
      }
    });
  }
});
