// A read whose SQL drizzle builds once, at its first call, and runs again with each call's values
// (`sql.placeholder`): building a select's SQL from its builder costs more than PGlite's whole
// answer to a small query, and was a fifth of the report's main thread (decisions 074, 081).
// Named, so PostgreSQL parses and plans it once per connection instead of at every call (half of
// its CPU on an order's screens, decision 082); on PGlite the database thread keeps it prepared
// by its text (decision 079) and the name is not used.
import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from './client.ts';

/** The query `build` returns, prepared at the first call of the function returned, and kept. */
export function prepared<P>(build: () => { prepare(name: string): P; toSQL(): { sql: string } }): () => P {
  let query: P | undefined;
  return () => {
    if (query) return query;
    const built = build();
    // Named by its text: a name means one SQL everywhere, in every instance and after a restart,
    // so a statement a connection already holds under that name is always this one.
    return (query = built.prepare(`atelier_${createHash('sha256').update(built.toSQL().sql).digest('hex').slice(0, 24)}`));
  };
}

const dialect = new PgDialect();

/** A read written in SQL, for `prepared`: its `execute` answers the rows. */
export function rawRead<Row>(db: Db, query: SQL) {
  const built = dialect.sqlToQuery(query);
  return {
    toSQL: () => built,
    prepare: (name: string) => {
      const statement = db._.session.prepareQuery(built, undefined, name, false);
      return { execute: async (values: Record<string, unknown>) => ((await statement.execute(values)) as { rows: Row[] }).rows };
    },
  };
}
