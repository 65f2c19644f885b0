// A read whose SQL drizzle builds once, at its first call, and runs again with each call's values
// (`sql.placeholder`): building a select's SQL from its builder costs more than PGlite's whole
// answer to a small query, and was a fifth of the report's main thread (decisions 074, 081).
// Unnamed (''), so PostgreSQL sees no named statement: a pooler in transaction mode (PgBouncer
// before 1.21) or a compatible engine that lacks them works as before; on PGlite the database
// thread keeps it prepared by its text (decision 079).

/** The query `build` returns, prepared at the first call of the function returned, and kept. */
export function prepared<P>(build: () => { prepare(name: string): P }): () => P {
  let query: P | undefined;
  return () => (query ??= build().prepare(''));
}
