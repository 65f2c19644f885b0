// The file storage API of SPEC §7.2 at /api/storage, with hasura-storage's shapes, so that
// Nhost's @nhost/hasura-storage-js works against it.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { opensInline } from '#lib/gearboxes/documents.ts';
import { buckets, isBucketId, PHOTO_BUCKET, UNSUPPORTED_FORMAT, type BucketId } from '#lib/storage/files.ts';

const bucketIds = Object.keys(buckets) as BucketId[];
import { canWriteBucket } from '#lib/permissions.ts';
import type { Services } from '#server/services.ts';
import { resolveViewer, type Viewer } from '#server/auth/viewer.ts';
import type { Config } from '#server/config.ts';
import { sendJson, statusOf } from '#server/http/json.ts';
import { contentDisposition } from '#lib/storage/files.ts';
import { checkType, cleanName, FILE_ID, type FileRow, type FileStore, type RowOptions } from './store.ts';
import { isS3Blobs } from './s3-blobs.ts';
import { DomainError, type DomainErrorKind, refuse } from '#server/errors.ts';
import { recordFileChange } from '#server/audit/files.ts';
import { t } from '#lib/i18n.ts';
import { handedWhole } from '#server/log.ts';

/** Photos are made by the server from what was taken (decision 088): the API writes none, nor replaces or deletes one. */
const apiWrites = (role: Parameters<typeof canWriteBucket>[0], bucket: BucketId) => bucket !== PHOTO_BUCKET && canWriteBucket(role, bucket);

const MAX_FILES = 20;
const PRESIGNED_SECONDS = 3600;

const toResponse = (row: FileRow) => ({
  id: row.id,
  name: row.name,
  size: row.size,
  bucketId: row.bucketId,
  etag: row.etag,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  isUploaded: row.isUploaded,
  mimeType: row.mimeType,
  uploadedByUserId: row.uploadedByUserId,
  metadata: null,
});

type Part = { name: string; tmp: string; size: number; sha: string; truncated: boolean };
type FileMetadata = { id?: string; name?: string };

/**
 * One `metadata[]` entry (SPEC §7.2): the JSON `{ id, name }` of the file at the same position,
 * either part optional. An id must be a uuid and a name a text, else the whole upload is refused
 * (400, hasura-storage's shape) rather than stored under an id or name the client did not ask for.
 */
function readMetadata(text: string): FileMetadata {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw refuse('invalid', t('refusals.fileMetadataInvalid'));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse('invalid', t('refusals.fileMetadataInvalid'));
  const { id, name } = value as Record<string, unknown>;
  if (id !== undefined && id !== null && (typeof id !== 'string' || !FILE_ID.test(id))) throw refuse('invalid', t('refusals.fileIdInvalid'));
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > 255)) throw refuse('invalid', t('refusals.fileNameInvalid'));
  return { ...(typeof id === 'string' ? { id: id.toLowerCase() } : {}), ...(typeof name === 'string' && name.trim() ? { name } : {}) };
}

/**
 * The headers of the file API's refusal, one row per kind (decision 021; its status is
 * `statusOf`'s, its body the message alone): a body refused for its size may still be coming,
 * so the answer closes the connection rather than read the rest of it.
 */
const HEADERS: Record<DomainErrorKind, Record<string, string>> = {
  'too-large': { Connection: 'close' },
  invalid: {},
  unauthenticated: {},
  forbidden: {},
  'not-found': {},
  'not-allowed': {},
  conflict: {},
  unsupported: {},
  'too-many-requests': {},
  unavailable: {},
  'storage-full': {},
};

/**
 * Streams a file's bytes into the answer. A client that goes away first (curl at the last byte, a
 * browser cancelling a download or moving a video) is no failure: it resolves, and the server's
 * log says at info that the request was cut short. Bytes that stop coming (the bucket or the disk
 * failing mid-stream) reject, so the request is logged as failed. Which side closed first tells.
 */
export async function sendBytes(source: Readable, res: ServerResponse): Promise<void> {
  if (res.destroyed) {
    // Gone while the bucket was being asked.
    source.destroy();
    return;
  }
  let first: 'source' | 'client' | undefined;
  source.once('error', () => (first ??= 'source'));
  source.once('close', () => (first ??= source.readableEnded ? undefined : 'source'));
  res.once('close', () => (first ??= res.writableFinished ? undefined : 'client'));
  // Every byte of the answer's length handed over: a close from now on is the client's at the end.
  const length = Number(res.getHeader('content-length'));
  let handed = 0;
  source.on('data', (chunk: Buffer) => {
    handed += chunk.length;
    if (handed === length) handedWhole.add(res);
  });
  try {
    await pipeline(source, res);
  } catch (error) {
    if (first !== 'client') throw error;
  }
}

export function createStorageRoutes(deps: {
  store: FileStore;
  services: Pick<Services, 'auth'>;
  config: Pick<Config, 'storageMaxBytes' | 'publicUrl' | 'storage'>;
}) {
  const { store, config } = deps;
  const { tmpDir, blobs } = store;
  const maxBytes = Math.max(...Object.values(config.storageMaxBytes));

  async function viewerOf(req: IncomingMessage): Promise<Viewer> {
    if (!req.headers.authorization) throw refuse('unauthenticated', t('refusals.authRequired'));
    const identity = await resolveViewer({ get: (name) => req.headers[name] as string | undefined }, deps.services);
    if (!identity.viewer)
      throw identity.error === 'invalid' ? refuse('unauthenticated', t('refusals.invalidToken')) : refuse('forbidden', t('refusals.forbidden'));
    return identity.viewer;
  }

  const findFile = store.find;

  /**
   * Streams the parts to temporary files; the bucket id may come after the files. On any
   * failure, a client gone mid-upload included, what was written is removed before it throws.
   */
  async function readMultipart(req: IncomingMessage): Promise<{ bucketId?: string; parts: Part[]; metadata: FileMetadata[] }> {
    const parts: Part[] = [];
    const writes: Promise<void>[] = [];
    try {
      return await readParts(req, parts, writes);
    } catch (error) {
      // Let the write streams close before their files go.
      await Promise.allSettled(writes);
      for (const part of parts) rmSync(part.tmp, { force: true });
      throw error;
    }
  }

  async function readParts(req: IncomingMessage, parts: Part[], writes: Promise<void>[]) {
    const metadata: string[] = [];
    let bucketId: string | undefined;
    let failure: DomainError | null = null;
    await new Promise<void>((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        // File names are UTF-8 (busboy reads them as latin1 unless told).
        parser = busboy({
          headers: req.headers,
          defParamCharset: 'utf8',
          limits: { files: MAX_FILES * 2, fileSize: maxBytes, fields: MAX_FILES + 10, fieldSize: 4096, parts: MAX_FILES * 2 + 10 },
        });
      } catch {
        return reject(refuse('invalid', t('refusals.multipartExpected')));
      }
      const gone = () => {
        const error = refuse('invalid', t('refusals.uploadInterrupted'));
        parser.destroy(error);
        reject(error);
      };
      req.once('aborted', gone);
      req.once('close', () => {
        if (!req.complete) gone();
      });
      parser.on('field', (name, value) => {
        if (name === 'bucket-id') bucketId = value;
        // The same JSON as a plain form field, which is how a FormData Blob without a file name arrives.
        if (name === 'metadata[]') metadata.push(value);
      });
      parser.on('file', (field, stream, info) => {
        if (field === 'metadata[]') {
          // Nhost's client sends it as a JSON part (a Blob), which may arrive with a file name.
          const chunks: Buffer[] = [];
          let size = 0;
          stream.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= 4096) chunks.push(c);
          });
          stream.on('end', () => metadata.push(Buffer.concat(chunks).toString('utf8')));
          return;
        }
        if (field !== 'file[]') return stream.resume();
        const tmp = path.join(tmpDir, randomUUID());
        const hash = createHash('md5');
        const part: Part = { name: info.filename ?? 'fichier', tmp, size: 0, sha: '', truncated: false };
        parts.push(part);
        stream.on('data', (c: Buffer) => {
          part.size += c.length;
          hash.update(c);
        });
        stream.on('limit', () => (part.truncated = true));
        writes.push(
          pipeline(stream, createWriteStream(tmp)).then(
            () => {
              part.sha = hash.digest('hex');
            },
            (error: unknown) => {
              failure ??= refuse('invalid', t('refusals.uploadInterrupted'));
              throw error;
            },
          ),
        );
      });
      parser.on('filesLimit', () => (failure ??= refuse('too-large', t('refusals.tooManyFiles', { max: MAX_FILES }))));
      parser.on('partsLimit', () => (failure ??= refuse('too-large', t('refusals.tooManyFiles', { max: MAX_FILES }))));
      parser.on('error', () => reject(refuse('invalid', t('refusals.multipartInvalid'))));
      parser.on('close', () => resolve());
      req.pipe(parser);
    });
    await Promise.allSettled(writes);
    if (failure) throw failure;
    await Promise.all(writes);
    if (parts.length > MAX_FILES) throw refuse('too-large', t('refusals.tooManyFiles', { max: MAX_FILES }));
    return { bucketId, parts, metadata: metadata.map(readMetadata) };
  }

  async function upload(req: IncomingMessage, res: ServerResponse) {
    const viewer = await viewerOf(req);
    // A role that may write no bucket is refused before a byte is read.
    if (!bucketIds.some((bucket) => apiWrites(viewer.role, bucket))) throw refuse('forbidden', t('refusals.forbidden'));
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    if (!type.startsWith('multipart/form-data')) throw refuse('unsupported', t('refusals.multipartExpected'));
    // Before a byte is read: a nearly full disk refuses what the request says it carries.
    store.assertRoom(Number(req.headers['content-length'] ?? 0) || maxBytes);
    const { bucketId = 'documents', parts, metadata } = await readMultipart(req);
    try {
      if (!isBucketId(bucketId)) throw refuse('invalid', t('refusals.unknownBucket'));
      if (!apiWrites(viewer.role, bucketId)) throw refuse('forbidden', t('refusals.forbidden'));
      if (parts.length === 0) throw refuse('invalid', t('refusals.noFileReceived'));
      const checked: { tmp: string; id: string; name: string; size: number; etag: string; mimeType: string }[] = [];
      for (const [i, part] of parts.entries()) {
        const meta = metadata[i] ?? {};
        const name = cleanName(meta.name ?? part.name);
        if (part.truncated || part.size > config.storageMaxBytes[bucketId]) {
          throw refuse('too-large', t('refusals.fileTooLarge', { mb: Math.round(config.storageMaxBytes[bucketId] / 1024 / 1024) }));
        }
        if (part.size === 0) throw refuse('unsupported', UNSUPPORTED_FORMAT);
        const mimeType = await checkType(bucketId, name, part.tmp);
        const id = meta.id ?? randomUUID();
        checked.push({ tmp: part.tmp, id, name, size: part.size, etag: `"${part.sha}"`, mimeType });
      }
      // Every file passed: record them in one transaction, then move the bytes in place.
      const rows = await store.commit(bucketId, viewer.id, checked);
      sendJson(res, 201, { processedFiles: rows.map(toResponse) });
    } finally {
      for (const part of parts) rmSync(part.tmp, { force: true });
    }
  }

  /** hasura-storage's PUT /files/{id}: one file replaces the bytes, in the same bucket. */
  async function replace(req: IncomingMessage, res: ServerResponse, id: string) {
    const viewer = await viewerOf(req);
    const row = await findFile(id);
    if (!isBucketId(row.bucketId) || !apiWrites(viewer.role, row.bucketId)) throw refuse('forbidden', t('refusals.forbidden'));
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    if (!type.startsWith('multipart/form-data')) throw refuse('unsupported', t('refusals.multipartExpected'));
    store.assertRoom(Number(req.headers['content-length'] ?? 0) || maxBytes);
    const { parts, metadata } = await readMultipart(req);
    try {
      if (parts.length !== 1) throw refuse('invalid', t('refusals.oneFileExpected'));
      const part = parts[0]!;
      const name = cleanName(metadata[0]?.name ?? part.name);
      if (part.truncated || part.size > config.storageMaxBytes[row.bucketId]) {
        throw refuse('too-large', t('refusals.fileTooLarge', { mb: Math.round(config.storageMaxBytes[row.bucketId] / 1024 / 1024) }));
      }
      if (part.size === 0) throw refuse('unsupported', UNSUPPORTED_FORMAT);
      const mimeType = await checkType(row.bucketId, name, part.tmp);
      // What holds the file (a dossier's document, an order's file) records the change, in the row's transaction.
      const audit: RowOptions = { inTransaction: (tx) => recordFileChange(tx, row.id, { action: 'changed', name }, { id: viewer.id }) };
      sendJson(res, 200, toResponse(await store.replace(row, { tmp: part.tmp, name, size: part.size, etag: `"${part.sha}"`, mimeType }, audit)));
    } finally {
      for (const part of parts) rmSync(part.tmp, { force: true });
    }
  }

  async function download(req: IncomingMessage, res: ServerResponse, id: string, query: URLSearchParams) {
    const expires = Number(query.get('expires'));
    const signature = query.get('signature');
    if (signature) {
      if (!store.verifySignature(id, expires, signature)) throw refuse('forbidden', t('refusals.linkExpired'));
    } else {
      await viewerOf(req);
    }
    const row = await findFile(id);
    // hasura-storage's image transformation: `w` gives a thumbnail (WebP) of an image.
    const width = Number(query.get('w'));
    const thumbnail = width ? await store.thumbnail(row, width) : null;
    const key = thumbnail ?? row.id;
    const size = await blobs.size(key);
    // A row whose bytes are gone (a crash between the two): as if the file did not exist.
    if (size === null) throw refuse('not-found', t('refusals.fileNotFound'));
    const headers: Record<string, string | number> = {
      'Content-Type': thumbnail ? 'image/webp' : row.mimeType,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      ETag: thumbnail ? `"${row.etag.slice(1, -1)}-w${width}"` : row.etag,
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'private, max-age=3600',
      'Content-Disposition': contentDisposition(opensInline(row.mimeType) ? 'inline' : 'attachment', row.name),
    };
    if (req.headers['if-none-match'] === headers.ETag) {
      res.writeHead(304, headers);
      return res.end();
    }
    const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
    if (range && (range[1] || range[2])) {
      let start = range[1] ? Number(range[1]) : size - Number(range[2]);
      let end = range[1] && range[2] ? Number(range[2]) : size - 1;
      start = Math.max(0, start);
      end = Math.min(end, size - 1);
      if (start > end) {
        res.writeHead(416, { 'Content-Range': `bytes */${size}` });
        return res.end();
      }
      res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1 });
      if (req.method === 'HEAD') return res.end();
      return sendBytes(await blobs.stream(key, { start, end }), res);
    }
    res.writeHead(200, { ...headers, 'Content-Length': size });
    if (req.method === 'HEAD') return res.end();
    await sendBytes(await blobs.stream(key), res);
  }

  /** Decision 033: the bucket's own URL when STORAGE_PRESIGNED_URLS=bucket, else a link to this app. */
  const bucketLinks = config.storage.kind === 's3' && config.storage.presignedUrls === 'bucket' && isS3Blobs(blobs) ? blobs : null;

  async function presigned(req: IncomingMessage, res: ServerResponse, id: string) {
    await viewerOf(req);
    const row = await findFile(id);
    if (!bucketLinks) return sendJson(res, 200, { url: `${config.publicUrl}${store.signedPath(row.id)}`, expiration: PRESIGNED_SECONDS });
    // The bucket would answer its own 404 in XML: the storage API's stays the answer.
    if ((await blobs.size(row.id)) === null) throw refuse('not-found', t('refusals.fileNotFound'));
    const url = await bucketLinks.presignedGet(row.id, {
      expiresIn: PRESIGNED_SECONDS,
      contentType: row.mimeType,
      contentDisposition: contentDisposition(opensInline(row.mimeType) ? 'inline' : 'attachment', row.name),
    });
    sendJson(res, 200, { url, expiration: PRESIGNED_SECONDS });
  }

  async function remove(req: IncomingMessage, res: ServerResponse, id: string) {
    const viewer = await viewerOf(req);
    const row = await findFile(id);
    if (!isBucketId(row.bucketId) || !apiWrites(viewer.role, row.bucketId)) throw refuse('forbidden', t('refusals.forbidden'));
    // The document or order file it takes with it (foreign keys cascade) records its deletion, in the same transaction.
    await store.remove(row.id, { inTransaction: (tx) => recordFileChange(tx, row.id, { action: 'deleted' }, { id: viewer.id }) });
    res.writeHead(204);
    res.end();
  }

  /** `subpath` is what follows /api/storage. */
  return async function handleStorage(req: IncomingMessage, res: ServerResponse, subpath: string): Promise<void> {
    const [pathname, search = ''] = subpath.split('?');
    const query = new URLSearchParams(search);
    const match = /^\/files(?:\/([^/]+)(\/presignedurl)?)?\/?$/.exec(pathname!);
    try {
      if (!match) throw refuse('not-found', t('refusals.unknownRoute'));
      const [, id, presign] = match;
      if (!id && req.method === 'POST') return await upload(req, res);
      if (id && presign && req.method === 'GET') return await presigned(req, res, id);
      if (id && !presign && (req.method === 'GET' || req.method === 'HEAD')) return void (await download(req, res, id, query));
      if (id && !presign && req.method === 'DELETE') return await remove(req, res, id);
      if (id && !presign && req.method === 'PUT') return await replace(req, res, id);
      throw refuse('not-allowed', t('refusals.methodNotAllowed'));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      req.resume();
      if (res.headersSent) return;
      sendJson(res, statusOf(error), { error: { message: error.message } }, HEADERS[error.kind]);
    }
  };
}
