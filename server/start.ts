// `npm start`: builds the Astro app when the build is missing or older than its sources, then
// serves in production: no stack traces, no introspection for non-admins (issue 14).
process.env.NODE_ENV = 'production';
const { ensureBuilt } = await import('./build.ts');

try {
  ensureBuilt();
} catch (error) {
  process.stderr.write(`atelier-bva: ${(error as Error).message}\n`);
  process.exit(1);
}
const { main } = await import('./main.ts');
await main();
export {};
