// `npm start`: builds the Astro app when the build is missing or older than its sources, then serves.
import { ensureBuilt } from './build.ts';

try {
  ensureBuilt();
} catch (error) {
  process.stderr.write(`atelier-bva: ${(error as Error).message}\n`);
  process.exit(1);
}
const { main } = await import('./main.ts');
await main();
