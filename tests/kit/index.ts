// The test kit (issue 31): typed documents and builders, the API client, the demo people signed
// in. Scripts import graphql.ts, documents.ts and builders.ts, which need no test app.
export * from './builders.ts';
export { M } from './documents.ts';
export * from './fixtures.ts';
export * from './graphql.ts';
