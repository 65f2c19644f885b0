// Stored files: their metadata rows, and their bytes through `blobs` (blobs.ts). One place that
// checks a file against its bucket, keeps it, signs links to it, makes thumbnails and removes it. The storage API and the
// server-rendered pages (forms that post a file) both go through it.
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq, inArray, lte, notExists, or } from 'drizzle-orm';
import { fileTypeFromFile } from 'file-type';
import { isImage } from '#lib/gearboxes/documents.ts';
import { buckets, fileKinds, PHOTO_BUCKET, UNSUPPORTED_FORMAT, type BucketId } from '#lib/storage/files.ts';
import type { Config } from '#server/config.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { files, orderFiles } from '#server/db/schema/index.ts';
import { refuse } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import type { Logger } from '#server/log.ts';
import { KEY_OF_FILE, stagedKey, thumbnailKey } from './blobs.ts';
import { homePlace, openBlobs, sweepRefusal } from './home.ts';
import { loadSharp } from './sharp.ts';

export type FileRow = typeof files.$inferSelect;
export type FileStore = ReturnType<typeof createFileStore>;
/** `inTransaction` runs in the row's own transaction, before its change (the audit trail's event). */
export type RowOptions = { inTransaction?: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<void> };

/** Any UUID shape: clients of the storage API choose their files' ids. */
export const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Links on a page stay the same for the hour, so the browser's cache serves thumbnails. */
const LINK_WINDOW = 3600;
/** The unlinked photos one sweep removes at most. */
const SWEEP_BATCH = 1000;
const THUMBNAIL_SIZES = new Set([96, 160, 320, 640]);
/** A temporary file nobody has written to for this long belongs to an upload that died. */
export const TMP_IDLE_MS = 5 * 60_000;
/** How often stored bytes are checked against the rows (decision 036). */
const ORPHAN_SWEEP_MS = 15 * 60_000;
/**
 * The least age of a photo the sweep takes, whatever STORAGE_ORPHAN_GRACE_MINUTES says (0 is
 * accepted, for bytes): an addition links its photos seconds after keeping them (decision 088).
 */
const PHOTO_GRACE_MS = 15 * 60_000;
/** A sweep's log line names at most this many of the keys it removed. */
const LOGGED_KEYS = 100;

/** A display name without path parts or control characters. */
export function cleanName(name: string): string {
  const base = name.replace(/\\/g, '/').split('/').pop() ?? '';
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return clean && clean !== '.' && clean !== '..' ? clean : 'fichier';
}

function looksLikeText(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const head = buffer.subarray(0, read);
    if (head.includes(0)) return false;
    // A cut in the middle of a character at the end of the sample is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(read === buffer.length ? head.subarray(0, read - 4) : head);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** The MIME type the bytes and the extension agree on, or UNSUPPORTED_FORMAT. */
export async function checkType(bucket: BucketId, name: string, file: string): Promise<string> {
  const ext = path.extname(name).slice(1).toLowerCase();
  const kind = buckets[bucket].kinds.find((k) => fileKinds[k].extensions.includes(ext));
  if (!kind) throw refuse('unsupported', UNSUPPORTED_FORMAT);
  const rules = fileKinds[kind];
  const detected = await fileTypeFromFile(file);
  if (rules.text) {
    if (detected || !looksLikeText(file)) throw refuse('unsupported', UNSUPPORTED_FORMAT);
    return rules.mimeTypes[0]!;
  }
  if (!detected || !rules.mimeTypes.includes(detected.mime)) throw refuse('unsupported', UNSUPPORTED_FORMAT);
  return detected.mime;
}

export function createFileStore(deps: {
  db: Db;
  config: Pick<Config, 'dataDir' | 'storageMaxBytes' | 'jwtSecret' | 'storageMinFreeBytes' | 'storage'> &
    Partial<Pick<Config, 'storageOrphanGraceMs' | 'databaseUrl'>>;
  /** Where the sweeps say what they removed, or why they did not run. */
  logger?: Logger;
  /** False for a one-off job (the demo's seed): only the server's store sweeps (decision 057). */
  sweeps?: boolean;
}) {
  const { db, config, logger, sweeps = true } = deps;
  const root = path.join(config.dataDir, 'files');
  // Uploads land here first, checked, then move in: on this instance's disk whatever `blobs` is.
  const tmpDir = path.join(root, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  // The disk unless STORAGE_URL or S3_* name a bucket (decision 033).
  const blobs = openBlobs(config);
  const thumbnailKeys = (id: string) => [...THUMBNAIL_SIZES].map((width) => thumbnailKey(id, width));

  /** Removes what uploads cut off, refused or killed with the server left behind. */
  const sweepTmp = (idleMs = TMP_IDLE_MS) => {
    const now = Date.now();
    for (const name of readdirSync(tmpDir)) {
      const file = path.join(tmpDir, name);
      try {
        // In whole milliseconds, as Date.now() is: a file written this very millisecond has an
        // mtime a fraction above it, and `sweepTmp(0)` must still take it.
        if (now - Math.floor(statSync(file).mtimeMs) >= idleMs) rmSync(file, { force: true });
      } catch {
        // Gone already: another sweep or its upload finished.
      }
    }
  };
  if (sweeps) sweepTmp();
  const sweeper = setInterval(() => sweeps && sweepTmp(), TMP_IDLE_MS);
  sweeper.unref();

  /**
   * Settles what a crash left (decision 036): staged bytes whose row names them move in at once;
   * bytes no row claims (thumbnails follow their file), and staged bytes no row names, are removed
   * once older than the grace period, which covers uploads still in flight on other instances;
   * so are photos no order links.
   */
  const sweepOrphans = async (graceMs = config.storageOrphanGraceMs ?? 60 * 60_000) => {
    // Only in a home that names this installation: another's files are not orphans (decision 057).
    const refusal = await sweepRefusal(db, blobs, config);
    if (refusal) {
      logger?.error('orphan sweep skipped', { reason: refusal });
      return 0;
    }
    const cutoff = Date.now() - graceMs;
    // Apart from the bytes' sweep: a failure here is logged, and the rest of the sweep still runs.
    const removed = await sweepUnlinkedPhotos(new Date(Math.min(cutoff, Date.now() - PHOTO_GRACE_MS))).catch((error: unknown) => {
      logger?.error('unlinked photo sweep failed', { error: error instanceof Error ? error.message : String(error) });
      return [] as string[];
    });
    const keys: { key: string; id: string; staged?: string; old: boolean }[] = [];
    for await (const { key, modifiedAt } of blobs.list()) {
      const match = KEY_OF_FILE.exec(key);
      const old = modifiedAt.getTime() <= cutoff;
      if (match && (old || match[2])) keys.push({ key, id: match[1]!, staged: match[2], old });
    }
    const etags = new Map<string, string>();
    const ids = [...new Set(keys.map((k) => k.id))];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db
        .select({ id: files.id, etag: files.etag })
        .from(files)
        .where(inArray(files.id, ids.slice(i, i + 500)));
      for (const row of rows) etags.set(row.id, row.etag);
    }
    for (const { key, id, staged, old } of keys) {
      const etag = etags.get(id);
      try {
        if (staged && etag === `"${staged}"`) await moveIn(key, id);
        else if (old && (staged || etag === undefined)) {
          await blobs.remove([key]);
          removed.push(key);
        }
      } catch {
        // Another instance settled this key first; the rest of the sweep goes on.
      }
    }
    if (removed.length) {
      logger?.info('orphan files removed', {
        place: homePlace(config),
        count: removed.length,
        keys: removed.slice(0, LOGGED_KEYS),
        ...(removed.length > LOGGED_KEYS ? { more: removed.length - LOGGED_KEYS } : {}),
      });
    }
    return removed.length;
  };
  /**
   * Photos and thumbnails no order links, kept before `cutoff`: the process died between their
   * commit and the transaction that links them (decision 088), so nobody can see or delete them.
   * Rows then bytes, as a removal; the keys removed.
   */
  const sweepUnlinkedPhotos = async (cutoff: Date): Promise<string[]> => {
    const linked = db
      .select({ id: orderFiles.id })
      .from(orderFiles)
      .where(or(eq(orderFiles.fileId, files.id), eq(orderFiles.thumbnailId, files.id)));
    const unlinked = and(eq(files.bucketId, PHOTO_BUCKET), lte(files.createdAt, cutoff), notExists(linked));
    const rows = await db.transaction(async (tx) => {
      // Locked first, skipping what a link being inserted holds (the foreign key's check locks its
      // file's row): that photo is left to the next sweep. The delete, a later statement, sees the
      // links committed since the first one read, and keeps those photos; a single delete would
      // wait for such a link, then go on and take it with it (the cascade).
      // At most a batch a sweep (the rest goes at the next): a backlog stays within a query's parameters.
      const candidates = await tx.select({ id: files.id }).from(files).where(unlinked).limit(SWEEP_BATCH).for('update', { skipLocked: true });
      if (candidates.length === 0) return [];
      return tx
        .delete(files)
        .where(
          and(
            inArray(
              files.id,
              candidates.map((c) => c.id),
            ),
            unlinked,
          ),
        )
        .returning({ id: files.id });
    });
    const keys = rows.flatMap((r) => [r.id, ...thumbnailKeys(r.id)]);
    if (keys.length) await blobs.remove(keys);
    return rows.map((r) => r.id);
  };
  /** Staged bytes take their file's place; thumbnails of the old bytes go. */
  const moveIn = async (from: string, to: string) => {
    await blobs.move(from, to);
    await blobs.remove(thumbnailKeys(to));
  };
  const orphanSweeps = { running: (sweeps ? sweepOrphans().catch(() => 0) : Promise.resolve()) as Promise<unknown> };
  const orphanSweeper = setInterval(() => {
    if (sweeps) orphanSweeps.running = orphanSweeps.running.then(() => sweepOrphans().catch(() => 0));
  }, ORPHAN_SWEEP_MS);
  orphanSweeper.unref();
  const signKey = `${config.jwtSecret}:storage`;
  const sign = (id: string, expires: number) => createHmac('sha256', signKey).update(`${id}:${expires}`).digest('base64url');

  const store = {
    tmpDir,
    blobs,
    maxBytes: config.storageMaxBytes,
    sweepTmp,
    sweepOrphans,
    /** Stops the sweeps, once the one running (if any) is done with the database. */
    close: async () => {
      clearInterval(sweeper);
      clearInterval(orphanSweeper);
      await orphanSweeps.running;
      blobs.close?.();
    },

    /**
     * Bytes made or read in memory, written to a staging file for `commit`, with their id, size and
     * etag (the MD5 hasura-storage gives). The caller removes the staging file once committed.
     */
    stage: (bytes: Buffer, name: string) => {
      const tmp = path.join(tmpDir, randomUUID());
      writeFileSync(tmp, bytes);
      return { tmp, id: randomUUID(), name, size: bytes.length, etag: `"${createHash('md5').update(bytes).digest('hex')}"` };
    },

    /** Refuses an upload of `bytes` before it is read when the disk would keep less than the reserve. */
    assertRoom: (bytes: number) => {
      const { bavail, bsize } = statfsSync(root);
      if (bavail * bsize - bytes < config.storageMinFreeBytes) {
        throw refuse('storage-full', t('refusals.diskFull'));
      }
    },

    find: async (id: string): Promise<FileRow> => {
      if (!FILE_ID.test(id)) throw refuse('not-found', t('refusals.fileNotFound'));
      const [row] = await db.select().from(files).where(eq(files.id, id)).limit(1);
      if (!row) throw refuse('not-found', t('refusals.fileNotFound'));
      return row;
    },

    /**
     * Checks checked temporary files in: their bytes are staged, their rows inserted in one
     * transaction (a taken id refused), then the bytes move in. A crash before the commit leaves
     * staged bytes no row names, one after it staged bytes that the sweep moves in (decision 036).
     */
    commit: async (bucketId: BucketId, userId: string, checked: { tmp: string; id: string; name: string; size: number; etag: string; mimeType: string }[]) => {
      const staged = checked.map((c) => stagedKey(c.id, c.etag));
      const rows = await (async () => {
        for (const [i, c] of checked.entries()) await blobs.put(staged[i]!, c.tmp);
        return db.transaction((tx) =>
          tx
            .insert(files)
            .values(checked.map((c) => ({ id: c.id, bucketId, name: c.name, size: c.size, mimeType: c.mimeType, etag: c.etag, uploadedByUserId: userId })))
            .returning(),
        );
      })().catch(async (error: unknown) => {
        await blobs.remove(staged).catch(() => {});
        if (pgCode(error) === '23505') throw refuse('conflict', t('refusals.fileIdTaken'));
        throw error;
      });
      for (const [i, c] of checked.entries()) await moveIn(staged[i]!, c.id);
      return rows;
    },

    /** New bytes (and name) for a file, checked like an upload, staged the same way; links to it stay valid. */
    replace: async (row: FileRow, checked: { tmp: string; name: string; size: number; etag: string; mimeType: string }, options: RowOptions = {}) => {
      const staged = stagedKey(row.id, checked.etag);
      await blobs.put(staged, checked.tmp);
      let updated: FileRow | undefined;
      try {
        [updated] = await db.transaction(async (tx) => {
          await options.inTransaction?.(tx);
          return tx
            .update(files)
            .set({ name: checked.name, size: checked.size, etag: checked.etag, mimeType: checked.mimeType, updatedAt: new Date() })
            .where(eq(files.id, row.id))
            .returning();
        });
      } catch (error) {
        await blobs.remove([staged]);
        throw error;
      }
      await moveIn(staged, row.id);
      return updated!;
    },

    /** A file posted by a page's form: same rules as the storage API. */
    save: async (input: { bucketId: BucketId; file: File; userId: string }): Promise<FileRow> => {
      const name = cleanName(input.file.name);
      if (input.file.size > config.storageMaxBytes[input.bucketId]) {
        throw refuse('too-large', t('refusals.fileTooLarge', { mb: Math.round(config.storageMaxBytes[input.bucketId] / 1024 / 1024) }));
      }
      if (input.file.size === 0) throw refuse('unsupported', UNSUPPORTED_FORMAT);
      store.assertRoom(input.file.size);
      const staged = store.stage(Buffer.from(await input.file.arrayBuffer()), name);
      try {
        const mimeType = await checkType(input.bucketId, name, staged.tmp);
        const [row] = await store.commit(input.bucketId, input.userId, [{ ...staged, mimeType }]);
        return row!;
      } finally {
        rmSync(staged.tmp, { force: true });
      }
    },

    /** The row first: a crash after it leaves bytes no row claims, swept later. */
    remove: async (id: string, options: RowOptions = {}) => {
      await db.transaction(async (tx) => {
        await options.inTransaction?.(tx);
        await tx.delete(files).where(eq(files.id, id));
      });
      await blobs.remove([id, ...thumbnailKeys(id)]);
    },

    /** The text of a small text file (a CSV curve), or null when it is not one or too large. */
    readText: async (id: string, maxBytes = 2 * 1024 * 1024): Promise<string | null> => {
      const row = await store.find(id).catch(() => null);
      if (!row?.mimeType.startsWith('text/') || row.size > maxBytes) return null;
      return (await blobs.read(row.id))?.toString('utf8') ?? null;
    },

    /** A link that works without a token until the end of the next hour. */
    signedPath: (id: string, options: { width?: number } = {}) => {
      const expires = (Math.floor(Date.now() / 1000 / LINK_WINDOW) + 2) * LINK_WINDOW;
      const width = options.width ? `&w=${options.width}` : '';
      return `/api/storage/files/${id}?expires=${expires}&signature=${sign(id, expires)}${width}`;
    },

    verifySignature: (id: string, expires: number, signature: string) => {
      const expected = Buffer.from(sign(id, expires));
      const given = Buffer.from(signature);
      return expires * 1000 > Date.now() && given.length === expected.length && timingSafeEqual(given, expected);
    },

    /** The key of a WebP no wider than `width` of an image, made once and kept; null for no thumbnail. */
    thumbnail: async (row: FileRow, width: number): Promise<string | null> => {
      if (!THUMBNAIL_SIZES.has(width) || !isImage(row.mimeType)) return null;
      const key = thumbnailKey(row.id, width);
      if ((await blobs.size(key)) !== null) return key;
      const sharp = await loadSharp();
      const tmp = path.join(tmpDir, randomUUID());
      try {
        await blobs.withLocalFile(row.id, (file) =>
          sharp(file, { limitInputPixels: 64_000_000 })
            .rotate()
            .resize({ width, height: width, fit: 'inside', withoutEnlargement: true })
            .webp({ quality: 70 })
            .toFile(tmp),
        );
      } catch {
        // Bytes that passed the upload's type check yet do not decode: served as they are.
        rmSync(tmp, { force: true });
        return null;
      }
      await blobs.put(key, tmp);
      return key;
    },
  };
  return store;
}
