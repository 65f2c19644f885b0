// The screen module of a stored file as a page links it (`/files/{uuid}`, decision 095): the
// storage API's link, signed when tapped rather than when the page was drawn, so a page left open
// for hours still opens its files. Every signed-in role reads every file, as the storage API's
// token check lets it (the route table's guard); the storage API still serves the bytes.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { readQuery } from '#lib/page-query.ts';
import { DomainError } from '#server/errors.ts';

/** `?w=`: a thumbnail's width, passed on to the storage API (which knows the widths it makes). */
export const querySchema = z.object({ w: z.coerce.number().int().min(1).max(4096).nullable().catch(null) });

export const read = (astro: Pick<AstroGlobal, 'params' | 'url'>) => ({
  fileId: astro.params.fileId ?? '',
  width: readQuery(querySchema, astro.url.searchParams).w,
});
export type FileQuery = ReturnType<typeof read>;

/** The storage API's link to the file, signed now; null for an id no file has (malformed included). */
export async function load(locals: App.Locals, query: FileQuery): Promise<string | null> {
  const { files } = locals.services;
  try {
    const row = await files.find(query.fileId);
    return files.signedPath(row.id, query.width ? { width: query.width } : {});
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'not-found') return null;
    throw error;
  }
}
