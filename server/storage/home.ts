// Whose files are these (decision 057)? The files' home (DATA_DIR/files, or the bucket) holds a
// marker object, `installation.json`, naming one installation by a random token that its database
// keeps too (storage.location.token). A start claims an unclaimed home and refuses one claimed by
// another installation, or, on disk, a DATA_DIR that is not the one its database's files are in;
// the orphan sweep runs only in a home that names its own database, so that a second installation
// on the same bucket never deletes the first one's files.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { ConfigError, type Config } from '#server/config.ts';
import { type Db, queryRows } from '#server/db/client.ts';
import { type Blobs, createDiskBlobs, KEY_OF_FILE } from './blobs.ts';
import { bucketPlace } from './bucket-check.ts';
import { createS3Blobs } from './s3-blobs.ts';

/** The marker's key: at the root, never the shape of a file's key (store.ts, KEY_OF_FILE). */
export const HOME_MARKER = 'installation.json';

/** Without `databaseUrl`, the embedded database, which lives in DATA_DIR with the files. */
export type HomeConfig = Pick<Config, 'dataDir' | 'storage'> & Partial<Pick<Config, 'databaseUrl'>>;
export type Marker = { installation: string | null; claimedAt?: string; by?: string };

/** How long a start that lost the race to claim waits for the winner's marker. */
const MARKER_WAIT_MS = 3000;

/** On disk with PostgreSQL, a missing marker is written again when this many of the newest files are here. */
const RECENT_FILES = 5;
/** How many of a home's files a claim looks up in the database, at most. */
const SAMPLED_FILES = 500;
/** Files no row names that a claimed home may hold (a crash's leftovers): so many, or this share. */
const STRAY_FILES = 10;
const STRAY_SHARE = 0.02;

/** The blobs of the files' home these settings name (the disk unless a bucket is named, decision 033). */
export function openBlobs(config: HomeConfig): Blobs & { close?(): void } {
  const root = path.join(config.dataDir, 'files');
  return config.storage.kind === 's3' ? createS3Blobs(config.storage, { tmpDir: path.join(root, 'tmp') }) : createDiskBlobs(root);
}

/** The home as the lines name it: `bucket b at E`, or the directory. */
export const homePlace = (config: HomeConfig) => (config.storage.kind === 's3' ? bucketPlace(config.storage) : path.join(config.dataDir, 'files'));

/** What to do when two installations share a home. */
const ownHome = (config: HomeConfig) => `give each installation a ${config.storage.kind === 'disk' ? 'DATA_DIR' : 'bucket'} of its own`;

/** The env variable an operator sets to choose the home. */
const settingOf = (config: HomeConfig) => (config.storage.kind === 'disk' ? 'DATA_DIR' : config.storage.fromUrl ? 'STORAGE_URL' : 'S3_BUCKET');

/** The marker in the home; null when there is none. Bytes that are not a marker name no installation. */
export async function readMarker(blobs: Blobs): Promise<Marker | null> {
  const bytes = await blobs.read(HOME_MARKER);
  if (!bytes) return null;
  try {
    const marker = JSON.parse(bytes.toString('utf8')) as Marker;
    return { ...marker, installation: typeof marker.installation === 'string' ? marker.installation : null };
  } catch {
    return { installation: null };
  }
}

/** Creates the marker unless the home has one: false when another writer's was there first. */
export async function createMarker(blobs: Blobs, token: string, by: string): Promise<boolean> {
  const marker: Marker = { installation: token, claimedAt: new Date().toISOString(), by: `${by} on ${hostname()}` };
  return blobs.create(HOME_MARKER, Buffer.from(`${JSON.stringify(marker, null, 2)}\n`));
}

/**
 * A home without marker that holds files, none of which this database names, is another
 * installation's whose marker went (deleted by hand, or never written by an older version):
 * claiming it would let this installation's sweep remove them all. Its own files (an upgrade, a
 * restore, a move), or none at all, may be claimed. Up to SAMPLED_FILES of them are looked up.
 */
async function assertNotStrangers(db: Db, blobs: Blobs, config: HomeConfig): Promise<void> {
  const ids: string[] = [];
  let count = 0;
  for await (const { key } of blobs.list()) {
    const match = KEY_OF_FILE.exec(key);
    // A file's own bytes: not a thumbnail nor staged bytes, which follow a file.
    if (!match || key !== match[1]) continue;
    count += 1;
    if (ids.length < SAMPLED_FILES) ids.push(key);
  }
  if (!ids.length) return;
  const [named] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from storage.files where id::text in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`,
  );
  // Its own files, with at most a few left by a crash between bytes and rows: this installation's.
  const unnamed = ids.length - Number(named?.n ?? 0);
  if (unnamed < ids.length && unnamed <= Math.max(STRAY_FILES, ids.length * STRAY_SHARE)) return;
  throw new ConfigError(
    `Invalid ${settingOf(config)}: ${homePlace(config)} has no ${HOME_MARKER} and holds files this database does not name (${unnamed} of the ${ids.length} looked up, of ${count}: another installation's, whose ${HOME_MARKER} went?); ${ownHome(config)}, or empty this one`,
  );
}

/**
 * Claims the home for `token`: the marker is created unless one is there (a conditional create),
 * then read back, so that of two installations claiming one empty home at once, one is refused.
 * The read-back also guards homes that ignore the condition (s3rver, the tests' S3 server).
 */
async function claim(blobs: Blobs, config: HomeConfig, token: string, by: string): Promise<string> {
  await createMarker(blobs, token, by);
  const marker = await readMarker(blobs);
  if (marker?.installation !== token) throw anotherInstallation(config, marker ?? { installation: null }, token);
  return token;
}

/**
 * On disk with PostgreSQL, whether this DATA_DIR demonstrably holds the installation's files: the
 * bytes of its newest files are here, each of its row's size. No file yet proves nothing (a second
 * machine's empty DATA_DIR looks the same).
 */
async function holdsNewestFiles(db: Db, blobs: Blobs): Promise<boolean> {
  const rows = await queryRows<{ id: string; size: number }>(
    db,
    sql`select id::text as id, size from storage.files order by created_at desc, id limit ${RECENT_FILES}`,
  );
  if (!rows.length) return false;
  for (const row of rows) if ((await blobs.size(row.id)) !== Number(row.size)) return false;
  return true;
}

/** Whether the database names any file. */
async function hasFiles(db: Db): Promise<boolean> {
  const [row] = await queryRows<{ any: boolean }>(db, sql`select exists (select 1 from storage.files) as any`);
  return !!row?.any;
}

/** The token the database keeps; null before a claim (or before migration 0027). */
export async function readToken(db: Db): Promise<string | null> {
  const [row] = await queryRows<{ token: string | null }>(db, sql`select token::text as token from storage.location`);
  return row?.token ?? null;
}

/** What a refusal says of the marker found: whose it is, when and by what it was written. */
const whoseMarker = (marker: Marker) =>
  marker.installation
    ? `${HOME_MARKER} names installation ${marker.installation}${marker.claimedAt ? `, claimed ${marker.claimedAt}` : ''}${marker.by ? ` by ${marker.by}` : ''}`
    : `${HOME_MARKER} names no installation`;

function anotherInstallation(config: HomeConfig, marker: Marker, token: string | null): ConfigError {
  const own = token
    ? `this database's is ${token}`
    : `this database has claimed none: if it is that installation's, restored from a backup taken before its claim, remove ${HOME_MARKER} and start again`;
  return new ConfigError(
    `Invalid ${settingOf(config)}: ${homePlace(config)} holds the files of another installation (${whoseMarker(marker)}; ${own}); ${ownHome(config)}`,
  );
}

function notThisDataDir(config: HomeConfig): ConfigError {
  return new ConfigError(
    `Invalid DATA_DIR: ${homePlace(config)} is not where this installation's files are (they are in the DATA_DIR of the instance that first started on this database): instances sharing DATABASE_URL must share DATA_DIR, or keep their files in a bucket (S3_BUCKET)`,
  );
}

/**
 * At start, once the location is recorded: the home must be this installation's. `moved` says the
 * start recorded a new location (the first start, or a move to a bucket): the new home is claimed.
 * A home without marker is claimed again when it is this installation's: a bucket (the location
 * says so), the embedded database's DATA_DIR, or, with PostgreSQL, a DATA_DIR holding the newest
 * files' bytes. Two instances of one installation starting at once end with one token (the first
 * update wins); two installations claiming one empty home, with one marker (the first create wins).
 */
export async function claimFilesHome(db: Db, config: HomeConfig, options: { moved: boolean; by?: string }): Promise<string> {
  const blobs = openBlobs(config);
  /** The marker another instance of this installation is writing (it updated the token first), if it comes. */
  const markerSoon = async () => {
    let marker: Marker | null = null;
    for (const deadline = Date.now() + MARKER_WAIT_MS; !marker && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      marker = await readMarker(blobs);
    }
    return marker;
  };
  const ours = (marker: Marker, token: string | null) => {
    if (token && marker.installation === token) return token;
    throw anotherInstallation(config, marker, token);
  };
  try {
    let token = await readToken(db);
    const marker = await readMarker(blobs);
    if (marker) return ours(marker, token);
    if (!token) {
      // Another installation's files, whose marker went, are refused before this database claims
      // anything; so is, on an upgrade, an instance on disk whose DATA_DIR lacks the database's files.
      await assertNotStrangers(db, blobs, config);
      if (config.storage.kind === 'disk' && config.databaseUrl && (await hasFiles(db)) && !(await holdsNewestFiles(db, blobs))) throw notThisDataDir(config);
      const [won] = await queryRows<{ token: string }>(
        db,
        sql`update storage.location set token = ${randomUUID()}::uuid where token is null returning token::text as token`,
      );
      if (won) return await claim(blobs, config, won.token, options.by ?? 'start');
      // Another instance claimed first: its marker follows its update within moments.
      token = await readToken(db);
      const theirs = await markerSoon();
      if (theirs) return ours(theirs, token);
      if (config.storage.kind === 'disk') throw notThisDataDir(config);
    } else if (config.storage.kind === 'disk' && !options.moved && config.databaseUrl && !(await holdsNewestFiles(db, blobs))) {
      // An instance of this installation may be writing the marker it just claimed; else the
      // database's files are in another DATA_DIR, and this instance would serve none of them. (The
      // embedded database lives in this DATA_DIR: its marker went, its files are here.)
      const theirs = await markerSoon();
      if (theirs) return ours(theirs, token);
      throw notThisDataDir(config);
    } else {
      // A bucket whose marker went, or this DATA_DIR's: this installation's again, unless it holds
      // another installation's files.
      await assertNotStrangers(db, blobs, config);
    }
    return await claim(blobs, config, token!, options.by ?? 'start');
  } finally {
    blobs.close?.();
  }
}

/**
 * Before `npm run storage:migrate` copies DATA_DIR/files into a bucket: a bucket claimed by another
 * installation than the disk's marker names is refused (the start on it would be refused too, after
 * the copy, and that installation's sweep would remove what was copied).
 */
export async function assertMayMoveInto(bucket: Blobs, disk: Blobs, config: HomeConfig): Promise<void> {
  const theirs = await readMarker(bucket);
  if (!theirs) return;
  const ours = await readMarker(disk);
  if (ours?.installation && theirs.installation === ours.installation) return;
  const own = ours?.installation
    ? `${homePlace({ ...config, storage: { kind: 'disk' } })} is installation ${ours.installation}'s`
    : `${homePlace({ ...config, storage: { kind: 'disk' } })} names no installation`;
  throw new ConfigError(
    `Invalid ${settingOf(config)}: ${homePlace(config)} holds the files of another installation (${whoseMarker(theirs)}; ${own}); give each installation a bucket of its own`,
  );
}

/**
 * After a restore: the restored database's home is claimed by its token (made now when the
 * archive had none). A marker already there is never touched: naming another installation (one
 * whose settings this restore shares by mistake), it is refused as the start would refuse it
 * (thrown). An archive from before migration 0027 has no token column: an unclaimed home is left
 * to the start, which claims it as an upgrade does; a claimed one is refused the same way.
 */
export async function claimAfterRestore(db: Db, config: HomeConfig): Promise<string | null> {
  const blobs = openBlobs(config);
  try {
    const marker = await readMarker(blobs);
    const [column] = await queryRows<{ ok: boolean }>(
      db,
      sql`select exists (select 1 from information_schema.columns where table_schema = 'storage' and table_name = 'location' and column_name = 'token') as ok`,
    );
    const token = column?.ok ? await readToken(db) : null;
    if (marker) {
      if (token && marker.installation === token) return token;
      throw anotherInstallation(config, marker, token);
    }
    if (!column?.ok) return null;
    await assertNotStrangers(db, blobs, config);
    const [row] = await queryRows<{ token: string }>(
      db,
      sql`update storage.location set token = coalesce(token, ${randomUUID()}::uuid) returning token::text as token`,
    );
    return row ? await claim(blobs, config, row.token, 'db:restore') : null;
  } finally {
    blobs.close?.();
  }
}

/** What a restart does of a home whose marker went, and what the operator does otherwise. */
function whatRestartDoes(config: HomeConfig, token: string): string {
  if (config.storage.kind === 's3') return 'restart an instance: it writes it again';
  if (!config.databaseUrl) return 'restart the instance: it writes it again';
  return `a restart writes it again if the ${RECENT_FILES} newest files' bytes are in this DATA_DIR, and is refused otherwise: then start every instance with the DATA_DIR that holds the files, or restore a backup, or put back ${HOME_MARKER} naming installation ${token}`;
}

/**
 * Before a sweep: null when the home names this database's token, else why the sweep must not run
 * (it would remove the files another installation's rows name).
 */
export async function sweepRefusal(db: Db, blobs: Blobs, config: HomeConfig): Promise<string | null> {
  const token = await readToken(db);
  if (!token) return `this installation has not claimed ${homePlace(config)} yet: a start claims it`;
  const marker = await readMarker(blobs);
  if (!marker) return `${homePlace(config)} has no ${HOME_MARKER}: it is not known to be this installation's (${whatRestartDoes(config, token)})`;
  if (marker.installation !== token) {
    return `${homePlace(config)} holds the files of another installation (${whoseMarker(marker)}; this database's is ${token}): ${ownHome(config)}`;
  }
  return null;
}
