// The backup archive (decision 035): one .tar.gz holding manifest.json first, the rows as NDJSON
// per table (data/<schema>.<table>.ndjson) and, with disk storage, the stored files' bytes
// (files/<id>). The manifest names every other entry with its size and SHA-256, so a truncated
// or altered archive is refused before anything is written.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create, extract, list } from 'tar';
import { root } from '#server/build.ts';

export const FORMAT = 'atelier-bva-backup';
export const FORMAT_VERSION = 1;

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

/** Writes the staged directory as the archive: the manifest first, then the entries it names. */
export async function packArchive(stage: string, manifest: Manifest, out: Writable): Promise<void> {
  await pipeline(create({ gzip: true, cwd: stage, portable: true }, ['manifest.json', ...Object.keys(manifest.entries)]), out);
}

/** The manifest of a written archive, for the operator's summary line. */
export async function readManifest(file: string): Promise<Manifest> {
  let text = '';
  await list({ file, filter: (name) => name === 'manifest.json', onReadEntry: (entry) => entry.on('data', (chunk: Buffer) => (text += chunk)) });
  return JSON.parse(text);
}

/** Where a table's rows are in the archive. */
export const tableEntry = (table: string) => `data/${table}.ndjson`;

const ENTRY = /^(manifest\.json|data\/[a-z0-9_]+\.[a-z0-9_]+\.ndjson|files\/[0-9a-f-]{36})$/;

function walk(dir: string, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const name = prefix + entry.name;
    if (entry.isDirectory()) found.push(...walk(path.join(dir, entry.name), `${name}/`));
    else found.push(name);
  }
  return found;
}

/**
 * Unpacks the archive into `stage` and checks it against its manifest: the format, every entry's
 * size and checksum, nothing more and nothing less. Throws BackupError with one clear line.
 */
export async function unpackArchive(file: string, stage: string): Promise<Manifest> {
  const damaged = (why: string) => new BackupError(`The archive ${file} is damaged or incomplete (${why}): use another backup`);
  try {
    statSync(file);
  } catch {
    throw new BackupError(`No archive at ${file}`);
  }
  let strange = '';
  try {
    await extract({
      file,
      cwd: stage,
      strict: true,
      filter: (entryPath, entry) => {
        const name = entryPath.replace(/^\.\//, '');
        const type = 'type' in entry ? entry.type : 'File';
        if (type === 'Directory') return false;
        // Regular files only: a link could point the restore at any file of the machine.
        const allowed = ENTRY.test(name) && (type === 'File' || type === 'OldFile');
        if (!allowed) strange ||= name;
        return allowed;
      },
    });
  } catch (error) {
    throw damaged((error as Error).message);
  }
  if (strange) throw new BackupError(`The archive ${file} holds ${strange}, which no backup of Atelier BVA holds: refused`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(stage, 'manifest.json'), 'utf8'));
  } catch {
    throw damaged('no readable manifest.json');
  }
  if (manifest.format !== FORMAT) throw new BackupError(`${file} is not a backup of Atelier BVA`);
  if (manifest.formatVersion > FORMAT_VERSION)
    throw new BackupError(`${file} has backup format ${manifest.formatVersion}, newer than this version reads (${FORMAT_VERSION}): update Atelier BVA first`);
  const present = new Set(walk(stage).filter((name) => name !== 'manifest.json'));
  for (const [name, expected] of Object.entries(manifest.entries)) {
    if (!ENTRY.test(name)) throw damaged(`the manifest names ${name}`);
    if (!present.delete(name)) throw damaged(`${name} is missing`);
    const actual = await sha256File(path.join(stage, name));
    if (actual.bytes !== expected.bytes || actual.sha256 !== expected.sha256) throw damaged(`the checksum of ${name} differs`);
  }
  const extra = [...present][0];
  if (extra) throw damaged(`${extra} is not in the manifest`);
  // A table reads only its own checked entry: never another entry, nor a path out of the stage.
  for (const table of manifest.tables) {
    if (table.entry !== tableEntry(table.name) || !Object.hasOwn(manifest.entries, table.entry))
      throw damaged(`the manifest reads table ${table.name} from ${table.entry}`);
  }
  return manifest;
}
