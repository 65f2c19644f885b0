// The backup archive (decisions 035 and 051): one .tar.gz holding manifest.json first, then
// manifest.hmac (the manifest's HMAC-SHA-256 under the backup key), the rows as NDJSON per table
// (data/<schema>.<table>.ndjson) and, with disk storage, the stored files' bytes (files/<id>).
// The manifest names every other entry with its size and SHA-256, and the MAC binds the manifest
// to the installation's backup key: a restore reads the whole archive once, checking it all,
// before it writes a byte, then once more to unpack it, never more bytes than the manifest says.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pipeline } from 'node:stream/promises';
import { create, list, Parser, type ReadEntry } from 'tar';
import { keyIdOfSealed, SEALED_COLUMNS } from '#server/auth/vault.ts';
import { root } from '#server/config.ts';

export const FORMAT = 'atelier-bva-backup';
/** 2: with manifest.hmac (decision 051). 1: no MAC, restored only with --unauthenticated. */
export const FORMAT_VERSION = 2;

export class BackupError extends Error {}

export type Entry = { bytes: number; sha256: string };

export type Manifest = {
  format: typeof FORMAT;
  formatVersion: number;
  app: { version: string };
  createdAt: string;
  database: {
    kind: 'pglite' | 'postgres';
    /** The last migration applied: restore applies the code's migrations up to this one. */
    migration: { index: number; tag: string; createdAt: number; hash: string };
  };
  /** In load order of the source; columns as dumped (generated ones are left out: the target computes them). */
  tables: { name: string; entry: string; rows: number; columns: string[] }[];
  /** Tables of the schema whose rows are not kept (throwaway: see LEFT_OUT). */
  leftOut: string[];
  sequences: { name: string; lastValue: string | null }[];
  storage:
    | { kind: 'disk'; files: number; bytes: number; missing: string[] }
    | { kind: 's3'; endpoint: string | null; bucket: string; region: string; files: number; bytes: number };
  /** Every entry of the archive but the manifest. */
  entries: Record<string, Entry>;
};

export const appVersion = (): string => JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;

export async function sha256File(file: string): Promise<Entry> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** manifest.hmac: which backup key made the MAC (its id, not the key), and the MAC of manifest.json's bytes. */
export type ManifestMac = { algorithm: 'HMAC-SHA-256'; keyId: string; mac: string };

/** 8 characters naming a backup key in messages: they cannot recover it. */
export const backupKeyId = (key: string) => createHmac('sha256', key).update('atelier-bva backup key id').digest('base64url').slice(0, 8);

const macOf = (key: string, manifest: Buffer) => createHmac('sha256', key).update('atelier-bva-backup manifest\n').update(manifest).digest('hex');

/** The text of manifest.hmac for these bytes of manifest.json. */
export function signManifest(key: string, manifest: Buffer): string {
  const signed: ManifestMac = { algorithm: 'HMAC-SHA-256', keyId: backupKeyId(key), mac: macOf(key, manifest) };
  return `${JSON.stringify(signed)}\n`;
}

/** Writes the staged directory as the archive: the manifest and its MAC first, then the entries it names. */
export async function packArchive(stage: string, manifest: Manifest, out: Writable): Promise<void> {
  await pipeline(create({ gzip: true, cwd: stage, portable: true }, ['manifest.json', 'manifest.hmac', ...Object.keys(manifest.entries)]), out);
}

/** The manifest of a written archive, for the operator's summary line. */
export async function readManifest(file: string): Promise<Manifest> {
  let text = '';
  await list({ file, filter: (name) => name === 'manifest.json', onReadEntry: (entry) => entry.on('data', (chunk: Buffer) => (text += chunk)) });
  return JSON.parse(text);
}

/** Where a table's rows are in the archive. */
export const tableEntry = (table: string) => `data/${table}.ndjson`;

const ENTRY = /^(data\/[a-z0-9_]+\.[a-z0-9_]+\.ndjson|files\/[0-9a-f-]{36})$/;
/** A manifest lists every entry with its size: 64 MiB is hundreds of thousands of files. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const MAX_MAC_BYTES = 4096;

/**
 * The entries holding sealed secrets (decision 050), and the column of each whose values name
 * their key: vault.ts's one list (what `missingKeys` reads in the database), read here from the
 * archive before a byte is written.
 */
export const SEALED_ENTRIES: ReadonlyMap<string, string> = new Map(Object.values(SEALED_COLUMNS).map((c) => [tableEntry(c.table), c.column]));

/** The checked manifest, and the ids of the encryption keys that sealed the archive's secrets. */
export type CheckedArchive = { manifest: Manifest; sealedKeyIds: string[] };

export type ArchiveKeys = {
  /** The installation's backup key; null: it has none (a restore never makes one). */
  key: string | null;
  /** The operator restores an archive of format 1, which has no MAC, knowingly. */
  unauthenticated?: boolean;
};

/**
 * Reads the archive through once. Without `stage`, checks it and writes nothing; with it, writes
 * each entry under `stage` as it reads it. Either way manifest.json must come first and, from
 * format 2, manifest.hmac second with the MAC of the manifest under `keys.key`: every later entry
 * is checked against the authenticated manifest as it streams in — one it does not list, or one
 * larger than it says, stops the reading at its header (and a body that runs longer, at the
 * declared size + 1) — so at most the manifest's declared bytes reach the disk.
 * Throws BackupError with one clear line.
 */
export async function readArchive(file: string, keys: ArchiveKeys, stage?: string): Promise<Manifest> {
  return (await checkArchive(file, keys, stage)).manifest;
}

/** readArchive, which also says which encryption keys sealed the secrets the archive holds. */
export async function checkArchive(file: string, keys: ArchiveKeys, stage?: string): Promise<CheckedArchive> {
  const damaged = (why: string) => new BackupError(`The archive ${file} is damaged or incomplete (${why}): use another backup`);
  try {
    statSync(file);
  } catch {
    throw new BackupError(`No archive at ${file}`);
  }
  let manifestBytes: Buffer | undefined;
  let manifest: Manifest | undefined;
  /** The manifest is checked (MAC, or format 1 with --unauthenticated): entries may follow. */
  let trusted = false;
  const seen = new Set<string>();
  const sealedKeyIds = new Set<string>();
  /** The descriptors of entries being unpacked: each closed once, by `take` or after the reading. */
  const open = new Set<number>();
  let failure: Error | undefined;
  const parser = new Parser({ strict: true });
  const input = createReadStream(file);
  const stop = (error: Error) => {
    failure ??= error;
    input.destroy();
    parser.abort(error);
  };

  /** Collects a small entry in memory, at most `max` bytes. */
  const collect = (entry: ReadEntry, max: number, done: (bytes: Buffer) => void) => {
    if (entry.size > max) return stop(damaged(`${entry.path} is too large`));
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', () => {
      try {
        done(Buffer.concat(chunks));
      } catch (error) {
        stop(error as Error);
      }
    });
  };

  const trust = (mac: Buffer | null) => {
    manifest = parseManifest(manifestBytes!);
    if (manifest.formatVersion === 1 && mac === null) {
      if (!keys.unauthenticated)
        throw new BackupError(
          `The archive ${file} has backup format 1, which nothing authenticates: restore it only if you know where it has been, with --unauthenticated`,
        );
    } else {
      if (mac === null) throw new BackupError(`The archive ${file} has no MAC (manifest.hmac): it was altered, refused`);
      checkMac(mac, manifestBytes!);
    }
    trusted = true;
  };

  const parseManifest = (bytes: Buffer): Manifest => {
    let parsed: Manifest;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw damaged('no readable manifest.json');
    }
    if (parsed?.format !== FORMAT) throw new BackupError(`${file} is not a backup of Atelier BVA`);
    if (!(parsed.formatVersion >= 1)) throw damaged('no format version');
    if (parsed.formatVersion > FORMAT_VERSION)
      throw new BackupError(`${file} has backup format ${parsed.formatVersion}, newer than this version reads (${FORMAT_VERSION}): update Atelier BVA first`);
    if (typeof parsed.entries !== 'object' || parsed.entries === null || !Array.isArray(parsed.tables)) throw damaged('no list of entries');
    for (const [name, entry] of Object.entries(parsed.entries)) {
      if (!ENTRY.test(name)) throw damaged(`the manifest names ${name}`);
      if (!Number.isSafeInteger(entry?.bytes) || entry.bytes < 0 || !/^[0-9a-f]{64}$/.test(entry.sha256)) throw damaged(`the manifest's entry ${name}`);
    }
    // A table reads only its own checked entry: never another entry, nor a path out of the stage.
    for (const table of parsed.tables) {
      if (table.entry !== tableEntry(table.name) || !Object.hasOwn(parsed.entries, table.entry))
        throw damaged(`the manifest reads table ${table.name} from ${table.entry}`);
    }
    return parsed;
  };

  const checkMac = (text: Buffer, bytes: Buffer) => {
    let signed: ManifestMac;
    try {
      signed = JSON.parse(text.toString('utf8'));
    } catch {
      throw damaged('no readable manifest.hmac');
    }
    const keyId = typeof signed?.keyId === 'string' ? signed.keyId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8) : '?';
    const fix = 'set BACKUP_KEY to the backup key of the installation it came from (or copy its DATA_DIR/secrets/backup), then restore';
    if (!keys.key) throw new BackupError(`The archive ${file} is authenticated with backup key ${keyId}, and this installation has none: ${fix}`);
    const ours = backupKeyId(keys.key);
    if (keyId !== ours) throw new BackupError(`The archive ${file} is authenticated with backup key ${keyId}, not this installation's (${ours}): ${fix}`);
    const expected = Buffer.from(macOf(keys.key, bytes), 'hex');
    const actual = Buffer.from(typeof signed.mac === 'string' ? signed.mac : '', 'hex');
    if (signed.algorithm !== 'HMAC-SHA-256' || actual.length !== expected.length || !timingSafeEqual(actual, expected))
      throw new BackupError(
        `The archive ${file} was altered since it was written, or written with another backup key (its manifest does not match its MAC): refused`,
      );
  };

  /** An entry the manifest lists: its bytes counted and hashed as they come, written when unpacking. */
  const take = (entry: ReadEntry, name: string) => {
    const expected = manifest!.entries[name]!;
    if (entry.size !== expected.bytes) return stop(damaged(`${name} holds ${entry.size} bytes where its manifest says ${expected.bytes}`));
    const hash = createHash('sha256');
    let bytes = 0;
    let fd: number | undefined;
    if (stage) {
      mkdirSync(path.dirname(path.join(stage, name)), { recursive: true });
      fd = openSync(path.join(stage, name), 'wx', 0o600);
      open.add(fd);
    }
    const close = () => {
      if (fd === undefined || !open.delete(fd)) return;
      closeSync(fd);
    };
    const sealed = sealedLines(name);
    entry.on('data', (chunk: Buffer) => {
      if (failure) return;
      bytes += chunk.length;
      // Never more than declared: the header's size already matched, this guards the body itself.
      if (bytes > expected.bytes) {
        close();
        return stop(damaged(`${name} holds more than the ${expected.bytes} bytes its manifest says`));
      }
      hash.update(chunk);
      sealed?.(chunk);
      if (fd !== undefined) writeSync(fd, chunk);
    });
    entry.on('end', () => {
      close();
      if (failure) return;
      sealed?.(null);
      if (bytes !== expected.bytes || hash.digest('hex') !== expected.sha256) stop(damaged(`the checksum of ${name} differs`));
    });
  };

  /** For an entry of sealed secrets, a reader of its rows noting the key id of each sealed value (null: the end). */
  const sealedLines = (name: string) => {
    const column = SEALED_ENTRIES.get(name);
    if (!column) return undefined;
    const decoder = new StringDecoder('utf8');
    let rest = '';
    const row = (line: string) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line)?.[column];
      } catch {
        return stop(damaged(`a row of ${name} is not JSON`));
      }
      // As missingKeys reads them: enc1:<key id>:<sealed bytes>.
      const keyId = typeof value === 'string' ? keyIdOfSealed(value) : null;
      if (keyId) sealedKeyIds.add(keyId);
    };
    return (chunk: Buffer | null) => {
      const lines = (rest + (chunk ? decoder.write(chunk) : decoder.end())).split('\n');
      rest = chunk ? lines.pop()! : '';
      for (const line of lines) row(line);
    };
  };

  parser.on('entry', (entry: ReadEntry) => {
    if (failure) return entry.resume();
    const name = entry.path.replace(/^\.\//, '');
    if (entry.type === 'Directory') return entry.resume();
    // Regular files only: a link could point the restore at any file of the machine.
    const regular = entry.type === 'File' || entry.type === 'OldFile';
    if (!manifestBytes) {
      if (name !== 'manifest.json' || !regular) return stop(damaged('manifest.json is not its first entry'));
      return collect(entry, MAX_MANIFEST_BYTES, (bytes) => {
        manifestBytes = bytes;
      });
    }
    if (!trusted) {
      if (name === 'manifest.hmac' && regular) return collect(entry, MAX_MAC_BYTES, (bytes) => trust(bytes));
      try {
        trust(null);
      } catch (error) {
        return stop(error as Error);
      }
    }
    if (!ENTRY.test(name) || !regular) return stop(new BackupError(`The archive ${file} holds ${name}, which no backup of Atelier BVA holds: refused`));
    if (!Object.hasOwn(manifest!.entries, name)) return stop(damaged(`${name} is not in the manifest`));
    if (seen.has(name)) return stop(damaged(`${name} is in it twice`));
    seen.add(name);
    take(entry, name);
  });

  try {
    await new Promise<void>((resolve) => {
      parser.on('error', (error: Error) => {
        failure ??= error;
        input.destroy();
        resolve();
      });
      parser.on('close', () => resolve());
      parser.on('end', () => resolve());
      input.on('error', (error) => {
        failure ??= error;
        resolve();
      });
      input.on('data', (chunk) => {
        if (!parser.write(chunk as Buffer)) input.pause();
      });
      parser.on('drain', () => input.resume());
      input.on('end', () => parser.end());
    });
  } finally {
    // An entry cut short (an aborted reading) ends nowhere: its descriptor is closed here.
    for (const fd of open) closeSync(fd);
    open.clear();
  }
  if (failure) throw failure instanceof BackupError ? failure : damaged(failure.message);
  if (!manifestBytes) throw damaged('no readable manifest.json');
  // An archive of nothing but its manifest and MAC still has to be checked.
  if (!trusted) trust(null);
  const missing = Object.keys(manifest!.entries).find((name) => !seen.has(name));
  if (missing) throw damaged(`${missing} is missing`);
  return { manifest: manifest!, sealedKeyIds: [...sealedKeyIds] };
}

/** The total of the entries the manifest declares: what unpacking writes, at most. */
export const declaredBytes = (manifest: Manifest) => Object.values(manifest.entries).reduce((sum, entry) => sum + entry.bytes, 0);
