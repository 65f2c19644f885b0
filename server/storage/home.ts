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
import { type Blobs, createDiskBlobs } from './blobs.ts';
import { bucketPlace } from './bucket-check.ts';
import { createS3Blobs } from './s3-blobs.ts';

/** The marker's key: at the root, never the shape of a file's key (store.ts, KEY_OF_FILE). */
export const HOME_MARKER = 'installation.json';

export type HomeConfig = Pick<Config, 'dataDir' | 'storage'>;
export type Marker = { installation: string | null; claimedAt?: string; by?: string };

/** How long a start that lost the race to claim waits for the winner's marker. */
const MARKER_WAIT_MS = 3000;

/** The blobs of the files' home these settings name (the disk unless a bucket is named, decision 033). */
export function openBlobs(config: HomeConfig): Blobs & { close?(): void } {
  const root = path.join(config.dataDir, 'files');
  return config.storage.kind === 's3' ? createS3Blobs(config.storage, { tmpDir: path.join(root, 'tmp') }) : createDiskBlobs(root);
}

/** The home as the lines name it: `bucket b at E`, or the directory. */
export const homePlace = (config: HomeConfig) => (config.storage.kind === 's3' ? bucketPlace(config.storage) : path.join(config.dataDir, 'files'));

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

export async function writeMarker(blobs: Blobs, token: string, by: string): Promise<void> {
  const marker: Marker = { installation: token, claimedAt: new Date().toISOString(), by: `${by} on ${hostname()}` };
  await blobs.write(HOME_MARKER, Buffer.from(`${JSON.stringify(marker, null, 2)}\n`));
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
  const own = token ? `this database's is ${token}` : 'this database has claimed none';
  const fix = config.storage.kind === 'disk' ? 'give each installation a DATA_DIR of its own' : 'give each installation a bucket of its own';
  return new ConfigError(`Invalid ${settingOf(config)}: ${homePlace(config)} holds the files of another installation (${whoseMarker(marker)}; ${own}); ${fix}`);
}

function notThisDataDir(config: HomeConfig): ConfigError {
  return new ConfigError(
    `Invalid DATA_DIR: ${homePlace(config)} is not where this installation's files are (they are in the DATA_DIR of the instance that first started on this database): instances sharing DATABASE_URL must share DATA_DIR, or keep their files in a bucket (S3_BUCKET)`,
  );
}

/**
 * At start, once the location is recorded: the home must be this installation's. `moved` says the
 * start recorded a new location (the first start, or a move to a bucket): the new home is claimed.
 * Two instances of one installation starting at once end with one token (the first update wins).
 */
export async function claimFilesHome(db: Db, config: HomeConfig, options: { moved: boolean; by?: string }): Promise<string> {
  const blobs = openBlobs(config);
  try {
    let token = await readToken(db);
    let marker = await readMarker(blobs);
    if (marker) {
      if (token && marker.installation === token) return token;
      throw anotherInstallation(config, marker, token);
    }
    if (!token) {
      const [won] = await queryRows<{ token: string }>(
        db,
        sql`update storage.location set token = ${randomUUID()}::uuid where token is null returning token::text as token`,
      );
      if (won) {
        token = won.token;
      } else {
        // Another instance claimed first: its marker follows its update within moments.
        token = await readToken(db);
        const deadline = Date.now() + MARKER_WAIT_MS;
        while (!marker && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          marker = await readMarker(blobs);
        }
        if (marker) {
          if (token && marker.installation === token) return token;
          throw anotherInstallation(config, marker, token);
        }
        if (config.storage.kind === 'disk') throw notThisDataDir(config);
      }
    } else if (config.storage.kind === 'disk' && !options.moved) {
      // The database's files are in another DATA_DIR: this instance would serve none of them.
      throw notThisDataDir(config);
    }
    // A new home, or a bucket whose marker went: this installation's from now on.
    await writeMarker(blobs, token!, options.by ?? 'start');
    const written = await readMarker(blobs);
    if (written?.installation !== token) throw anotherInstallation(config, written ?? { installation: null }, token);
    return token!;
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
 * archive had none). An archive from before migration 0027 has no token column yet: the marker
 * goes, and the start after the restore claims the home as an upgrade does.
 */
export async function claimAfterRestore(db: Db, config: HomeConfig): Promise<string | null> {
  const blobs = openBlobs(config);
  try {
    const [column] = await queryRows<{ ok: boolean }>(
      db,
      sql`select exists (select 1 from information_schema.columns where table_schema = 'storage' and table_name = 'location' and column_name = 'token') as ok`,
    );
    const [row] = column?.ok
      ? await queryRows<{ token: string }>(db, sql`update storage.location set token = coalesce(token, ${randomUUID()}::uuid) returning token::text as token`)
      : [];
    if (!row) {
      await blobs.remove([HOME_MARKER]);
      return null;
    }
    await writeMarker(blobs, row.token, 'db:restore');
    return row.token;
  } finally {
    blobs.close?.();
  }
}

/**
 * Before a sweep: null when the home names this database's token, else why the sweep must not run
 * (it would remove the files another installation's rows name).
 */
export async function sweepRefusal(db: Db, blobs: Blobs, config: HomeConfig): Promise<string | null> {
  const token = await readToken(db);
  if (!token) return `this installation has not claimed ${homePlace(config)} yet: a start claims it`;
  const marker = await readMarker(blobs);
  if (!marker) {
    return `${homePlace(config)} has no ${HOME_MARKER}: it is not known to be this installation's (restart an instance to claim it again; on disk, every instance must have this DATA_DIR)`;
  }
  if (marker.installation !== token) {
    return `${homePlace(config)} holds the files of another installation (${whoseMarker(marker)}; this database's is ${token}): give each installation a ${config.storage.kind === 'disk' ? 'DATA_DIR' : 'bucket'} of its own`;
  }
  return null;
}
