// `npm start`: builds the Astro app when the build is missing or older than its sources, then serves.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newest(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(target)) latest = Math.max(latest, newest(path.join(target, entry)));
  return latest;
}

const entry = path.join(root, 'dist/server/entry.mjs');
const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
const sources = Math.max(
  ...['src', 'public', 'astro.config.mjs', 'package.json', 'package-lock.json'].map((p) => newest(path.join(root, p))),
);
if (built < sources) {
  process.stderr.write(built ? 'Sources changed: rebuilding…\n' : 'First start: building the application…\n');
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    process.stderr.write('atelier-bva: the build failed\n');
    process.exit(result.status ?? 1);
  }
}

const { main } = await import('./main.ts');
await main();
