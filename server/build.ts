// Builds the Astro app when the build is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newest(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(target)) latest = Math.max(latest, newest(path.join(target, entry)));
  return latest;
}

export const astroEntry = path.join(root, 'dist/server/entry.mjs');

/** Returns once dist/ is current; throws when the build fails. */
export function ensureBuilt(): void {
  const built = existsSync(astroEntry) ? statSync(astroEntry).mtimeMs : 0;
  // server/ too: pages bundle what they import from it (domain errors, types).
  const sources = Math.max(...['src', 'server', 'public', 'astro.config.mjs', 'package.json', 'package-lock.json'].map((p) => newest(path.join(root, p))));
  if (built >= sources) return;
  process.stderr.write(built ? 'Sources changed: rebuilding…\n' : 'First start: building the application…\n');
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: root,
    // Whoever asks (vitest runs with NODE_ENV=test), the build is a production one: with any
    // other NODE_ENV, Vite bundles React's development build, twice as heavy.
    env: { ...process.env, NODE_ENV: 'production', ASTRO_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error('the build failed');
}
