// @ts-check
import node from '@astrojs/node';
import react from '@astrojs/react';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'astro/config';

// The back end joins `astro dev` only; in production server/main.ts mounts Astro itself.
const dev = process.argv.includes('dev');
const integrations = [react()];
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

export default defineConfig({
  output: 'server',
  // A body without a declared length is cut here (the largest upload, 200 MB, and its form);
  // the middleware refuses a declared one before reading it.
  adapter: node({ mode: 'middleware', bodySizeLimit: 202 * 1024 * 1024 }),
  integrations,
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
  vite: { plugins: [tailwindcss(), browserGraphql] },
});
