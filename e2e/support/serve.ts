// The e2e server: `npm start` on a fresh embedded database with the demo workshop.
import { rmSync } from 'node:fs';

rmSync(process.env.DATA_DIR ?? 'test-results/e2e-data', { recursive: true, force: true });
await import('#server/start.ts');
