// One word per domain (issue 31, item 4; decision 073): a retired name may appear only where a
// public contract keeps it (the GraphQL schema and the inputs and forms that speak it), and the
// test names the file and line of any other use. Comments are not read; strings are (a URL too),
// and a line comment is told from a string's slashes by what comes before them, not by a parser.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
  // "flow" in any identifier (createDiagnosticFlowService, FlowStep, flowHref…), not inside "overflow".
  { name: /(?<![a-z])flow(?![a-z])|Flow(?![a-z])/, word: 'diagnostic' },
  // The URL's step is a slug (`StepSlug`); `diagnosticStep` is how far the order went (its column).
  { name: /\bDiagnosticStep\b|\bdiagnosticSteps\b/, word: 'StepSlug / stepSlugs (the translations: diagnostic)' },
  {
    name: /\bservices\.gearboxes\b|\[\x27services\x27\]\[\x27gearboxes\x27\]|\b(create)?GearboxesService\b|\bgearboxesPermissions\b|\bmanageGearboxes\b|\bGearboxFilter\b/,
    word: 'gearboxModels',
  },
  {
    name: /\bservices\.documents\b|\[\x27services\x27\]\[\x27documents\x27\]|\bcreateDocumentsService\b|(?<!Gearbox)\bDocumentsService\b|\bdocumentsPermissions\b/,
    word: 'gearboxDocuments',
  },
  {
    name: /\bservices\.measures\b|\[\x27services\x27\]\[\x27measures\x27\]|\bcreateMeasuresService\b|\bMeasuresService\b|\bmeasuresPermissions\b/,
    word: 'gearboxMeasures',
  },
  {
    name: /\bservices\.procedures\b|\[\x27services\x27\]\[\x27procedures\x27\]|\bcreateProceduresService\b|\bProceduresService\b|\bproceduresPermissions\b/,
    word: 'repairProcedures',
  },
  { name: /\bdossierOf\b|\bdossierRef\b|\bDossierDocument\b/, word: 'gearboxModel (dossier names only the screen)' },
  // The audit's data never says activity: only the screens that show it (their URL, their query).
  {
    name: /\bactivit(y|ies)\w*|\bActivit(y|ies)\w*/,
    word: 'audit',
    allowedIn: ['src/pages/', 'src/components/', 'src/lib/audit/activity.screen.ts', 'src/lib/routes.ts', 'src/lib/i18n/fr.ts'],
    // Their URL, wherever a link to them is built.
    allowedLine: /\/activity\b/,
  },
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
          'const e = createDiagnosticFlowService(deps); const f = flowHref(g);',
          'const h = overflow;',
          'type S = DiagnosticStep;',
          "type G = App.Locals['services']['gearboxes'];",
          'const i = services.documents;',
          'const j = services.measures; const k = proceduresPermissions;',
          "can(role, 'manageGearboxes') && dossierOf(tx, id);",
        ].join('\n'),
        'server/audit/y.ts': 'export const activityOf = 1;',
        'server/graphql/z.ts': 'args.repairOrderId',
        'src/pages/a.astro': '<DiagnosticFlow />',
        'src/lib/repair-orders/b.ts': "const href = self + '/activity';",
      }),
    ).toEqual([
      'server/repair-orders/x.ts:1 repairOrderId → orderId',
      'server/repair-orders/x.ts:3 flow → diagnostic',
      'server/repair-orders/x.ts:5 gearboxModelId → modelId',
      'server/repair-orders/x.ts:7 Flow → diagnostic',
      'server/repair-orders/x.ts:9 DiagnosticStep → StepSlug / stepSlugs (the translations: diagnostic)',
      "server/repair-orders/x.ts:10 ['services']['gearboxes'] → gearboxModels",
      'server/repair-orders/x.ts:11 services.documents → gearboxDocuments',
      'server/repair-orders/x.ts:12 services.measures → gearboxMeasures',
      'server/repair-orders/x.ts:12 proceduresPermissions → repairProcedures',
      'server/repair-orders/x.ts:13 manageGearboxes → gearboxModels',
      'server/repair-orders/x.ts:13 dossierOf → gearboxModel (dossier names only the screen)',
      'server/audit/y.ts:1 activityOf → audit',
      'src/pages/a.astro:1 Flow → diagnostic',
    ]);
  });

  it('allows retired names only in files that exist', () => {
    // A contract's file moved or gone leaves the table: the exceptions say what the code is.
    const missing = RULES.flatMap((rule) => rule.allowedIn ?? []).filter((prefix) => !existsSync(prefix));
    expect(missing).toEqual([]);
  });
});
