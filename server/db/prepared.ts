// A read whose SQL drizzle builds once, at its first call, and runs again with each call's values
// (`sql.placeholder`): building a select's SQL from its builder costs more than PGlite's whole
// answer to a small query, and was a fifth of the report's main thread (decisions 074, 081).
// Prepared, so PostgreSQL parses and plans it once per connection instead of at every call (half
// of its CPU on an order's screens, decision 082): a name is what makes drizzle ask postgres.js to
// prepare it, and postgres.js keeps it per connection by its text (decision 084); on PGlite the
// database thread keeps it prepared by its text (decision 079). The name itself is not used.
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { type Db, rowsOf } from './client.ts';

/** The query `build` returns, prepared at the first call of the function returned, and kept. */
export function prepared<P>(build: () => { prepare(name: string): P }): () => P {
  let query: P | undefined;
  return () => (query ??= build().prepare('atelier'));
}

const dialect = new PgDialect();

/** A read written in SQL, for `prepared`: its `execute` answers the rows. */
export function rawRead<Row>(db: Db, query: SQL) {
  const built = dialect.sqlToQuery(query);
  return {
    prepare: (name: string) => {
      const statement = db._.session.prepareQuery(built, undefined, name, false);
      return { execute: async (values: Record<string, unknown>) => rowsOf<Row>(await statement.execute(values)) };
    },
  };
}
