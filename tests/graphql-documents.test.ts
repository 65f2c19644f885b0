// Every GraphQL document of src/ and of the test kit (tests/kit) is typed from the API's schema
// and valid against it (issue 16): a renamed or removed field fails `npm test` (here, and in the
// type check), not a page at run time. Documents are written one way, `graphql(`…`)` from
// #lib/graphql.ts, as one literal.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse, validate, type FragmentDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '#server/graphql/schema.ts';
import { graphqlEnv } from '#scripts/graphql-env.ts';

// The pages' and islands' documents, and the mutations the tests, the load and fault runs share.
const ROOTS = [path.resolve('src'), path.resolve('tests/kit')];
// A string or template literal that reads as an operation or fragment: keyword, then a brace.
const LOOKS_LIKE_GRAPHQL = /[`'"]\s*(?:(?:query|mutation|subscription)\b[^`'"{]*\{|fragment \w+ on \w+\s*\{|\{\s*[a-z_]\w*\s*(?:\(|\{))/g;

function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesOf(full) : /\.(ts|tsx|astro)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;
const inComment = (text: string, index: number) => /^\s*(\/\/|\*|\/\*)/.test(text.slice(text.lastIndexOf('\n', index) + 1, index));

type Found = { where: string; body: string };
const documents: Found[] = [];
const strays: string[] = [];
for (const file of ROOTS.flatMap(filesOf)) {
  const text = readFileSync(file, 'utf8');
  const where = (index: number) => `${path.relative(path.resolve(), file)}:${lineOf(text, index)}`;
  const inside = new Set<number>();
  for (const m of text.matchAll(/\bgraphql\(\s*`([^`]*)`/g)) {
    if (inComment(text, m.index)) continue;
    documents.push({ where: where(m.index), body: m[1]! });
    inside.add(m.index + m[0].indexOf('`'));
  }
  for (const m of text.matchAll(LOOKS_LIKE_GRAPHQL)) if (!inside.has(m.index) && !inComment(text, m.index)) strays.push(where(m.index));
}

const fragments = new Map<string, FragmentDefinitionNode>();
for (const { body } of documents) {
  if (body.includes('${')) continue;
  for (const definition of parse(body).definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
}

/** The document with every fragment it spreads, as the server receives it. */
function withFragments(body: string) {
  const document = parse(body);
  const needed = new Map<string, FragmentDefinitionNode>();
  const visit = (text: string) => {
    for (const [, name] of text.matchAll(/\.\.\.\s*([A-Za-z_]\w*)/g)) {
      const fragment = fragments.get(name!);
      if (!fragment || needed.has(name!) || document.definitions.includes(fragment)) continue;
      needed.set(name!, fragment);
      visit(fragment.loc?.source.body.slice(fragment.loc.start, fragment.loc.end) ?? '');
    }
  };
  visit(body);
  return { ...document, definitions: [...document.definitions, ...needed.values()] };
}

describe('the GraphQL documents of src/ and the test kit', () => {
  it('are all written with graphql(`…`), each as one literal', () => {
    expect(documents.length).toBeGreaterThan(50);
    expect(strays).toEqual([]);
    expect(documents.filter((d) => d.body.includes('${')).map((d) => d.where)).toEqual([]);
  });

  it('name each fragment once', () => {
    const names = documents.flatMap((d) => [...d.body.matchAll(/\bfragment\s+(\w+)/g)].map((m) => m[1]));
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it.each(documents.filter((d) => !/^\s*fragment\b/.test(d.body)).map((d) => [d.where, d.body]))('%s is valid against the schema', (_where, body) => {
    expect(validate(schema, withFragments(body)).map((e) => e.message)).toEqual([]);
  });

  it('are typed from the current schema (npm run graphql:env writes it)', () => {
    for (const [file, text] of Object.entries(graphqlEnv())) expect(readFileSync(file, 'utf8'), `${file} is older than the schema`).toBe(text);
  });
});
