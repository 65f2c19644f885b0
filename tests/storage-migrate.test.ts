// Issue 19, item 1: `npm run storage:migrate` moves a workshop's files from DATA_DIR/files to an S3
// bucket: the same downloads, byte for byte, once the app restarts on the bucket.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { signInAll, type DemoRole } from './kit/index.ts';
import { PDF, png } from './support/fixtures.ts';
import { startS3Server } from './support/s3-server.ts';

const MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from('ftypmp42'),
  Buffer.from([0, 0, 0, 0]),
  Buffer.from('mp42isom'),
  Buffer.alloc(300_000, 7),
]);

/** `npm run storage:migrate` as an operator runs it, with only these settings. */
function migrate(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['server/storage/migrate.ts'], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('moving the files of a workshop from the disk to an S3 bucket', () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let client: S3Client;
  let dataDir: string;
  let t: TestApp | undefined;
  // The restart is the same installation: it keeps its encryption key (decision 050).
  const encryptionKey = 'k'.repeat(48);
  /** What each download answered on disk: path → bytes. */
  const downloads = new Map<string, Buffer>();
  let localFiles: string[];

  beforeAll(async () => {
    s3 = await startS3Server();
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.env.S3_ACCESS_KEY_ID, secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY },
    });
    dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-migrate-'));
  });
  afterAll(async () => {
    await t?.close();
    client?.destroy();
    await s3?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps files uploaded on disk, thumbnails and the demo curves included', async () => {
    t = await startTestApp('pglite', { dataDir, encryptionKeys: [encryptionKey] });
    const tokens = (await signInAll(t)) as Record<DemoRole, string>;
    for (const [name, body, bucket] of [
      ['plan.pdf', PDF, 'documents'],
      ['photo.png', png(), 'outage'],
      ['bruit.mp4', MP4, 'outage'],
    ] as const) {
      const form = new FormData();
      form.append('bucket-id', bucket);
      form.append('file[]', new Blob([new Uint8Array(body)]), name);
      const res = await fetch(`${t.url}/api/storage/files`, { method: 'POST', headers: { authorization: `Bearer ${tokens.diagnostician}` }, body: form });
      expect(res.status).toBe(201);
      const id = ((await res.json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
      downloads.set(`/files/${id}`, body);
      if (name === 'photo.png') downloads.set(`/files/${id}?w=96`, Buffer.alloc(0));
    }
    for (const [url] of downloads) {
      const res = await fetch(`${t.url}/api/storage${url}`, { headers: { authorization: `Bearer ${tokens.commercial}` } });
      expect(res.status).toBe(200);
      downloads.set(url, Buffer.from(await res.arrayBuffer()));
    }
    await t.close();
    t = undefined;
    localFiles = [...readdirSync(path.join(dataDir, 'files')), ...readdirSync(path.join(dataDir, 'files', 'thumbnails'))].sort();
    expect(localFiles).toContain('tmp');
  });

  it('refuses to run without a bucket configured or reachable, with one clear line', async () => {
    const run = await migrate({ DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'atelier-bva: No S3 storage configured: set STORAGE_URL or S3_BUCKET (with S3_ENDPOINT and the keys) to the bucket the files go to\n',
    );
    const absent = await migrate({ DATA_DIR: dataDir, ...s3.env, S3_BUCKET: 'seau-absent' });
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(new RegExp(`^atelier-bva: Cannot reach bucket seau-absent at ${s3.endpoint}: NotFound`));
    // A bucket another installation claimed (decision 057): nothing is copied into it.
    const other = randomUUID();
    const marker = JSON.stringify({ installation: other, claimedAt: '2026-11-27T04:00:00.000Z', by: 'start on staging' });
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'installation.json', Body: marker }));
    const claimed = await migrate({ DATA_DIR: dataDir, ...s3.env });
    const ours = JSON.parse(readFileSync(path.join(dataDir, 'files', 'installation.json'), 'utf8')).installation;
    expect(claimed.stderr).toBe(
      `atelier-bva: Invalid S3_BUCKET: bucket ${s3.bucket} at ${s3.endpoint} holds the files of another installation (installation.json names installation ${other}, claimed 2026-11-27T04:00:00.000Z by start on staging; ${dataDir}/files is installation ${ours}'s); give each installation a bucket of its own\n`,
    );
    expect(claimed.code).toBe(1);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['installation.json']);
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'installation.json' }));
  });

  let count = 0;
  it('copies every file once, then skips what is already there, and leaves the local files alone', async () => {
    const first = await migrate({ DATA_DIR: dataDir, ...s3.env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const summary = /Copied (\d+) \(([\d.]+) MB\), skipped 0 already in the bucket, failed 0\./.exec(first.stdout);
    expect(summary, first.stdout).not.toBeNull();
    count = Number(summary![1]);
    // 3 uploads, 1 thumbnail, and the demo workshop's curves.
    expect(count).toBeGreaterThanOrEqual(4);
    expect(Number(summary![2])).toBeGreaterThanOrEqual(0.3);
    const again = await migrate({ DATA_DIR: dataDir, ...s3.env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Copied 0 (0.0 MB), skipped ${count} already in the bucket, failed 0.`);
    expect([...readdirSync(path.join(dataDir, 'files')), ...readdirSync(path.join(dataDir, 'files', 'thumbnails'))].sort()).toEqual(localFiles);
  });

  it('resumes a cut or damaged copy: what is missing, of another size or of other bytes is copied again', async () => {
    const [pdf, png, mp4] = [...downloads.keys()].filter((url) => !url.includes('?')).map((url) => url.slice('/files/'.length));
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: pdf }));
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: mp4, Body: 'coupé' }));
    // Same size, other bytes: a local file replaced between two runs.
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: png, Body: Buffer.alloc(downloads.get(`/files/${png}`)!.length, 1) }));
    const run = await migrate({ DATA_DIR: dataDir, ...s3.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`skipped ${count - 3} already in the bucket, failed 0.`);
    expect(run.stdout).toMatch(/Copied 3 \(0\.3 MB\)/);
  });

  it('says which file failed and exits non-zero', async () => {
    const stuck = '1d2e3f40-5a6b-4c7d-8e9f-a0b1c2d3e4f5';
    writeFileSync(path.join(dataDir, 'files', stuck), 'x');
    // A directory where s3rver would write the object: the bucket fails that one key.
    const blocker = path.join(s3.dir, s3.bucket, `${stuck}._S3rver_object`);
    mkdirSync(blocker);
    try {
      const run = await migrate({ DATA_DIR: dataDir, ...s3.env });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`Failed: ${stuck}: `);
      expect(run.stdout).toContain(`Copied 0 (0.0 MB), skipped ${count} already in the bucket, failed 1.`);
    } finally {
      rmSync(blocker, { recursive: true, force: true });
      rmSync(path.join(dataDir, 'files', stuck), { force: true });
    }
  });

  it('serves the same downloads from the bucket once the app restarts on it, the local files set aside', async () => {
    renameSync(path.join(dataDir, 'files'), path.join(dataDir, 'files-before-s3'));
    t = await startTestApp('pglite', { dataDir, encryptionKeys: [encryptionKey], env: s3.env });
    const tokens = (await signInAll(t)) as Record<DemoRole, string>;
    for (const [url, bytes] of downloads) {
      const res = await fetch(`${t.url}/api/storage${url}`, { headers: { authorization: `Bearer ${tokens.commercial}` } });
      expect(res.status, url).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes), url).toBe(true);
    }
    expect(readdirSync(path.join(dataDir, 'files'))).toEqual(['tmp']);
  });
});
