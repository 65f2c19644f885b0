// `npm run graphql:env`: writes the API's schema as SDL (schema.graphql, for editors) and as the
// introspection types gql.tada reads (src/lib/graphql-env.d.ts), so that every document of src/
// is typed from the schema. A test fails when either file is older than the schema.
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { minifyIntrospection, outputIntrospectionFile } from '@gql.tada/internal';
import { introspectionFromSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '#server/graphql/schema.ts';

export const SCHEMA_FILE = 'schema.graphql';
export const ENV_FILE = 'src/lib/graphql-env.d.ts';

/** The two files, as they should read for the current schema. */
export function graphqlEnv(): Record<string, string> {
  const sorted = lexicographicSortSchema(schema);
  const introspection = minifyIntrospection(introspectionFromSchema(sorted, { descriptions: false }));
  return {
    [SCHEMA_FILE]: `${printSchema(sorted)}\n`,
    [ENV_FILE]: outputIntrospectionFile(introspection, { fileType: '.d.ts', shouldPreprocess: true }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [file, text] of Object.entries(graphqlEnv())) writeFileSync(file, text);
  console.log(`Wrote ${SCHEMA_FILE} and ${ENV_FILE}.`);
}
