// npm run db:migrate | db:seed | db:backup [file|-]
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '#server/config.ts';
import { createLogger } from '#server/log.ts';
import { openDatabase, type Database } from './client.ts';
import { DatabaseLockedError } from './lock.ts';
import { seedDemoWorkshop } from './seed.ts';
import { dumpPglite } from './backup.ts';
import { createFileStore } from '#server/storage/store.ts';

const [command, target] = process.argv.slice(2);

async function backup(database: Database, dataDir: string, databaseUrl?: string): Promise<string> {
  const file = target === '-' ? '-' : path.resolve(target ?? path.join(dataDir, 'backups', `atelier-${new Date().toISOString().replace(/[:.]/g, '-')}.sql`));
  if (file !== '-') mkdirSync(path.dirname(file), { recursive: true });
  if (database.pglite) {
    const sql = await dumpPglite(database.pglite);
    if (file === '-') process.stdout.write(sql);
    else writeFileSync(file, sql);
    return file;
  }
  // A PostgreSQL server: its own pg_dump (same or newer major version than the server).
  await new Promise<void>((resolve, reject) => {
    const child = spawn('pg_dump', ['--no-owner', '--no-privileges', '--dbname', databaseUrl!], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', () => reject(new Error('pg_dump was not found: install the PostgreSQL client of your server version')));
    child.stdout.pipe(file === '-' ? process.stdout : createWriteStream(file));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`pg_dump exited with code ${code}`))));
  });
  return file;
}

async function run(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config);
  try {
    if (command === 'migrate') {
      await database.migrate();
      logger.info('migrations applied', { database: database.kind });
    } else if (command === 'seed') {
      await database.migrate();
      await seedDemoWorkshop(database.db, { files: createFileStore({ db: database.db, config }) });
      logger.info('demo workshop loaded', { database: database.kind });
    } else if (command === 'backup') {
      const file = await backup(database, config.dataDir, config.databaseUrl);
      if (file !== '-') process.stderr.write(`Backup written to ${file}\n`);
    } else {
      throw new ConfigError('usage: node server/db/cli.ts migrate|seed|backup [file|-]');
    }
  } finally {
    await database.close();
  }
}

try {
  await run();
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseLockedError || error instanceof Error) {
    process.stderr.write(`atelier-bva: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
