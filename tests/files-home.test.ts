// Whose files are these (decision 057): a second installation on one bucket is refused at start and
// its files survive the first one's sweep; instances sharing a database must share the files'
// home; a restore claims the home for the restored database, so that it starts.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '#server/config.ts';
import { files } from '#server/db/schema/index.ts';
import { createDiskBlobs } from '#server/storage/blobs.ts';
import { claimAfterRestore, claimFilesHome, createMarker, HOME_MARKER, readMarker, readToken } from '#server/storage/home.ts';
import { createPostgresDatabase, startTestApp, type TestApp } from './support/app.ts';
import { startS3Server } from './support/s3-server.ts';

const secrets = { JWT_SECRET: 'j'.repeat(40), SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'k'.repeat(40), BACKUP_KEY: 'b'.repeat(40) };
const work = mkdtempSync(path.join(tmpdir(), 'atelier-home-'));
const fresh = (name: string) => {
  const dir = path.join(work, name);
  mkdirSync(dir);
  return dir;
};
let s3: Awaited<ReturnType<typeof startS3Server>>;
const closing: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  for (const close of closing.reverse()) await close().catch(() => {});
  await s3?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A script as an operator runs it, with only these settings: its exit code and standard error. */
function run(script: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [path.join(root, script), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'error', HOST: '127.0.0.1', PORT: '0', ...secrets, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  // A start that is not refused keeps serving: stopped here, it fails the test on its output.
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    }),
  );
}

const start = (overrides: Parameters<typeof startTestApp>[1] = {}) =>
  startTestApp('postgres', { encryptionKeys: [secrets.ENCRYPTION_KEY], backupKey: secrets.BACKUP_KEY, ...overrides }).then((t) => {
    closing.push(() => t.close());
    return t;
  });

describe('two installations on one bucket', () => {
  let x: TestApp;
  beforeAll(async () => {
    x = await start({ env: s3.env });
  });

  it('claims the bucket for the first and refuses the second at start, naming the setting', async () => {
    const token = await readToken(x.database.db);
    const marker = await readMarker(x.app.services.files.blobs);
    expect(marker).toMatchObject({ installation: token, by: expect.stringMatching(/^start on /) });

    const y = await run('server/main.ts', [], { ...s3.env, DATA_DIR: fresh('y'), DATABASE_URL: await createPostgresDatabase() });
    expect(y.stderr).toBe(
      `atelier-bva: Invalid S3_BUCKET: bucket ${s3.bucket} at ${s3.endpoint} holds the files of another installation (${HOME_MARKER} names installation ${token}, claimed ${marker!.claimedAt} by ${marker!.by}; this database has claimed none: if it is that installation's, restored from a backup taken before its claim, remove ${HOME_MARKER} and start again); give each installation a bucket of its own\n`,
    );
    expect(y.status).toBe(1);
    console.log(`second installation on bucket ${s3.bucket}: exit ${y.status}, ${y.stderr.trim()}`);
    // With the URL form, the line names STORAGE_URL.
    const url = `s3+http://${s3.env.S3_ACCESS_KEY_ID}:${s3.env.S3_SECRET_ACCESS_KEY}@127.0.0.1:${s3.port}/${s3.bucket}?forcePathStyle=1&region=us-east-1`;
    await expect(start({ env: { STORAGE_URL: url } })).rejects.toThrow(
      new RegExp(`^Invalid STORAGE_URL: bucket ${s3.bucket} at ${s3.endpoint} holds the files of another installation \\(`),
    );
    // Refused before they wrote anything: the bucket is still the first's.
    expect(await readMarker(x.app.services.files.blobs)).toEqual(marker);
  });

  it('sweeps only a bucket that names it, and logs the keys it removes', async () => {
    const store = x.app.services.files;
    const token = (await readToken(x.database.db))!;
    // Files of another installation (say, an older version's, before the marker): no row of X names them.
    const others = [randomUUID(), randomUUID()].sort();
    for (const key of others) {
      const tmp = path.join(store.tmpDir, randomUUID());
      writeFileSync(tmp, 'another installation');
      await store.blobs.put(key, tmp);
      const old = new Date(Date.now() - 2 * 60 * 60_000);
      utimesSync(path.join(s3.dir, s3.bucket, `${key}._S3rver_object`), old, old);
    }
    const present = async () => Promise.all(others.map((key) => store.blobs.size(key)));
    const skipped = () => x.logLines.filter((line) => line.msg === 'orphan sweep skipped');

    // The marker taken away behind X's back: nothing is removed, and the log says why.
    await store.blobs.remove([HOME_MARKER]);
    expect(await store.sweepOrphans(0)).toBe(0);
    expect(await present()).toEqual([20, 20]);
    expect(skipped().at(-1)).toMatchObject({
      level: 'error',
      reason: `bucket ${s3.bucket} at ${s3.endpoint} has no ${HOME_MARKER}: it is not known to be this installation's (restart an instance: it writes it again)`,
    });

    // Another installation's marker: the same.
    const other = randomUUID();
    expect(await createMarker(store.blobs, other, 'start')).toBe(true);
    expect(await store.sweepOrphans(0)).toBe(0);
    expect(await present()).toEqual([20, 20]);
    expect(skipped().at(-1)!.reason).toMatch(
      new RegExp(
        `^bucket ${s3.bucket} at .+ holds the files of another installation \\(${HOME_MARKER} names installation ${other}, claimed .+; this database's is ${token}\\): give each installation a bucket of its own$`,
      ),
    );

    // Its own marker back: the orphans go, named in the log; the files X's rows name stay.
    await store.blobs.remove([HOME_MARKER]);
    await createMarker(store.blobs, token, 'start');
    const named = await x.database.db.select().from(files);
    expect(named.length).toBeGreaterThan(0);
    expect(await store.sweepOrphans(0)).toBe(2);
    expect(await present()).toEqual([null, null]);
    expect(x.logLines.find((line) => line.msg === 'orphan files removed')).toEqual({
      level: 'info',
      msg: 'orphan files removed',
      place: `bucket ${s3.bucket} at ${s3.endpoint}`,
      count: 2,
      keys: others,
    });
    for (const row of named) expect(await store.blobs.size(row.id)).toBe(row.size);
    for (const line of [...skipped(), x.logLines.find((l) => l.msg === 'orphan files removed')]) console.log(JSON.stringify(line));
  });

  it("does not let a new installation claim a bucket whose marker went while it holds another's files; their own installation claims it back", async () => {
    const token = await readToken(x.database.db);
    await x.app.services.files.blobs.remove([HOME_MARKER]);
    const held = (await x.database.db.select().from(files)).length;
    const y = await run('server/main.ts', [], { ...s3.env, DATA_DIR: fresh('y-strangers'), DATABASE_URL: await createPostgresDatabase() });
    expect(y.stderr).toBe(
      `atelier-bva: Invalid S3_BUCKET: bucket ${s3.bucket} at ${s3.endpoint} has no ${HOME_MARKER} and holds files this database does not name (${held} of the ${held} looked up, of ${held}: another installation's, whose ${HOME_MARKER} went?); give each installation a bucket of its own, or empty this one\n`,
    );
    expect(y.status).toBe(1);
    expect(await readMarker(x.app.services.files.blobs)).toBeNull();
    // X's next start writes it again: those files are its own.
    expect(await claimFilesHome(x.database.db, x.config, { moved: false })).toBe(token);
    expect(await readMarker(x.app.services.files.blobs)).toMatchObject({ installation: token });
  });

  it('a restore onto the same bucket (a new machine) starts on it', async () => {
    const archive = path.join(work, 'x.tar.gz');
    const backup = await run('server/cli.ts', ['backup', archive], { ...s3.env, DATA_DIR: x.config.dataDir, DATABASE_URL: x.config.databaseUrl! });
    expect(backup.stderr).toMatch(/^Backup written to /);
    const token = await readToken(x.database.db);
    // The old machine is gone; a new one gets an empty database and the bucket's settings.
    await x.close();
    const databaseUrl = await createPostgresDatabase();
    const dataDir = fresh('x-restored');
    const restore = await run('server/cli.ts', ['restore', archive], { ...s3.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    expect(restore.stderr).toMatch(/^Restored /);
    expect(restore.status).toBe(0);
    const restored = await start({ env: s3.env, databaseUrl, dataDir });
    expect(await readToken(restored.database.db)).toBe(token);
    expect((await fetch(`${restored.url}/readyz`)).status).toBe(200);
  });
});

describe('two instances on one database, files on disk', () => {
  it('refuses an instance with another DATA_DIR, and starts one with the same DATA_DIR', async () => {
    const first = await start({ env: { DEMO_DATA: '0' } });
    const dataDir = fresh('second');
    const second = await run('server/main.ts', [], { DATA_DIR: dataDir, DATABASE_URL: first.config.databaseUrl! });
    expect(second.stderr).toBe(
      `atelier-bva: Invalid DATA_DIR: ${dataDir}/files is not where this installation's files are (they are in the DATA_DIR of the instance that first started on this database): instances sharing DATABASE_URL must share DATA_DIR, or keep their files in a bucket (S3_BUCKET)\n`,
    );
    expect(second.status).toBe(1);
    console.log(`second instance with another DATA_DIR: exit ${second.status}, ${second.stderr.trim()}`);

    const shared = await start({ env: { DEMO_DATA: '0' }, databaseUrl: first.config.databaseUrl, dataDir: first.config.dataDir });
    expect((await fetch(`${shared.url}/readyz`)).status).toBe(200);
    expect(await readToken(shared.database.db)).toBe(await readToken(first.database.db));
  });

  it('an installation from before the claims (a location without token, no marker) just claims at its next start', async () => {
    const dataDir = fresh('upgrade');
    const before = await start({ env: { DEMO_DATA: '1' }, dataDir });
    const databaseUrl = before.config.databaseUrl!;
    await before.database.db.execute(sql`update storage.location set token = null`);
    await before.close();
    rmSync(path.join(dataDir, 'files', HOME_MARKER));

    // An instance upgraded with a wrong, empty DATA_DIR does not claim it: the files are elsewhere.
    await expect(start({ env: { DEMO_DATA: '0' }, databaseUrl, dataDir: fresh('upgrade-elsewhere') })).rejects.toThrow(
      /^Invalid DATA_DIR: .+\/upgrade-elsewhere\/files is not where this installation's files are/,
    );
    const upgraded = await start({ env: { DEMO_DATA: '0' }, databaseUrl, dataDir });
    const token = await readToken(upgraded.database.db);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readMarker(upgraded.app.services.files.blobs)).toMatchObject({ installation: token });
  });

  it('a DATA_DIR whose marker went is claimed again at restart: always with the embedded database, with PostgreSQL when the newest files are there', async () => {
    // Embedded: the database lives in this DATA_DIR, so its files are here.
    const embeddedDir = fresh('embedded');
    const options = { dataDir: embeddedDir, encryptionKeys: [secrets.ENCRYPTION_KEY], env: { DEMO_DATA: '0' } };
    const first = await startTestApp('pglite', options);
    const token = await readToken(first.database.db);
    await first.app.services.files.blobs.remove([HOME_MARKER]);
    await first.app.services.files.sweepOrphans(0);
    expect(first.logLines.findLast((line) => line.msg === 'orphan sweep skipped')!.reason).toBe(
      `${embeddedDir}/files has no ${HOME_MARKER}: it is not known to be this installation's (restart the instance: it writes it again)`,
    );
    await first.close();
    const again = await startTestApp('pglite', options);
    closing.push(() => again.close());
    expect(await readMarker(again.app.services.files.blobs)).toMatchObject({ installation: token });

    // PostgreSQL: this DATA_DIR holds the newest files' bytes, another machine's empty one does not.
    const dataDir = fresh('pg-files');
    const pg = await start({ env: { DEMO_DATA: '1' }, dataDir });
    const databaseUrl = pg.config.databaseUrl!;
    const pgToken = await readToken(pg.database.db);
    await pg.app.services.files.blobs.remove([HOME_MARKER]);
    await pg.app.services.files.sweepOrphans(0);
    const reason = pg.logLines.findLast((line) => line.msg === 'orphan sweep skipped')!.reason;
    expect(reason).toBe(
      `${dataDir}/files has no ${HOME_MARKER}: it is not known to be this installation's (a restart writes it again if the 5 newest files' bytes are in this DATA_DIR, and is refused otherwise: then start every instance with the DATA_DIR that holds the files, or restore a backup, or put back ${HOME_MARKER} naming installation ${pgToken})`,
    );
    console.log(`sweep without marker, PostgreSQL on disk: ${reason}`);
    await pg.close();
    await expect(start({ databaseUrl, dataDir: fresh('pg-elsewhere') })).rejects.toThrow(/^Invalid DATA_DIR: .+ is not where this installation's files are/);
    const restarted = await start({ databaseUrl, dataDir });
    expect(await readMarker(restarted.app.services.files.blobs)).toMatchObject({ installation: pgToken, by: expect.stringMatching(/^start on /) });
  });

  it('two installations claiming one empty DATA_DIR at once: one claims it, the other is refused', async () => {
    const apps = await Promise.all([start({ env: { DEMO_DATA: '0' } }), start({ env: { DEMO_DATA: '0' } })]);
    for (let round = 0; round < 5; round++) {
      const home = { dataDir: fresh(`contested-${round}`), storage: { kind: 'disk' as const } };
      for (const t of apps) await t.database.db.execute(sql`update storage.location set token = null`);
      const outcomes = await Promise.allSettled(
        apps.map((t) => claimFilesHome(t.database.db, { ...home, databaseUrl: t.config.databaseUrl }, { moved: true })),
      );
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const winner = outcomes.find((outcome) => outcome.status === 'fulfilled')!;
      expect(await readMarker(createDiskBlobs(path.join(home.dataDir, 'files')))).toMatchObject({ installation: winner.value });
    }
  });

  it('a restore into a fresh DATA_DIR starts there', async () => {
    const source = await start({ env: { DEMO_DATA: '1' } });
    const archive = path.join(work, 'disk.tar.gz');
    const backup = await run('server/cli.ts', ['backup', archive], { DATA_DIR: source.config.dataDir, DATABASE_URL: source.config.databaseUrl! });
    expect(backup.stderr).toMatch(/files copied from disk/);
    const databaseUrl = await createPostgresDatabase();
    const dataDir = fresh('disk-restored');
    const restore = await run('server/cli.ts', ['restore', archive], { DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    expect(restore.status).toBe(0);
    const restored = await start({ databaseUrl, dataDir });
    expect(await readToken(restored.database.db)).toBe(await readToken(source.database.db));
    expect((await fetch(`${restored.url}/readyz`)).status).toBe(200);

    // The same archive restored with another installation's DATA_DIR by mistake: that one's marker
    // stays, and the restore says, as the start then does, that the start is refused.
    const other = await start({ env: { DEMO_DATA: '0' }, dataDir: fresh('other') });
    const theirs = await readMarker(other.app.services.files.blobs);
    const mistaken = await createPostgresDatabase();
    const wrong = await run('server/cli.ts', ['restore', archive], { DATA_DIR: other.config.dataDir, DATABASE_URL: mistaken });
    const refusal = `Invalid DATA_DIR: ${other.config.dataDir}/files holds the files of another installation (${HOME_MARKER} names installation ${theirs!.installation}, claimed ${theirs!.claimedAt} by ${theirs!.by}; this database's is ${await readToken(source.database.db)}); give each installation a DATA_DIR of its own`;
    expect(wrong.stderr).toMatch(/^Restored /);
    expect(wrong.stderr.split('\n').at(-2)).toBe(`The files' home is not this installation's, so a start on these settings is refused: ${refusal}`);
    expect(wrong.status).toBe(1);
    expect(await readMarker(other.app.services.files.blobs)).toEqual(theirs);
    await expect(start({ databaseUrl: mistaken, dataDir: other.config.dataDir })).rejects.toThrow(refusal);
    console.log(`restore into another installation's DATA_DIR: exit ${wrong.status}, ${wrong.stderr.trim().split('\n').at(-1)}`);

    // An archive from before the claims (no token column) never removes a marker: the start decides.
    const db = other.database.db;
    const empty = { dataDir: fresh('before-claims'), storage: { kind: 'disk' as const } };
    let onClaimed: string | null = null;
    let onEmpty: string | null = 'not run';
    await db
      .transaction(async (tx) => {
        await tx.execute(sql`alter table storage.location drop column token`);
        onClaimed = await claimAfterRestore(tx as unknown as typeof db, other.config).catch((error: Error) => error.message);
        onEmpty = await claimAfterRestore(tx as unknown as typeof db, empty);
        tx.rollback();
      })
      .catch(() => {});
    expect(onClaimed).toBe(
      `Invalid DATA_DIR: ${other.config.dataDir}/files holds the files of another installation (${HOME_MARKER} names installation ${theirs!.installation}, claimed ${theirs!.claimedAt} by ${theirs!.by}; this database has claimed none: if it is that installation's, restored from a backup taken before its claim, remove ${HOME_MARKER} and start again); give each installation a DATA_DIR of its own`,
    );
    expect(await readMarker(other.app.services.files.blobs)).toEqual(theirs);
    expect(onEmpty).toBeNull();
    expect(await readMarker(createDiskBlobs(path.join(empty.dataDir, 'files')))).toBeNull();
  });
});
