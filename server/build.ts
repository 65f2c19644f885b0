// Builds the Astro app when the build is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { root } from './config.ts';

function newest(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(target)) latest = Math.max(latest, newest(path.join(target, entry)));
  return latest;
}

export const astroEntry = path.join(root, 'dist/server/entry.mjs');

/** A line of the build's log that warns: Astro's `[WARN]`, Rolldown's `[warn]` (` WARN ` on a terminal), Rollup's `(!)`. */
const WARNING = /\bwarn(ing)?\b|^\s*\(!\)/i;

/**
 * Returns once dist/ is current; throws when the build fails. `refuseWarnings` (the tests' setup):
 * a build whose log warns fails too, naming the lines, so a newcomer's build stays clean (issue 30).
 */
export function ensureBuilt(options: { refuseWarnings?: boolean } = {}): void {
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
    // Read to be checked, then shown as it came; otherwise shown as it comes.
    stdio: ['ignore', options.refuseWarnings ? 'pipe' : 'inherit', options.refuseWarnings ? 'pipe' : 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (options.refuseWarnings) {
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
  }
  if (result.status !== 0) throw new Error('the build failed');
  const warnings = options.refuseWarnings ? `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => WARNING.test(line)) : [];
  if (!warnings.length) return;
  // Not taken as current: the next run builds, and checks, again.
  rmSync(astroEntry, { force: true });
  throw new Error(`the build warned (fix the cause in astro.config.mjs):\n${[...new Set(warnings.map((l) => l.trim()))].join('\n')}`);
}
