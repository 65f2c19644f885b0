// PostgreSQL's error code of a failed query, wherever the driver put it (drizzle wraps the
// driver's error in `cause`; PGlite and pg name the field the same).
export function pgCode(error: unknown): string | undefined {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  return e?.cause?.code ?? e?.code;
}
