// Opens the database, applies migrations and fills a new database: shared by the server,
// the dev integration and the db scripts.
import { createKeyring, prepareSecrets, VaultError } from './auth/vault.ts';
import { ConfigError, type Config } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { START_MAINTENANCE } from './db/pglite-maintenance.ts';
import { countUsers, createFirstAdmin, demoAccounts, DEMO_PASSWORD, seedDemoWorkshop } from './demo/seed.ts';
import type { Logger } from './log.ts';
import { claimFilesHome } from './storage/home.ts';
import { assertReachesFiles, readFilesLocation, recordFilesLocation } from './storage/location.ts';
import { createFileStore } from './storage/store.ts';

/** Secrets at rest (decision 050): a key that cannot open them stops the start with one line. */
async function sealSecrets(database: Database, config: Config, logger: Logger): Promise<void> {
  try {
    const { sealed, rehashed } = await prepareSecrets(database.db, createKeyring(config.encryptionKeys));
    if (sealed || rehashed) logger.info('secrets at rest sealed', { sealed, rehashed });
  } catch (error) {
    if (error instanceof VaultError) throw new ConfigError(`Invalid ENCRYPTION_KEY: ${error.message}`);
    throw error;
  }
}

export async function prepareDatabase(config: Config, logger: Logger): Promise<Database> {
  const database = await openDatabase(config);
  try {
    await database.migrate();
    // Settings that would leave the bucket's files behind stop here; else this start is the record.
    assertReachesFiles(await readFilesLocation(database.db), config.storage, 'start');
    const moved = await recordFilesLocation(database.db, config.storage);
    // The files' home must be this installation's, claimed now if nobody has (decision 057).
    await claimFilesHome(database.db, config, { moved });
    await sealSecrets(database, config, logger);
    if ((await countUsers(database.db)) === 0) {
      // Demo data only on a new embedded database, unless DEMO_DATA=1 says otherwise.
      const demo = config.demoData ?? (database.kind === 'pglite' && database.isNew);
      if (demo) {
        // The seed's own store does not sweep: only the server's store does, once the home is claimed.
        const files = createFileStore({ db: database.db, config, logger, sweeps: false });
        try {
          await seedDemoWorkshop(database.db, { files });
        } finally {
          await files.close();
        }
        logger.info('demo workshop loaded', {
          password: DEMO_PASSWORD,
          accounts: demoAccounts.map((a) => `${a.email} (${a.role})`),
        });
      }
      const admin = await createFirstAdmin(database.db, {
        email: config.adminEmail,
        password: config.adminPassword,
        demoLoaded: demo,
      });
      if (admin?.generatedPassword) {
        // Printed once, on stderr so that log collectors of stdout do not keep it.
        process.stderr.write(`First admin account: ${admin.email}  password: ${admin.generatedPassword}\n`);
      } else if (admin) {
        logger.info('first admin account created', { email: admin.email });
      }
    }
    // PGlite runs no autovacuum (decision 085): without statistics the planner ignores the search
    // indexes (trigram on the orders), unvacuumed no row deleted gives its space back. A server
    // keeps its own.
    if (database.kind === 'pglite') await database.pglite!.exec(START_MAINTENANCE);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}
