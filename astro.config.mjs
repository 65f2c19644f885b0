// @ts-check
import { fileURLToPath } from 'node:url';
import node from '@astrojs/node';
import react from '@astrojs/react';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'astro/config';
import { parseSync, Visitor } from 'vite';
import { fr } from './src/lib/i18n/fr.ts';

// The back end joins `astro dev` only; in production server/main.ts mounts Astro itself.
const dev = process.argv.includes('dev');
const source = (/** @type {string} */ path) => fileURLToPath(new URL(path, import.meta.url));

/**
 * @astrojs/react, its components rendered on the server by src/lib/react-renderer.server.ts
 * (decision 083: no second render to check a component, no stream per component); hydration
 * stays @astrojs/react's.
 * @type {import('astro').AstroIntegration}
 */
const reactIntegration = react();
const reactSetup = reactIntegration.hooks['astro:config:setup'];
reactIntegration.hooks['astro:config:setup'] = (/** @type {Parameters<NonNullable<typeof reactSetup>>[0]} */ options) =>
  reactSetup?.({
    ...options,
    addRenderer: (renderer) => options.addRenderer({ ...renderer, serverEntrypoint: source('./src/lib/react-renderer.server.ts') }),
  });
const integrations = [reactIntegration];
if (dev) integrations.push((await import('./server/dev.ts')).backendIntegration());

/**
 * In the browser, `graphql` is gql.tada's own small parser and printer (@0no-co/graphql.web, made
 * as a drop-in for them): the islands' client (graphql-request) needs only parse, print and Kind,
 * not graphql-js, which the server keeps (issue 17: 11 KiB less on every island's page).
 */
/** @type {import('vite').Plugin} */
const browserGraphql = {
  name: 'browser-graphql-web',
  enforce: 'pre',
  resolveId(id, importer, options) {
    if (id !== 'graphql' || this.environment?.name !== 'client') return null;
    return this.resolve('@0no-co/graphql.web', importer, { ...options, skipSelf: true });
  },
};

const i18nModule = source('./src/lib/i18n.ts');
const catalogueModule = source('./src/lib/i18n/fr.ts');
const browserI18n = source('./src/lib/i18n/browser.ts');
// The browser's t fills variables only: no plural (key_one, key_other) or context forms to pick.
/** @type {(node: Record<string, unknown>, prefix?: string) => string[]} */
const leaves = (node, prefix = '') =>
  Object.entries(node).flatMap(([key, value]) =>
    typeof value === 'string' ? [prefix + key] : leaves(/** @type {Record<string, unknown>} */ (value), `${prefix}${key}.`),
  );
const plural = leaves(fr).find((key) => /_(zero|one|two|few|many|other)$/.test(key));
if (plural) throw new Error(`src/lib/i18n/fr.ts: ${plural} is a plural form, which browser.ts does not choose (decision 025)`);

/**
 * In the browser, `t('users.title', vars)` carries its message: the build writes the catalogue's
 * text in place of the key, and `t` only fills the variables (src/lib/i18n/browser.ts). An island
 * loads the messages it shows, not i18next and the whole catalogue (decision 025). A key the
 * build cannot read, `t` used otherwise than called, or the catalogue imported, fails the build.
 */
/** @type {import('vite').Plugin} */
const browserMessages = {
  name: 'browser-messages',
  enforce: 'pre',
  apply: 'build',
  async resolveId(id, importer, options) {
    if (this.environment?.name !== 'client' || !/(i18n|fr)\.ts$/.test(id)) return null;
    const resolved = await this.resolve(id, importer, { ...options, skipSelf: true });
    if (resolved?.id === catalogueModule) this.error(`${importer} imports the catalogue: in the browser, messages come through t()`);
    return resolved?.id === i18nModule ? browserI18n : resolved;
  },
  async transform(code, id) {
    if (this.environment?.name !== 'client' || id.includes('/node_modules/') || !code.includes('i18n')) return null;
    const { program, module } = parseSync(id, code, { lang: /\.tsx($|\?)/.test(id) ? 'tsx' : 'ts' });
    const locals = new Set();
    /** @type {import('vite').ParseResult['module']['staticImports']} */
    const imports = [];
    const isI18n = async (/** @type {string} */ request) => (await this.resolve(request, id))?.id === i18nModule;
    for (const entry of module.staticImports) {
      // Resolved without this plugin (skipSelf): the module the source names.
      if (!(await isI18n(entry.moduleRequest.value))) continue;
      imports.push(entry);
      for (const named of entry.entries) {
        if (named.importName.kind !== 'Name') this.error(`${id}: in the browser, t is imported by its name from #lib/i18n.ts`);
        if (named.importName.name === 't') locals.add(named.localName.value);
      }
    }
    // What the rewrite cannot follow: t passed on, or loaded at run time.
    for (const entry of module.staticExports.flatMap((e) => e.entries)) {
      if (entry.moduleRequest && (await isI18n(entry.moduleRequest.value)))
        this.error(`${id}: re-exports #lib/i18n.ts, which the browser build rewrites where t is called`);
    }
    for (const dynamic of module.dynamicImports) {
      const request = code.slice(dynamic.moduleRequest.start + 1, dynamic.moduleRequest.end - 1);
      if (await isI18n(request)) this.error(`${id}: imports #lib/i18n.ts at run time, which the browser build cannot rewrite`);
    }
    if (locals.size === 0) return null;
    /** @type {[number, number, string][]} */
    const edits = [];
    /** @type {{ start: number; end: number }[]} */
    const unread = [];
    const callees = new Set();
    /** @type {{ start: number; end: number }[]} */
    const references = [];
    new Visitor({
      CallExpression(call) {
        if (call.callee.type !== 'Identifier' || !locals.has(call.callee.name)) return;
        callees.add(call.callee.start);
        const key = call.arguments[0];
        const message =
          key?.type === 'Literal' && typeof key.value === 'string'
            ? key.value.split('.').reduce((/** @type {any} */ node, name) => node?.[name], fr)
            : undefined;
        if (typeof message === 'string') edits.push([key.start, key.end, JSON.stringify(message)]);
        else unread.push(key ?? call);
      },
      Identifier(node) {
        if (locals.has(node.name) && !imports.some((entry) => node.start >= entry.start && node.end <= entry.end)) references.push(node);
      },
    }).visit(program);
    const stray = [...unread, ...references.filter((node) => !callees.has(node.start))][0];
    if (stray) this.error(`${id}: in the browser, t() is called with a key of the catalogue written out, not as \`${code.slice(stray.start, stray.end)}\``);
    let out = code;
    for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
    return { code: out, map: null };
  },
};

export default defineConfig({
  output: 'server',
  // A body without a declared length is cut here (the largest upload, 200 MB, and its form);
  // the middleware refuses a declared one before reading it.
  adapter: node({ mode: 'middleware', bodySizeLimit: 202 * 1024 * 1024 }),
  integrations,
  // No page renders Markdown or a code block: no highlighter (Shiki's inline styles would also
  // break the CSP below, which Astro warns about at every build).
  markdown: { syntaxHighlight: false },
  server: { port: Number(process.env.PORT ?? 4321) },
  security: {
    // Our middleware checks the Origin of every state-changing request (forms and JSON) and
    // answers with a French page; Astro's own check covers forms only.
    checkOrigin: false,
    // Sent as a header on every page, with the hashes of Astro's own scripts and styles.
    csp: {
      directives: [
        "default-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'self'",
        "object-src 'none'",
      ],
    },
  },
  vite: {
    plugins: [tailwindcss(), browserGraphql, browserMessages],
    build: {
      rolldownOptions: {
        output: {
          // What every island page loads anyway (React, the GraphQL client) in one chunk: split
          // by whichever islands happen to share them, its pieces cost each page more requests
          // and more bytes (issue 18 added two islands and moved the boundaries).
          codeSplitting: {
            groups: [{ name: 'vendor', test: /node_modules[\\/](react|react-dom|scheduler|@astrojs[\\/]react|@0no-co|graphql-request|graphql)[\\/]/ }],
          },
        },
      },
    },
  },
});
