// A new embedded database starts from a copy of an empty cluster rather than from initdb run in
// the server: initdb's second WASM instance and its dump stayed resident for the server's whole
// life (about 200 MiB) and took 2 to 4 s. The cluster is made once per PGlite version, by a child
// process whose memory goes with it, kept in node_modules/.cache, and copied as files (given to
// PGlite as an archive, the archive stayed in memory too) (decision 024).
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';

const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '../..');
const pgliteVersion = (JSON.parse(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
const template = path.join(root, 'node_modules/.cache/atelier-bva', `pglite-${pgliteVersion}-cluster`);

/** Is `dir` an existing cluster (PGlite opens it as it is)? */
export const hasCluster = (dir: string) => existsSync(path.join(dir, 'PG_VERSION'));

/** Fills `dir` with an empty cluster, made first if this PGlite version has none yet. */
export async function copyClusterTemplate(dir: string): Promise<void> {
  if (!hasCluster(template)) await promisify(execFile)(process.execPath, [here, template], { timeout: 120_000 });
  cpSync(template, dir, { recursive: true });
}

// Child process: initdb beside the template, renamed into place once closed, so that two servers
// starting at once never copy half of one.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = process.argv[2]!;
  const partial = `${target}.${process.pid}`;
  mkdirSync(path.dirname(target), { recursive: true });
  await (await PGlite.create(partial)).close();
  try {
    renameSync(partial, target);
  } catch (error) {
    // Another server made it first.
    rmSync(partial, { recursive: true, force: true });
    if (!hasCluster(target)) throw error;
  }
}
