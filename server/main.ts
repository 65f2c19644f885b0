// Process entry: config, database, services, HTTP server, Astro handler, graceful shutdown.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp, type AstroHandler } from './app.ts';
import { astroEntry } from './build.ts';
import { prepareDatabase } from './bootstrap.ts';
import { ConfigError, loadConfig, root } from './config.ts';
import { DatabaseLockedError } from './db/lock.ts';
import { createLogger } from './log.ts';
import { checkBucket } from './storage/bucket-check.ts';

/** How long a start waits for the bucket's answer. */
const START_BUCKET_TIMEOUT_MS = 10_000;

function fail(message: string): never {
  process.stderr.write(`atelier-bva: ${message}\n`);
  process.exit(1);
}

/** The built Astro app, if there is one. */
export async function loadAstro(): Promise<{ handler?: AstroHandler; clientDir?: string }> {
  if (!existsSync(astroEntry)) return {};
  process.env.ASTRO_NODE_AUTOSTART = 'disabled';
  const mod = (await import(pathToFileURL(astroEntry).href)) as { handler: AstroHandler };
  return { handler: mod.handler, clientDir: path.join(root, 'dist/client') };
}

export async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const logger = createLogger(config.logLevel);
  // Wrong bucket settings stop the start with the setting to fix, not 500s in the log (issue 30).
  if (config.storage.kind === 's3') {
    const problem = await checkBucket(config.storage, { timeoutMs: START_BUCKET_TIMEOUT_MS });
    if (problem) fail(`Invalid ${problem.setting}: ${problem.reason}`);
  }
  let database;
  try {
    database = await prepareDatabase(config, logger);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DatabaseLockedError) fail(error.message);
    fail(`cannot open the database: ${error instanceof Error ? error.message : String(error)}`);
  }
  const astro = await loadAstro();
  if (!astro.handler) logger.error('no Astro build in dist/: only the APIs are served (run npm run build)');
  const app = await createApp({ config, database, logger, astroHandler: astro.handler, clientDir: astro.clientDir });
  try {
    const { url } = await app.listen();
    logger.info('listening', { url, publicUrl: config.publicUrl, database: database.kind, dataDir: config.dataDir });
  } catch (error) {
    await database.close();
    fail(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await app.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
