// A new embedded database starts from a copy of an empty cluster rather than from initdb run in
// the server: initdb's second WASM instance and its dump stayed resident for the server's whole
// life (about 200 MiB) and took 2 to 4 s. The cluster is made once per PGlite version, by a child
// process whose memory goes with it, kept in node_modules/.cache, and copied as files (given to
// PGlite as an archive, the archive stayed in memory too) (decision 024).
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';

const here = fileURLToPath(import.meta.url);
const projectCache = path.resolve(path.dirname(here), '../../node_modules/.cache/atelier-bva');

/** Is `dir` an existing cluster (PGlite opens it as it is)? */
export const hasCluster = (dir: string) => existsSync(path.join(dir, 'PG_VERSION'));

/** PGlite's version, from the package the server loads (read when a database is made, not at import). */
function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  let dir = path.dirname(entry);
  while (!existsSync(path.join(dir, 'package.json'))) {
    if (dir === path.dirname(dir)) throw new Error(`no package.json above ${entry}`);
    dir = path.dirname(dir);
  }
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Fills `dir` with an empty cluster, made first if this PGlite version has none yet. Answers why
 * it could not (a cache it may not write, the child failed): PGlite then runs initdb itself.
 */
export async function copyClusterTemplate(dir: string, cacheDir = projectCache): Promise<string | null> {
  try {
    const template = path.join(cacheDir, `pglite-${pgliteVersion()}-cluster`);
    if (!hasCluster(template)) await promisify(execFile)(process.execPath, [here, template], { timeout: 120_000 });
    // PG_VERSION last: a copy cut short (a crash, a full disk) is not taken for a cluster next time.
    const marker = path.join(template, 'PG_VERSION');
    cpSync(template, dir, { recursive: true, filter: (source) => source !== marker });
    copyFileSync(marker, path.join(dir, 'PG_VERSION'));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

// Child process: initdb (PGlite's defaults, as the server opens it) in a directory of its own,
// renamed into place once closed, so that two servers starting at once never copy half of one.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = process.argv[2]!;
  mkdirSync(path.dirname(target), { recursive: true });
  const partial = mkdtempSync(`${target}.`);
  try {
    await (await PGlite.create(partial)).close();
    renameSync(partial, target);
  } catch (error) {
    // Another server made it first: theirs is whole.
    if (!hasCluster(target)) throw error;
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}
