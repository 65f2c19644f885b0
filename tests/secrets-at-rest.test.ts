// Secrets at rest (issue 29, item 3; decision 050): a backup of the demo with two authenticator
// apps enrolled, recovery codes and a personal access token holds none of them in clear, nor a
// hash one could brute force without the key; a restore needs the key; an installation upgraded
// from clear rows seals them at start; a rotation re-seals everything under a new key.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { Secret, TOTP } from 'otpauth';
import { extract } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInErrorMessage } from '#lib/auth/errors.server.ts';
import { mfaErrors } from '#server/auth/mfa.ts';
import { keyIdOf, SEALED_COLUMNS } from '#server/auth/vault.ts';
import { SEALED_ENTRIES } from '#server/backup/archive.ts';
import * as schema from '#server/db/schema/index.ts';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(tmpdir(), 'atelier-at-rest-'));
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  rmSync(work, { recursive: true, force: true });
});

/** The code of the app `steps` periods from now. */
const codeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
/** What main stored: a plain SHA-256, in base64url. */
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The archives' MAC key (decision 051), the source's and every restore's. */
const BACKUP_KEY = randomBytes(32).toString('hex');

/** The real CLI, as an operator runs it. */
function cli(args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [path.join(root, 'server/cli.ts'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'error', BACKUP_KEY, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, stderr })));
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

type Enrolled = { email: string; userId: string; secret: string; recoveryCodes: string[] };

async function enrol(api: string, email: string): Promise<Enrolled & { headers: Record<string, string> }> {
  const session = (await postJson(`${api}/signin/email-password`, { email, password: DEMO_PASSWORD })).body.session;
  const headers = { authorization: `Bearer ${session.accessToken}` };
  const generated = await fetch(`${api}/mfa/totp/generate`, { headers }).then((r) => r.json());
  const activated = await postJson(`${api}/user/mfa`, { code: codeOf(generated.totpSecret), activeMfaType: 'totp' }, headers);
  expect(activated.status).toBe(200);
  return { email, userId: session.user.id, secret: generated.totpSecret, recoveryCodes: activated.body.recoveryCodes, headers };
}

/** Password, then a code of the app (or a recovery code): the session, or the refusal. */
async function signInWithCode(api: string, email: string, code: string) {
  const first = await postJson(`${api}/signin/email-password`, { email, password: DEMO_PASSWORD });
  expect(first.body.mfa?.ticket).toBeTruthy();
  return postJson(`${api}/signin/mfa/totp`, { ticket: first.body.mfa.ticket, otp: code });
}

describe('secrets at rest', { timeout: 180_000 }, () => {
  let source: TestApp;
  let api: string;
  let enrolled: Enrolled[];
  let pat: string;
  let archive: string;

  beforeAll(async () => {
    source = await startTestApp('pglite', { backupKey: BACKUP_KEY });
    closing.push(() => source.close());
    api = `${source.url}/api/auth`;
    const first = await enrol(api, 'commercial@demo.local');
    const second = await enrol(api, 'diagnostic@demo.local');
    enrolled = [first, second];
    // Right after activation the sign-in counts as elevated: it may make a token.
    const created = await postJson(`${api}/pat`, { expiresAt: new Date(Date.now() + 86_400_000).toISOString() }, second.headers);
    expect(created.status).toBe(200);
    pat = created.body.personalAccessToken;
    // A reset link waiting for a relay that is down (the worker stopped): the archive holds its row.
    // The notices already queued (a token is a way in: decision 056) leave first.
    await source.app.mailer.settled();
    await source.app.mailer.close();
    expect((await postJson(`${api}/user/password/reset`, { email: 'admin@demo.local' })).status).toBe(200);
    archive = path.join(work, 'demo.tar.gz');
    const backup = await cli(['backup', archive], { DATA_DIR: source.config.dataDir });
    expect(backup.stderr).toMatch(/^Backup written to /);
    expect(backup.status).toBe(0);
  });

  it('a backup holds no TOTP secret, recovery code or token in clear, nor their plain SHA-256', async () => {
    const dir = path.join(work, 'extracted');
    mkdirSync(dir);
    await extract({ file: archive, cwd: dir });
    const files = filesUnder(dir);
    expect(files.some((f) => f.endsWith('auth.users.ndjson'))).toBe(true);
    const text = files.map((f) => readFileSync(f, 'latin1')).join('\n');
    // The rows are there (grep finds the accounts), their secrets are not.
    for (const { email, userId, secret, recoveryCodes } of enrolled) {
      expect(text).toContain(email);
      expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
      for (const code of recoveryCodes) {
        expect(text).not.toContain(code);
        expect(text).not.toContain(code.replace('-', ''));
        // The hash main kept: 8 characters and the user id, ~8.5e11 guesses with no key.
        expect(text).not.toContain(sha256(`${userId}:${code.replace('-', '')}`));
      }
    }
    expect(text).not.toContain(pat);
    expect(text).not.toContain(sha256(pat));
    // Nor the waiting reset link: its row is there, its content sealed.
    const queue = readFileSync(files.find((f) => f.endsWith('auth.message_queue.ndjson'))!, 'utf8');
    expect(queue).toContain('admin@demo.local');
    expect(queue).toMatch(/"vars": ?"enc1:[A-Za-z0-9_-]{8}:/);
    expect(text).not.toContain('ticket=');
    // Nor the key that seals them.
    for (const key of source.config.encryptionKeys) expect(text).not.toContain(key);
    // The secrets are still there, sealed: the rows say which key.
    const users = readFileSync(files.find((f) => f.endsWith('auth.users.ndjson'))!, 'utf8');
    expect(users).toMatch(/"totp_secret": ?"enc1:[A-Za-z0-9_-]{8}:/);
  });

  it('a restore whose key is lost goes on with --forget-secrets: the apps are removed, the tokens revoked, the rest is there', async () => {
    const lost = path.join(work, 'lost-key');
    const key = randomBytes(32).toString('hex');
    const restored = await cli(['restore', archive, '--forget-secrets'], { DATA_DIR: lost, ENCRYPTION_KEY: key });
    expect(restored.stderr).toMatch(
      /^Restored .+\nWithout the archive's encryption key: 2 accounts lost their authenticator app and its recovery codes \(they sign in with their password and may enrol again\), 1 personal access token revoked, 1 queued message whose link or code it sealed marked failed \(their users ask for a new one\)\n$/,
    );
    expect(restored.status).toBe(0);
    const copy = await startTestApp('pglite', { dataDir: lost, encryptionKeys: [key] });
    closing.push(() => copy.close());
    const copyApi = `${copy.url}/api/auth`;
    for (const { email } of enrolled) {
      expect(await postJson(`${copyApi}/signin/email-password`, { email, password: DEMO_PASSWORD })).toMatchObject({ status: 200, body: { mfa: null } });
    }
    expect(await postJson(`${copyApi}/signin/pat`, { personalAccessToken: pat })).toMatchObject({ status: 401, body: { error: 'invalid-pat' } });
    const [counts] = await queryRows<{ codes: number; orders: number }>(
      copy.database.db,
      sql`select (select count(*)::int from auth.recovery_codes) as codes, (select count(*)::int from public.repair_orders) as orders`,
    );
    expect(counts).toMatchObject({ codes: 0 });
    expect(counts!.orders).toBeGreaterThan(0);
    // The waiting reset link could never be opened: failed, emptied, said on the admin's screen.
    expect(await copy.app.mailer.pending()).toEqual([
      expect.objectContaining({ recipient: 'admin@demo.local', status: 'failed', lastError: 'unreadable', retriable: false }),
    ]);
  });

  it('a secret that does not open at sign-in (the database changed under the server) is refused in words, not a 500', async () => {
    const [, second] = enrolled as [Enrolled, Enrolled];
    const db = source.database.db;
    const [row] = await queryRows<{ sealed: string }>(db, sql`select totp_secret as sealed from auth.users where id = ${second.userId}`);
    await db.execute(sql`update auth.users set totp_secret = ${row!.sealed.replace(/^enc1:[^:]+:/, 'enc1:someKey0:')} where id = ${second.userId}`);
    try {
      const refused = await signInWithCode(api, second.email, codeOf(second.secret));
      expect(refused).toMatchObject({ status: 502, body: { error: 'totp-secret-unreadable' } });
      // What the sign-in page says (src/lib/auth/errors.server.ts).
      expect(signInErrorMessage(mfaErrors.sealedElsewhere())).toBe(
        "Votre application d'authentification ne peut pas être vérifiée : cette installation n'a pas la clé de chiffrement de ses données. Prévenez l'administrateur.",
      );
    } finally {
      await db.execute(sql`update auth.users set totp_secret = ${row!.sealed} where id = ${second.userId}`);
    }
  });

  it('a restore with another key is refused with one line and writes nothing; with the key, the app, its codes and the token work', async () => {
    const elsewhere = path.join(work, 'elsewhere');
    const refused = await cli(['restore', archive], { DATA_DIR: elsewhere, ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    expect(refused.stderr).toMatch(
      /^atelier-bva: This backup's secrets are sealed with encryption key [A-Za-z0-9_-]{8}, which this installation does not have: set ENCRYPTION_KEY to the key of the installation the backup came from \(kept with the archive, never inside it\), then restore; if that key is lost, add --forget-secrets to restore without the authenticator apps, recovery codes, personal access tokens and queued links or codes it sealed\n$/,
    );
    expect(refused.status).toBe(1);
    // Decided from the archive before a byte is written: no database, no directory.
    expect(existsSync(elsewhere)).toBe(false);
    // Without ENCRYPTION_KEY, the embedded mode's key file is not made for a restore it refuses.
    const keyless = await cli(['restore', archive], { DATA_DIR: elsewhere });
    expect(keyless.stderr).toMatch(
      /^atelier-bva: This backup's secrets are sealed with encryption key [A-Za-z0-9_-]{8}, which this installation does not have: /,
    );
    expect(keyless.status).toBe(1);
    expect(existsSync(elsewhere)).toBe(false);

    const [key] = source.config.encryptionKeys;
    const restored = await cli(['restore', archive], { DATA_DIR: elsewhere, ENCRYPTION_KEY: key! });
    expect(restored.stderr).toMatch(/^Restored /);
    expect(restored.status).toBe(0);
    const copy = await startTestApp('pglite', { dataDir: elsewhere, encryptionKeys: [key!] });
    closing.push(() => copy.close());
    const copyApi = `${copy.url}/api/auth`;
    const [first, second] = enrolled as [Enrolled, Enrolled];
    expect((await signInWithCode(copyApi, first.email, codeOf(first.secret, 1))).status).toBe(200);
    expect((await signInWithCode(copyApi, second.email, second.recoveryCodes[0]!)).status).toBe(200);
    expect((await postJson(`${copyApi}/signin/pat`, { personalAccessToken: pat })).status).toBe(200);
  });
});

describe('an installation upgraded from clear secrets, and a rotation', { timeout: 180_000 }, () => {
  it('seals the clear TOTP secret and keys the plain hashes at start: the app, a recovery code and the token still work', async () => {
    const old = await startTestApp('pglite');
    const api = `${old.url}/api/auth`;
    const user = await enrol(api, 'commercial@demo.local');
    const created = await postJson(`${api}/pat`, { expiresAt: new Date(Date.now() + 86_400_000).toISOString() }, user.headers);
    const pat = created.body.personalAccessToken as string;
    // The rows as the previous version wrote them: the secret in clear, plain SHA-256 hashes.
    const db = old.database.db;
    await db.execute(sql`update auth.users set totp_secret = ${user.secret} where id = ${user.userId}`);
    await db.execute(sql`delete from auth.recovery_codes where user_id = ${user.userId}`);
    for (const code of user.recoveryCodes) {
      await db.execute(sql`insert into auth.recovery_codes (user_id, code_hash) values (${user.userId}, ${sha256(`${user.userId}:${code.replace('-', '')}`)})`);
    }
    await db.execute(sql`update auth.personal_access_tokens set token_hash = ${sha256(pat)}`);
    await db.execute(sql`delete from auth.server_secrets`);
    await old.app.close();

    const upgraded = await startTestApp('pglite', { dataDir: old.config.dataDir, encryptionKeys: old.config.encryptionKeys });
    closing.push(() => upgraded.close());
    expect(upgraded.logLines.find((l) => l.msg === 'secrets at rest sealed')).toMatchObject({ sealed: 1, rehashed: 11 });
    const [row] = await queryRows<{ secret: string }>(upgraded.database.db, sql`select totp_secret as secret from auth.users where id = ${user.userId}`);
    expect(row!.secret).toMatch(/^enc1:/);
    const hashes = await queryRows<{ hash: string }>(
      upgraded.database.db,
      sql`select code_hash as hash from auth.recovery_codes union all select token_hash from auth.personal_access_tokens`,
    );
    expect(hashes).toHaveLength(11);
    for (const code of user.recoveryCodes) expect(hashes.map((h) => h.hash)).not.toContain(sha256(`${user.userId}:${code.replace('-', '')}`));

    const upApi = `${upgraded.url}/api/auth`;
    expect((await signInWithCode(upApi, user.email, codeOf(user.secret, 1))).status).toBe(200);
    expect((await signInWithCode(upApi, user.email, user.recoveryCodes[3]!)).status).toBe(200);
    expect((await postJson(`${upApi}/signin/pat`, { personalAccessToken: pat })).status).toBe(200);
  });

  it('npm run secrets:rotate makes a new key, re-seals every secret under it, and drops the old one', async () => {
    const app = await startTestApp('pglite', { encryptionKeys: undefined });
    const dataDir = app.config.dataDir;
    const keyFile = path.join(dataDir, 'secrets/encryption');
    const api = `${app.url}/api/auth`;
    const user = await enrol(api, 'mecanicien@demo.local');
    // A reset link left waiting (the worker stopped): the rotation re-seals it too.
    await app.app.mailer.close();
    expect((await postJson(`${api}/user/password/reset`, { email: 'admin@demo.local' })).status).toBe(200);
    const before = readFileSync(keyFile, 'utf8');
    // The embedded database is open: the rotation asks for the server to stop.
    const busy = await cli(['rotate-secrets'], { DATA_DIR: dataDir });
    expect(busy.stderr).toMatch(/already open in process \d+; stop it first\n$/);
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
    await app.app.close();

    const rotated = await cli(['rotate-secrets'], { DATA_DIR: dataDir });
    expect(rotated.stderr).toMatch(
      new RegExp(
        `^Re-sealed 3 secrets with the new encryption key [A-Za-z0-9_-]{8} in ${keyFile}; the old key is gone: take a new backup, and keep this key with the backups, never inside them\n$`,
      ),
    );
    expect(rotated.status).toBe(0);
    const keys = readFileSync(keyFile, 'utf8').trim().split('\n');
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toBe(before.trim());
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const after = await startTestApp('pglite', { dataDir, encryptionKeys: undefined });
    const ids = await queryRows<{ id: string }>(
      after.database.db,
      sql`select split_part(totp_secret, ':', 2) as id from auth.users where totp_secret is not null union select split_part(value, ':', 2) from auth.server_secrets
          union select split_part(vars #>> '{}', ':', 2) from auth.message_queue where vars is not null`,
    );
    expect(ids.map((r) => r.id)).toEqual([keyIdOf(keys[0]!)]);
    // The worker opens it under the new key: the reset mail leaves.
    await after.app.mailer.settled();
    const outbox = path.join(dataDir, 'outbox');
    expect(readdirSync(outbox).some((f) => /^To: admin@demo\.local$/m.test(readFileSync(path.join(outbox, f), 'utf8')))).toBe(true);
    expect((await signInWithCode(`${after.url}/api/auth`, user.email, codeOf(user.secret, 1))).status).toBe(200);
    expect((await signInWithCode(`${after.url}/api/auth`, user.email, user.recoveryCodes[0]!)).status).toBe(200);

    await after.app.close();
    // The old key opens nothing any more: a start with it alone is refused with one line.
    await expect(startTestApp('pglite', { dataDir, encryptionKeys: [before.trim()] })).rejects.toThrow(
      /^Invalid ENCRYPTION_KEY: The database's secrets are sealed with encryption key [A-Za-z0-9_-]{8}, which is not ENCRYPTION_KEY \(nor in ENCRYPTION_KEY_PREVIOUS\): set the key they were sealed with$/,
    );
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('with ENCRYPTION_KEY on PostgreSQL, rotates while an instance runs with both keys, then the old key goes', async () => {
    const [oldKey, newKey] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    // The instances keep one DATA_DIR, where their files are (decision 057).
    const dataDir = path.join(work, 'rotating');
    mkdirSync(dataDir);
    const first = await startTestApp('postgres', { dataDir, encryptionKeys: [oldKey] });
    const databaseUrl = first.config.databaseUrl!;
    const user = await enrol(`${first.url}/api/auth`, 'admin@demo.local');
    await first.close();

    // Every instance restarts with the new key, the old one kept to open what it sealed.
    const during = await startTestApp('postgres', { databaseUrl, dataDir, encryptionKeys: [newKey, oldKey] });
    const env = { DATABASE_URL: databaseUrl, JWT_SECRET: 'j'.repeat(40), SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: newKey };
    const rotated = await cli(['rotate-secrets'], { ...env, ENCRYPTION_KEY_PREVIOUS: oldKey });
    expect(rotated.stderr).toBe(
      `Re-sealed 2 secrets with encryption key ${keyIdOf(newKey)} (ENCRYPTION_KEY): ENCRYPTION_KEY_PREVIOUS can go from every instance now\n`,
    );
    expect(rotated.status).toBe(0);
    expect((await signInWithCode(`${during.url}/api/auth`, user.email, codeOf(user.secret, 1))).status).toBe(200);
    await during.close();

    const after = await startTestApp('postgres', { databaseUrl, dataDir, encryptionKeys: [newKey] });
    closing.push(() => after.close());
    expect((await signInWithCode(`${after.url}/api/auth`, user.email, user.recoveryCodes[0]!)).status).toBe(200);
    // Run again: nothing left to re-seal.
    expect((await cli(['rotate-secrets'], env)).stderr).toBe(`Re-sealed 0 secrets with encryption key ${keyIdOf(newKey)} (ENCRYPTION_KEY)\n`);
  });
});

describe('the sealed columns', () => {
  it('are one list: the archive reads the entries and columns vault.ts names, each a column of the schema', () => {
    const tables = new Map(
      (Object.values(schema) as unknown[])
        .filter((value): value is PgTable => is(value, PgTable))
        .map((table) => {
          const config = getTableConfig(table);
          return [`${config.schema ?? 'public'}.${config.name}`, config.columns.map((c) => c.name)] as const;
        }),
    );
    expect(Object.values(SEALED_COLUMNS).map((c) => `${c.table}.${c.column}`)).toEqual([
      'auth.users.totp_secret',
      'auth.server_secrets.value',
      'auth.message_queue.vars',
    ]);
    for (const { table, column } of Object.values(SEALED_COLUMNS)) {
      expect(tables.get(table), table).toContain(column);
      expect(SEALED_ENTRIES.get(`data/${table}.ndjson`)).toBe(column);
    }
    expect(SEALED_ENTRIES.size).toBe(Object.keys(SEALED_COLUMNS).length);
  });
});
