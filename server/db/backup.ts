// A plain SQL dump of the embedded database, by pg_dump compiled to WASM.
import type { PGlite } from '@electric-sql/pglite';
import { pgDump } from '@electric-sql/pglite-tools/pg_dump';

export async function dumpPglite(pg: PGlite): Promise<string> {
  const file = await pgDump({ pg, args: ['--no-owner', '--no-privileges'] });
  return file.text();
}
