// The import graph has no cycle (issue 16): services, GraphQL, HTTP and pages import downwards.
import madge from 'madge';
import { expect, it } from 'vitest';

it('has no import cycle in server/ and src/', async () => {
  const graph = await madge(['server', 'src'], { fileExtensions: ['ts', 'tsx'], tsConfig: 'tsconfig.json' });
  expect(graph.circular()).toEqual([]);
  // The graph was read: a broken configuration would find nothing and pass.
  expect(Object.keys(graph.obj()).length).toBeGreaterThan(100);
  // Imports through the package's aliases (#lib/*, #server/*) are edges too.
  expect(graph.obj()['server/graphql/inputs.ts']).toContain('src/lib/validation.ts');
});
