// The import graph (issue 16; issue 31, item 3; decision 072): no cycle, and every import points down
// the layers docs/architecture.md draws. Each file of server/ and src/ has one layer, by the rules
// of `layerOf` below; a layer imports only itself and the layers below it. Type-only imports count:
// they are the drawing too.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

/** From the ground floor up; tools sit beside the edges, over the services; the root wires them all. */
type Layer = 'core' | 'data' | 'services' | 'edges' | 'tools' | 'root';

/** What each layer may import (itself included). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  // The client-safe shared core: schemas, labels, permissions, routes, the catalogue, formats.
  core: ['core'],
  // The database (schema, client, migrations) and the cross-cutting modules beside it.
  data: ['core', 'data'],
  // The domain services: rules, permissions, transactions.
  services: ['core', 'data', 'services'],
  // What a request reaches: pages and their screen modules, GraphQL, the HTTP routes.
  edges: ['core', 'data', 'services', 'edges'],
  // Demo data, seed and the command line: they run the services, never an edge.
  tools: ['core', 'data', 'services', 'tools'],
  // The composition root builds the process from every layer.
  root: ['core', 'data', 'services', 'edges', 'tools', 'root'],
};

/** Modules at the top of server/ that are not the composition root. */
const TOP_OF_SERVER: Record<string, Layer> = {
  'server/errors.ts': 'data',
  'server/config.ts': 'data',
  'server/log.ts': 'data',
  'server/access.ts': 'services',
  'server/services.ts': 'services',
  'server/readiness.ts': 'services',
  'server/cli.ts': 'tools',
  'server/app.ts': 'root',
  'server/bootstrap.ts': 'root',
  'server/build.ts': 'root',
  'server/dev.ts': 'root',
  'server/main.ts': 'root',
  'server/start.ts': 'root',
};

/** Command-line scripts that live beside the service they drive. */
const TOOLS_IN_SERVICES = ['server/storage/migrate.ts'];

/** The layer of a file of server/ or src/, by path; undefined for a file no rule names. */
function layerOf(file: string): Layer | undefined {
  if (file.startsWith('src/lib/')) return /\.(server|screen)\.tsx?$/.test(file) ? 'edges' : 'core';
  if (/^src\/(pages|components|layouts|islands)\//.test(file) || /^src\/(middleware\.ts|env\.d\.ts)$/.test(file)) return 'edges';
  if (file in TOP_OF_SERVER) return TOP_OF_SERVER[file];
  if (file.startsWith('server/db/')) return 'data';
  if (file.startsWith('server/demo/') || TOOLS_IN_SERVICES.includes(file)) return 'tools';
  if (/^server\/(graphql|http)\//.test(file) || /^server\/[^/]+\/routes(\.ts$|\/)/.test(file)) return 'edges';
  if (/^server\/[^/]+\/./.test(file)) return 'services';
  return undefined;
}

const isIsland = (file: string) => file.startsWith('src/islands/');

/** Every import against the rules, as "from (layer) → to (layer)"; the pair is the message. */
function violationsOf(graph: Record<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, deps] of Object.entries(graph)) {
    const fromLayer = layerOf(from);
    for (const to of deps) {
      const toLayer = layerOf(to);
      if (!fromLayer || !toLayer) continue; // unclassified files fail their own test
      if (!MAY_IMPORT[fromLayer].includes(toLayer)) found.push(`${from} (${fromLayer}) → ${to} (${toLayer})`);
      // Islands are leaves (STYLE): mounted by .astro files, importing no page-side module, imported by no module.
      else if (isIsland(to) && !isIsland(from) && !from.endsWith('.astro')) found.push(`${from} (${fromLayer}) → ${to} (an island)`);
      // They run in the browser: what they import is the client-safe core, another island or a React component.
      else if (isIsland(from) && !isIsland(to) && toLayer !== 'core' && !/^src\/components\/.*\.tsx$/.test(to))
        found.push(`${from} (an island) → ${to} (${toLayer})`);
    }
  }
  return found.sort();
}

const root = path.resolve(import.meta.dirname, '..');
const aliases = Object.entries(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).imports as Record<string, string>).map(
  ([alias, target]) => [alias.replace('*', ''), target.replace('*', '').replace(/^\.\//, '')] as const,
);

/** The imports of an .astro file (frontmatter and scripts), as paths from the root; packages left out. */
function astroImports(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => (m[1] ?? m[2])!);
  const resolved = specifiers.flatMap((spec) => {
    if (spec.startsWith('.')) return [path.posix.join(path.posix.dirname(file), spec)];
    const alias = aliases.find(([prefix]) => spec.startsWith(prefix));
    return alias ? [alias[1] + spec.slice(alias[0].length)] : [];
  });
  // Code only: a stylesheet or an image has no layer.
  return resolved.filter((dep) => /\.(tsx?|astro)$/.test(dep));
}

const astroFiles = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.astro'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')));

let madgeGraph: Awaited<ReturnType<typeof madge>>;
/** madge's graph of the .ts/.tsx files, with the .astro files' imports added. */
let graph: Record<string, string[]>;

beforeAll(async () => {
  madgeGraph = await madge(['server', 'src'], { fileExtensions: ['ts', 'tsx'], tsConfig: 'tsconfig.json' });
  graph = { ...madgeGraph.obj() };
  for (const file of astroFiles('src')) graph[file] = astroImports(file);
}, 60_000);

it('has no import cycle in server/ and src/', () => {
  expect(madgeGraph.circular()).toEqual([]);
  // The graph was read: a broken configuration would find nothing and pass.
  expect(Object.keys(madgeGraph.obj()).length).toBeGreaterThan(100);
  // Imports through the package's aliases (#lib/*, #server/*) are edges too, type-only ones included.
  expect(graph['server/graphql/inputs.ts']).toContain('src/lib/validation.ts');
  expect(graph['server/services.ts']).toContain('server/db/client.ts');
});

describe('layers (decision 072)', () => {
  it('gives every file of server/ and src/ a layer', () => {
    const files = new Set([...Object.keys(graph), ...Object.values(graph).flat()]);
    expect([...files].filter((file) => !layerOf(file))).toEqual([]);
    expect(files.size).toBeGreaterThan(300);
  });

  it('reads the .astro files: pages mount islands and load their screen modules', () => {
    expect(graph['src/pages/repair-orders.astro']).toContain('src/pages/_repair-orders.screen.ts');
    expect(Object.entries(graph).some(([file, deps]) => file.endsWith('.astro') && deps.some(isIsland))).toBe(true);
  });

  it('imports only downwards: core < data < services < edges < root, tools beside the edges', () => {
    expect(violationsOf(graph)).toEqual([]);
  });

  it('names the offending pair of a forbidden import', () => {
    const offending = {
      'server/stock/service.ts': ['server/graphql/stock.ts', 'server/db/client.ts'],
      'src/lib/format.ts': ['src/islands/repair-orders/CheckpointsList.tsx'],
      'src/islands/users/UsersScreen.tsx': ['server/db/client.ts'],
      'src/lib/roles.ts': ['server/errors.ts'],
      'server/db/client.ts': ['server/stock/service.ts'],
      'server/demo/seed.ts': ['server/graphql/schema.ts'],
      'src/pages/_repair-orders.screen.ts': ['server/app.ts', 'src/islands/repair-orders/CheckpointsList.tsx'],
    };
    expect(violationsOf(offending)).toEqual([
      'server/db/client.ts (data) → server/stock/service.ts (services)',
      'server/demo/seed.ts (tools) → server/graphql/schema.ts (edges)',
      'server/stock/service.ts (services) → server/graphql/stock.ts (edges)',
      'src/islands/users/UsersScreen.tsx (an island) → server/db/client.ts (data)',
      'src/lib/format.ts (core) → src/islands/repair-orders/CheckpointsList.tsx (edges)',
      'src/lib/roles.ts (core) → server/errors.ts (data)',
      'src/pages/_repair-orders.screen.ts (edges) → server/app.ts (root)',
      'src/pages/_repair-orders.screen.ts (edges) → src/islands/repair-orders/CheckpointsList.tsx (an island)',
    ]);
  });
});
