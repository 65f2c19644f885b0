// Every GraphQL document of src/ is valid against the API's schema (issue 16): a renamed or
// removed field fails `npm test`, not a page at run time. The documents are read from the
// sources: exported ones by import, inline ones (pages, components, islands) as written, their
// `${NAME}` parts filled from the constants of src/lib or of their own file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '#server/graphql/schema.ts';

const SRC = path.resolve('src');
// An operation: its keyword (or a bare selection), then a field; never a message's {{…}} nor code.
const OPERATION = /^\s*(?:(?:query|mutation|subscription)\b[^{]*\{|\{)\s*[A-Za-z_]/;
const NOT_GRAPHQL = /\{\{|=>|;\s*$|\)\s*;|\bconst\b|\breturn\b/;

function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesOf(full) : /\.(ts|tsx|astro)$/.test(name) ? [full] : [];
  });
}

/** The string constants of src/lib, by name: the selections documents are built from. */
async function libConstants(): Promise<Map<string, string>> {
  const constants = new Map<string, string>();
  for (const file of readdirSync(path.join(SRC, 'lib')).filter((f) => /\.tsx?$/.test(f))) {
    const module: Record<string, unknown> = await import(path.join(SRC, 'lib', file));
    for (const [name, value] of Object.entries(module)) if (typeof value === 'string') constants.set(name, value);
  }
  return constants;
}

/** `const NAME = '…'` or `` `…` `` in a file: its own selections. */
function fileConstants(text: string, known: Map<string, string>): Map<string, string> {
  const local = new Map(known);
  for (const m of text.matchAll(/const ([A-Z][A-Z0-9_]*) = (?:'([^'\n]*)'|`([^`]*)`)/g)) local.set(m[1]!, m[2] ?? m[3]!);
  return local;
}

/** The string and template literals of a file that are GraphQL operations, filled in; null when a part is not a constant. */
function documentsOf(text: string, constants: Map<string, string>): { document: string | null; line: number }[] {
  const found: { document: string | null; line: number }[] = [];
  for (const m of text.matchAll(/`([^`]*)`|'((?:query|mutation|subscription|\{)[^'\n]*)'/g)) {
    const body = m[1] ?? m[2]!;
    if (!OPERATION.test(body) || NOT_GRAPHQL.test(body) || !/\}\s*$/.test(body)) continue;
    const before = text.slice(0, m.index);
    // Not in a comment.
    if (/^\s*(\/\/|\*|\/\*)/.test(before.slice(before.lastIndexOf('\n') + 1))) continue;
    const line = before.split('\n').length;
    // Fill ${NAME} (twice: selections may use others); anything else cannot be checked here.
    let document: string | null = body;
    for (let pass = 0; pass < 3 && document && document.includes('${'); pass++) {
      document = document.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => constants.get(name) ?? whole);
    }
    if (document.includes('${')) document = null;
    found.push({ document, line });
  }
  return found;
}

describe('the GraphQL documents of src/', async () => {
  const constants = await libConstants();
  const checked: [string, string][] = [];
  const unchecked: string[] = [];
  for (const file of filesOf(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const { document, line } of documentsOf(text, fileConstants(text, constants))) {
      const where = `${path.relative(SRC, file)}:${line}`;
      if (document) checked.push([where, document]);
      else unchecked.push(where);
    }
  }

  it('reads nearly all of them', () => {
    expect(checked.length).toBeGreaterThan(90);
    // Documents built at run time from variables; the e2e suite runs them.
    expect(unchecked.length).toBeLessThanOrEqual(Math.ceil(checked.length / 10));
  });

  it.each(checked)('%s is valid against the schema', (_where, document) => {
    expect(validate(schema, parse(document)).map((e) => e.message)).toEqual([]);
  });
});
