// @ts-check
import node from '@astrojs/node';
import react from '@astrojs/react';
import { defineConfig } from 'astro/config';

// The back end joins `astro dev` only; in production server/main.ts mounts Astro itself.
const dev = process.argv.includes('dev');
const integrations = [react()];
if (dev) integrations.push((await import('./server/dev.ts')).backendIntegration());

export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware' }),
  integrations,
  server: { port: Number(process.env.PORT ?? 4321) },
});
