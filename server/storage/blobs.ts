// Where the bytes of stored files live, behind one interface (issue 19, item 1): the local disk
// today (DATA_DIR/files), an S3-compatible bucket next. Keys are a file's id, and
// `thumbnails/<id>-<width>.webp` for the WebP copies of images. The metadata rows stay in the
// database (store.ts); this module only keeps bytes.
import { randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { link, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

export type Blobs = {
  /**
   * Creates `key` with these few bytes, whole or not at all, unless it has bytes already (the
   * home's marker, decision 057): true when created, false when another writer got there first.
   */
  create(key: string, bytes: Buffer): Promise<boolean>;
  /** Moves a checked temporary file in as the bytes of `key`, replacing any. */
  put(key: string, tmpFile: string): Promise<void>;
  /** The size of `key`'s bytes, or null when there are none. */
  size(key: string): Promise<number | null>;
  /** `key`'s bytes, or those from `start` to `end` included, as a stream. */
  stream(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** `key`'s bytes whole, or null when there are none (small files: a CSV curve). */
  read(key: string): Promise<Buffer | null>;
  /** Runs `use` with a local file holding `key`'s bytes, for tools that read files (image resizing). */
  withLocalFile<T>(key: string, use: (file: string) => Promise<T>): Promise<T>;
  /** Renames `from` to `to`, replacing any: in place on disk, a copy inside the bucket on S3. */
  move(from: string, to: string): Promise<void>;
  /** Deletes the bytes of these keys; keys without bytes are no error. */
  remove(keys: string[]): Promise<void>;
  /** Every key with bytes, and when they were last written (to find bytes no row claims). */
  list(): AsyncIterable<{ key: string; modifiedAt: Date }>;
};

/** `value` when the error says the file is not there; any other failure is thrown on. */
function ifMissing<T>(error: unknown, value: T): T {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return value;
  throw error;
}

/** A file's key: its id, a thumbnail of it, or its staged bytes (the id, then the staged etag). */
export const KEY_OF_FILE = /^(?:thumbnails\/)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:-\d+\.webp|\.staged\.([0-9a-f]+))?$/;

export const thumbnailKey = (id: string, width: number) => `thumbnails/${id}-${width}.webp`;
/**
 * New bytes, of an upload or a replacement, wait under this key until their row names them
 * (decision 036): no transaction waits on the store, and a taken id's bytes are never touched.
 */
export const stagedKey = (id: string, etag: string) => `${id}.staged.${etag.replace(/"/g, '')}`;

/** The bytes as files under `root`: a rename moves an upload in, atomically on one disk. */
export function createDiskBlobs(root: string): Blobs {
  mkdirSync(path.join(root, 'thumbnails'), { recursive: true });
  const fileOf = (key: string) => path.join(root, key);
  return {
    put: async (key, tmpFile) => renameSync(tmpFile, fileOf(key)),
    create: async (key, bytes) => {
      // Written aside, then linked in: the link is refused when the name exists (never replaced,
      // unlike a rename), and a reader sees the whole bytes or none.
      const partial = path.join(root, 'tmp', `${randomUUID()}.partial`);
      mkdirSync(path.dirname(partial), { recursive: true });
      await writeFile(partial, bytes, { mode: 0o600 });
      try {
        await link(partial, fileOf(key));
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return false;
        // A volume without hard links (SMB, some FUSE or bind mounts): an exclusive create, whose
        // bytes a reader may see half written for a moment (the claim reads them back).
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EOPNOTSUPP') throw error;
        return writeFile(fileOf(key), bytes, { flag: 'wx', mode: 0o600 }).then(
          () => true,
          (failed: NodeJS.ErrnoException) => {
            if (failed.code === 'EEXIST') return false;
            throw failed;
          },
        );
      } finally {
        await rm(partial, { force: true });
      }
    },
    move: async (from, to) => renameSync(fileOf(from), fileOf(to)),
    size: async (key) => {
      try {
        return statSync(fileOf(key)).size;
      } catch (error) {
        return ifMissing(error, null);
      }
    },
    stream: async (key, range) => createReadStream(fileOf(key), range),
    read: (key) => readFile(fileOf(key)).catch((error: unknown) => ifMissing(error, null)),
    withLocalFile: (key, use) => use(fileOf(key)),
    remove: async (keys) => {
      for (const key of keys) rmSync(fileOf(key), { force: true });
    },
    list: async function* () {
      for (const dir of ['', 'thumbnails/']) {
        for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
          if (!entry.isFile()) continue;
          const modified = await stat(path.join(root, dir, entry.name)).catch(() => null);
          if (modified) yield { key: dir + entry.name, modifiedAt: modified.mtime };
        }
      }
    },
  };
}
