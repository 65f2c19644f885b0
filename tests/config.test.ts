import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { backupKeyOf, ConfigError, loadBackupCommandConfig, loadConfig } from '#server/config.ts';
import { clientAddressOf } from '#server/http/client-address.ts';
import { passwordPolicyError } from '#server/auth/passwords.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('configuration', () => {
  it('has defaults for the embedded mode and keeps generated secrets in DATA_DIR', () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config).toMatchObject({
      port: 4321,
      dataDir,
      publicUrl: 'http://localhost:4321',
      databaseUrl: undefined,
      accessTokenExpiresIn: 15,
      demoData: undefined,
    });
    expect(config.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(path.join(dataDir, 'secrets/jwt'), 'utf8').trim()).toBe(config.jwtSecret);
    expect(loadConfig({ DATA_DIR: dataDir }).jwtSecret).toBe(config.jwtSecret);
    expect(config.sessionSecret).not.toBe(config.jwtSecret);
  });

  it('keeps the encryption key out of the database: ENCRYPTION_KEY, or a generated key file; required with DATABASE_URL (decision 050)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atelier-config-'));
    const generated = loadConfig({ DATA_DIR: dir }).encryptionKeys;
    expect(generated).toHaveLength(1);
    expect(generated[0]!.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(path.join(dir, 'secrets/encryption'), 'utf8').trim()).toBe(generated[0]);
    expect(statSync(path.join(dir, 'secrets/encryption')).mode & 0o777).toBe(0o600);
    expect(loadConfig({ DATA_DIR: dir }).encryptionKeys).toEqual(generated);
    const [current, old] = ['n'.repeat(40), 'o'.repeat(40)];
    expect(loadConfig({ DATA_DIR: dir, ENCRYPTION_KEY: current }).encryptionKeys).toEqual([current]);
    expect(loadConfig({ DATA_DIR: dir, ENCRYPTION_KEY: current, ENCRYPTION_KEY_PREVIOUS: ` ${old} ,${current}` }).encryptionKeys).toEqual([current, old]);
    const shared = { DATABASE_URL: 'postgres://db/atelier', SESSION_SECRET: 's'.repeat(32), JWT_SECRET: 'j'.repeat(32) };
    expect(() => loadConfig(shared)).toThrow('Missing ENCRYPTION_KEY: it is required when DATABASE_URL is set');
    expect(() => loadConfig({ ...shared, ENCRYPTION_KEY: 'court' })).toThrow('Invalid ENCRYPTION_KEY: must be at least 32 characters');
    expect(() => loadConfig({ ...shared, ENCRYPTION_KEY: current, ENCRYPTION_KEY_PREVIOUS: 'court' })).toThrow(
      'Invalid ENCRYPTION_KEY_PREVIOUS: must be keys of at least 32 characters, separated by commas',
    );
    expect(() => loadConfig({ DATA_DIR: dir, ENCRYPTION_KEY_PREVIOUS: old })).toThrow(
      'Missing ENCRYPTION_KEY: ENCRYPTION_KEY_PREVIOUS names keys being replaced by it',
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the backup key out of the archives: BACKUP_KEY, or a key file the first backup makes and a restore never does (decision 051)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atelier-config-'));
    const restoring = loadBackupCommandConfig({ DATA_DIR: dir }, 'restore');
    expect(backupKeyOf(restoring, false)).toBeNull();
    const made = backupKeyOf(restoring, true)!;
    expect(made.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, 'secrets/backup')).mode & 0o777).toBe(0o600);
    expect(backupKeyOf(restoring, false)).toBe(made);
    const key = 'b'.repeat(40);
    expect(backupKeyOf(loadBackupCommandConfig({ DATA_DIR: dir, BACKUP_KEY: key }, 'backup'), true)).toBe(key);
    // db:backup on PostgreSQL: BACKUP_KEY, and no session, token or encryption secret (issue 30).
    const shared = loadBackupCommandConfig({ DATA_DIR: dir, DATABASE_URL: 'postgres://atelier@db/atelier' }, 'backup');
    expect(() => backupKeyOf(shared, true)).toThrow('Missing BACKUP_KEY: it is required when DATABASE_URL is set');
    expect(() => loadBackupCommandConfig({ DATA_DIR: dir, BACKUP_KEY: 'court' }, 'backup')).toThrow('Invalid BACKUP_KEY: must be at least 32 characters');
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends mails from MAIL_FROM, an address with or without a name', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-config-'));
    expect(loadConfig({ DATA_DIR: dataDir }).mailFrom).toBe('Atelier BVA <no-reply@atelier.local>');
    expect(loadConfig({ DATA_DIR: dataDir, MAIL_FROM: 'Garage Dupont <atelier@garage-dupont.fr>' }).mailFrom).toBe('Garage Dupont <atelier@garage-dupont.fr>');
    expect(loadConfig({ DATA_DIR: dataDir, MAIL_FROM: ' atelier@garage-dupont.fr ' }).mailFrom).toBe('atelier@garage-dupont.fr');
  });

  it('names the setting that is wrong', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/^Invalid PORT: /);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow('Invalid DATABASE_URL: must start with postgres:// or postgresql://');
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://atelier' })).toThrow(/^Invalid PUBLIC_URL/);
    expect(() => loadConfig({ JWT_SECRET: 'court' })).toThrow('Invalid JWT_SECRET: must be at least 32 characters');
    expect(() => loadConfig({ DEMO_DATA: 'oui' })).toThrow(/^Invalid DEMO_DATA/);
    expect(() => loadConfig({ MAIL_FROM: 'atelier' })).toThrow(/^Invalid MAIL_FROM: must be an e-mail address/);
    expect(() => loadConfig({ MAIL_FROM: 'Garage Dupont <atelier>' })).toThrow(/^Invalid MAIL_FROM/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/atelier', SESSION_SECRET: 's'.repeat(32) })).toThrow(
      'Missing JWT_SECRET: it is required when DATABASE_URL is set',
    );
  });

  it('reads DEMO_DATA and trims the public URL', () => {
    expect(loadConfig({ DATA_DIR: dataDir, DEMO_DATA: '0' }).demoData).toBe(false);
    expect(loadConfig({ DATA_DIR: dataDir, DEMO_DATA: '1', PUBLIC_URL: 'https://atelier.example/' }).publicUrl).toBe('https://atelier.example');
  });

  it('switches each sign-in method: what a workshop needs on, the rest off until configured (issue 18, item 8)', () => {
    expect(loadConfig({ DATA_DIR: dataDir }).authMethods).toEqual({
      emailPassword: true,
      totp: true,
      webauthn: true,
      emailLink: true,
      emailOtp: true,
      sms: false,
      anonymous: false,
      personalAccessTokens: true,
    });
    const turned = loadConfig({ DATA_DIR: dataDir, AUTH_MFA_ENABLED: 'false', AUTH_SMS_PASSWORDLESS_ENABLED: '1', AUTH_ANONYMOUS_USERS_ENABLED: 'true' });
    expect(turned.authMethods).toMatchObject({ totp: false, sms: true, anonymous: true, emailPassword: true });
    expect(() => loadConfig({ DATA_DIR: dataDir, AUTH_WEBAUTHN_ENABLED: 'oui' })).toThrow(/^Invalid AUTH_WEBAUTHN_ENABLED/);
    expect(loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'https://atelier.example' }).webauthn).toEqual({ rpId: 'atelier.example', rpName: 'Atelier BVA' });
  });
});

describe('what production refuses to start with (issue 30, item 5)', () => {
  const twilio = {
    AUTH_SMS_TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
    AUTH_SMS_TWILIO_AUTH_TOKEN: 'x'.repeat(32),
    AUTH_SMS_TWILIO_MESSAGING_SERVICE_ID: '+33612345678',
  };
  const provider = { AUTH_PROVIDERS: 'atelier', AUTH_PROVIDER_ATELIER_CLIENT_ID: 'c', AUTH_PROVIDER_ATELIER_CLIENT_SECRET: 's' };

  it('refuses SMS sign-in without a provider: the codes would reach only the outbox and the log', () => {
    const sms = { DATA_DIR: dataDir, AUTH_SMS_PASSWORDLESS_ENABLED: '1' };
    expect(() => loadConfig({ ...sms, NODE_ENV: 'production' })).toThrow(
      'Invalid AUTH_SMS_PASSWORDLESS_ENABLED: in production SMS sign-in needs a provider (AUTH_SMS_TWILIO_ACCOUNT_SID, _AUTH_TOKEN and _MESSAGING_SERVICE_ID); without one the codes only reach DATA_DIR/outbox and the log',
    );
    expect(loadConfig({ ...sms, ...twilio, NODE_ENV: 'production' }).sms.twilio?.accountSid).toBe(twilio.AUTH_SMS_TWILIO_ACCOUNT_SID);
    // Development and the tests read the codes in DATA_DIR/outbox.
    expect(loadConfig({ ...sms, NODE_ENV: 'development' }).authMethods.sms).toBe(true);
    expect(loadConfig({ ...sms, NODE_ENV: 'test' }).sms).toEqual({});
    expect(loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'production' }).authMethods.sms).toBe(false);
  });

  it('refuses an identity provider over http outside this machine, in production as elsewhere', () => {
    for (const NODE_ENV of ['production', 'development']) {
      expect(() => loadConfig({ DATA_DIR: dataDir, NODE_ENV, ...provider, AUTH_PROVIDER_ATELIER_ISSUER: 'http://sso.atelier.fr' })).toThrow(
        'Invalid AUTH_PROVIDER_ATELIER_ISSUER: must start with https://',
      );
    }
    const local = loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'production', ...provider, AUTH_PROVIDER_ATELIER_ISSUER: 'http://127.0.0.1:8080/realms/atelier' });
    expect(local.authProviders[0]!.issuer).toBe('http://127.0.0.1:8080/realms/atelier');
  });
});

describe('password policy (SPEC §5)', () => {
  it.each([
    ['court1!A', null],
    ['Abc1!', 'Minimum 8 caractères'],
    ['motdepasse1!', 'Au moins une majuscule'],
    ['MotDePasse!', 'Au moins un chiffre'],
    ['MotDePasse1', 'Au moins un caractère spécial'],
  ])('%s → %s', (password, message) => {
    expect(passwordPolicyError(password)).toBe(message);
  });
});

describe('the client address (TRUST_PROXY)', () => {
  const request = (forwarded?: string) =>
    ({ socket: { remoteAddress: '127.0.0.1' }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

  it('ignores X-Forwarded-For without TRUST_PROXY', () => {
    expect(clientAddressOf(request('203.0.113.7'), 0)).toBe('127.0.0.1');
    expect(loadConfig({ DATA_DIR: dataDir }).trustProxy).toBe(0);
  });

  it('reads the entry the trusted proxies added, never what the client wrote before them', () => {
    expect(clientAddressOf(request('203.0.113.7'), 1)).toBe('203.0.113.7');
    expect(clientAddressOf(request('6.6.6.6, 203.0.113.7'), 1)).toBe('203.0.113.7');
    expect(clientAddressOf(request('6.6.6.6, 203.0.113.7, 10.0.0.2'), 2)).toBe('203.0.113.7');
    expect(clientAddressOf(request('not-an-address'), 1)).toBe('127.0.0.1');
    expect(clientAddressOf(request(), 1)).toBe('127.0.0.1');
    expect(loadConfig({ DATA_DIR: dataDir, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(() => loadConfig({ DATA_DIR: dataDir, TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
  });
});

describe('where file bytes go (STORAGE_URL, S3_*), issue 19', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, ...env }).storage;

  it('keeps them on the local disk unless a bucket is named', () => {
    expect(load({})).toEqual({ kind: 'disk' });
  });

  it('reads a bucket from STORAGE_URL: keys, host and port, region, path style, TLS unless s3+http', () => {
    expect(load({ STORAGE_URL: 's3+http://minio:minio%2Fsecret@127.0.0.1:9000/atelier-files?region=eu-west-3&forcePathStyle=1' })).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'atelier-files',
      region: 'eu-west-3',
      credentials: { accessKeyId: 'minio', secretAccessKey: 'minio/secret' },
      forcePathStyle: true,
      presignedUrls: 'app',
      // A refusal of the bucket names STORAGE_URL, not the S3_* settings.
      fromUrl: true,
    });
    expect(load({ STORAGE_URL: 's3://K:S@garage.example/fichiers' })).toMatchObject({
      endpoint: 'https://garage.example',
      region: 'us-east-1',
      forcePathStyle: false,
    });
    // No host: AWS's own endpoint for the region, keys from the SDK's chain.
    expect(load({ STORAGE_URL: 's3:///atelier-files?region=eu-west-1' })).toMatchObject({ endpoint: undefined, credentials: undefined, region: 'eu-west-1' });
  });

  it('reads the S3_* settings', () => {
    expect(
      load({
        S3_ENDPOINT: 'http://127.0.0.1:3900/',
        S3_BUCKET: 'atelier-files',
        S3_REGION: 'garage',
        S3_ACCESS_KEY_ID: 'GK1',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_FORCE_PATH_STYLE: 'true',
        STORAGE_PRESIGNED_URLS: 'bucket',
      }),
    ).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:3900',
      bucket: 'atelier-files',
      region: 'garage',
      credentials: { accessKeyId: 'GK1', secretAccessKey: 'secret' },
      forcePathStyle: true,
      presignedUrls: 'bucket',
    });
    expect(load({ S3_BUCKET: 'atelier-files' })).toEqual({
      kind: 's3',
      endpoint: undefined,
      bucket: 'atelier-files',
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
      presignedUrls: 'app',
    });
  });

  it('names the storage setting that is wrong', () => {
    expect(() => load({ STORAGE_URL: 'https://s3.example/b' })).toThrow(/^Invalid STORAGE_URL: must start with s3:\/\//);
    expect(() => load({ STORAGE_URL: 's3://K:S@host/' })).toThrow('Invalid STORAGE_URL: its path must be a bucket name');
    expect(() => load({ STORAGE_URL: 's3://K:S@host/Mon_Seau' })).toThrow('Invalid STORAGE_URL: its path must be a bucket name');
    expect(() => load({ STORAGE_URL: 's3://K:S@host/b-1?forcePathStyle=oui' })).toThrow('Invalid STORAGE_URL: forcePathStyle is 1 or 0');
    expect(() => load({ STORAGE_URL: 's3://K:S@host/%E0b' })).toThrow('Invalid STORAGE_URL: a % must start a %XX escape');
    expect(() => load({ STORAGE_URL: 's3://K:S@host/%E0b' })).toThrow(ConfigError);
    expect(() => load({ STORAGE_URL: 's3://K:a/b@host/b-1' })).toThrow('Invalid STORAGE_URL: not a URL (write a / or @ of a key as %2F or %40)');
    expect(() => load({ STORAGE_URL: 's3://K@host/b-1' })).toThrow('Invalid STORAGE_URL: the key needs its secret (s3://KEY:SECRET@host/bucket)');
    expect(() => load({ STORAGE_URL: 's3://K:S@host/b-1', S3_REGION: 'eu' })).toThrow('Invalid S3_REGION: STORAGE_URL already says where files go');
    expect(() => load({ S3_ENDPOINT: 'http://minio:9000' })).toThrow('Missing S3_BUCKET: the S3_* settings need a bucket');
    expect(() => load({ S3_BUCKET: 'b-1', S3_ACCESS_KEY_ID: 'K' })).toThrow('Missing S3_SECRET_ACCESS_KEY: S3 keys go in pairs');
    expect(() => load({ S3_BUCKET: 'b-1', S3_SECRET_ACCESS_KEY: 'S' })).toThrow('Missing S3_ACCESS_KEY_ID: S3 keys go in pairs');
    expect(() => load({ S3_BUCKET: 'UPPER' })).toThrow(/^Invalid S3_BUCKET: must be a bucket name/);
    expect(() => load({ S3_BUCKET: 'b-1', S3_ENDPOINT: 'ftp://x' })).toThrow(/^Invalid S3_ENDPOINT/);
    expect(() => load({ S3_BUCKET: 'b-1', S3_FORCE_PATH_STYLE: 'oui' })).toThrow(/^Invalid S3_FORCE_PATH_STYLE/);
    expect(() => load({ STORAGE_PRESIGNED_URLS: 'bucket' })).toThrow('Invalid STORAGE_PRESIGNED_URLS: bucket needs files in S3 (STORAGE_URL or S3_BUCKET)');
    expect(() => load({ S3_BUCKET: 'b-1', STORAGE_PRESIGNED_URLS: 'direct' })).toThrow(/^Invalid STORAGE_PRESIGNED_URLS/);
  });
});
