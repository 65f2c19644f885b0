// One word per domain (issue 31, item 4; decision 073): a retired name may appear only where a
// public contract keeps it (the GraphQL schema and the inputs and forms that speak it), and the
// test names the file and line of any other use. Comments are not read.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

type Rule = {
  /** The retired name, as a whole identifier or a member access. */
  name: RegExp;
  /** The word that replaced it (decision 073's table). */
  word: string;
  /** Files (path prefixes) where the contract keeps the retired name. */
  allowedIn?: readonly string[];
  /** Lines allowed anywhere: how a public input's field is read. */
  allowedLine?: RegExp;
};

/** Where the public GraphQL schema is spoken: the schema's edge, the islands' documents, its generated types, the catalogue's message naming its fields. */
const GRAPHQL_EDGE = ['server/graphql/', 'src/islands/', 'src/lib/graphql-env.d.ts', 'src/lib/i18n/fr.ts'];

const RULES: readonly Rule[] = [
  { name: /\brepairOrderId\b/, word: 'orderId', allowedIn: GRAPHQL_EDGE },
  {
    name: /\bgearboxModelId\b/,
    word: 'modelId',
    // The order's and the stock's inputs are the API's (`repair_orders_input`, `stock_items_insert_input`):
    // their zod schema, the forms posting them, and the services reading the field (decision 073).
    allowedIn: [
      ...GRAPHQL_EDGE,
      'src/lib/repair-orders/repair-orders.ts',
      'src/lib/stock/stock.ts',
      'src/components/RepairOrderForm.astro',
      'src/pages/add-stock.astro',
      'src/pages/_add-stock.screen.ts',
      'src/pages/repair-order/_index.screen.ts',
      'src/pages/repair-order/_order-form.ts',
    ],
    allowedLine: /\binput\.gearboxModelId\b|'object\.gearboxModelId'/,
  },
  { name: /\bflow\b|\w*Flow\b|\bdiagnosticFlow\w*/, word: 'diagnostic' },
  { name: /\bservices\.gearboxes\b|\bgearboxesPermissions\b|\bGearboxesService\b/, word: 'gearboxModels' },
  { name: /\bservices\.documents\b|\bdocumentsPermissions\b|\bcreateDocumentsService\b/, word: 'gearboxDocuments' },
  { name: /\bdossierOf\b|\bdossierRef\b|\bDossierDocument\b/, word: 'gearboxModel (dossier names only the screen)' },
  // The audit's data never says activity: only its screens do (their URL).
  { name: /\bactivit(y|ies)\w*|\bActivit(y|ies)\w*/, word: 'audit', allowedIn: ['src/', 'server/graphql/'] },
];

const SOURCES = /\.(ts|tsx|astro)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCES.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The code of a file without its comments, line by line (line numbers kept). */
function codeLines(text: string): string[] {
  let inBlock = false;
  return text.split('\n').map((line) => {
    let code = '';
    for (let i = 0; i < line.length; i++) {
      if (inBlock) {
        if (line.startsWith('*/', i)) (inBlock = false), i++;
        continue;
      }
      if (line.startsWith('/*', i) || line.startsWith('{/*', i)) {
        inBlock = true;
        i += line.startsWith('{/*', i) ? 2 : 1;
        continue;
      }
      // A line comment, unless the slashes belong to a URL or a path in a string.
      if (line.startsWith('//', i) && !/[:'"`\w]$/.test(line.slice(0, i))) break;
      code += line[i];
    }
    return code;
  });
}

/** Each use of a retired name outside the places its rule allows: `file:line name → word`. */
function retiredNames(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    codeLines(text).forEach((line, index) => {
      for (const rule of RULES) {
        const match = line.match(rule.name);
        if (!match) continue;
        if (rule.allowedIn?.some((prefix) => file.startsWith(prefix))) continue;
        if (rule.allowedLine?.test(line) && !line.replace(new RegExp(rule.allowedLine, 'g'), '').match(rule.name)) continue;
        found.push(`${file}:${index + 1} ${match[0]} → ${rule.word}`);
      }
    });
  }
  return found;
}

describe('one word per domain (decision 073)', () => {
  it('finds no retired name in server/ and src/ outside the contracts that keep it', () => {
    const files = Object.fromEntries([...filesUnder('server'), ...filesUnder('src')].map((file) => [file, readFileSync(file, 'utf8')]));
    expect(Object.keys(files).length).toBeGreaterThan(300);
    expect(retiredNames(files)).toEqual([]);
  });

  it('names each retired name it meets, and leaves comments and the contracts alone', () => {
    expect(
      retiredNames({
        'server/repair-orders/x.ts': [
          'const a = row.repairOrderId; // orderId',
          '// the flow of the diagnostic',
          '/* DiagnosticFlow */ const b = services.flow;',
          'const c = input.gearboxModelId;',
          'const d = { gearboxModelId: 1 };',
          "throw invalid({ 'object.gearboxModelId': m });",
          "const url = 'https://example.org/flow';",
        ].join('\n'),
        'server/audit/y.ts': 'export const activityOf = 1;',
        'server/graphql/z.ts': 'args.repairOrderId',
        'src/pages/a.astro': '<DiagnosticFlow />',
      }),
    ).toEqual([
      'server/repair-orders/x.ts:1 repairOrderId → orderId',
      'server/repair-orders/x.ts:3 flow → diagnostic',
      'server/repair-orders/x.ts:5 gearboxModelId → modelId',
      'server/repair-orders/x.ts:7 flow → diagnostic',
      'server/audit/y.ts:1 activityOf → audit',
      'src/pages/a.astro:1 DiagnosticFlow → diagnostic',
    ]);
  });
});
