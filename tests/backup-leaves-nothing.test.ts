// A backup or a restore that cannot go on leaves the machine as it found it (issue 29's
// finishing round): a backup asked of a DATA_DIR with no database says so in one line and makes
// none; a restore stopped before its first row leaves no fresh DATA_DIR behind.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { writeBackup } from '#server/backup/dump.ts';
import { restoreBackup } from '#server/backup/restore.ts';
import { loadConfig } from '#server/config.ts';
import { startTestApp } from './support/app.ts';

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(tmpdir(), 'atelier-nothing-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const BACKUP_KEY = 'b'.repeat(40);
const ENCRYPTION_KEY = 'k'.repeat(40);

/** The real CLI, as an operator runs it. */
function cli(args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [path.join(root, 'server/cli.ts'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, stderr })));
}

describe('a backup or restore that cannot go on', { timeout: 120_000 }, () => {
  it('refuses to back up a DATA_DIR without a database, in one line, and creates nothing', async () => {
    const absent = path.join(work, 'never-started');
    const target = path.join(work, 'out', 'nothing.tar.gz');
    const result = await cli(['backup', target], { DATA_DIR: absent });
    expect(result.stderr).toBe(`atelier-bva: No database in ${path.join(absent, 'db')}: nothing to back up (is DATA_DIR right?)\n`);
    expect(result.status).toBe(1);
    expect(existsSync(absent)).toBe(false);
    expect(existsSync(path.join(work, 'out'))).toBe(false);

    const empty = path.join(work, 'empty');
    mkdirSync(empty);
    expect((await cli(['backup'], { DATA_DIR: empty })).status).toBe(1);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('leaves no fresh DATA_DIR behind when its staging directory cannot be made', async () => {
    const source = await startTestApp('pglite', { encryptionKeys: [ENCRYPTION_KEY], backupKey: BACKUP_KEY });
    const archive = path.join(work, 'demo.tar.gz');
    try {
      const out = createWriteStream(archive);
      await writeBackup(source.database, { dataDir: source.config.dataDir, storage: source.config.storage, backupKey: BACKUP_KEY }, out);
      await finished(out);
    } finally {
      await source.close();
    }
    // A DATA_DIR whose path is just short enough to be made, too long for anything inside it.
    let dataDir = path.join(work, 'deep');
    while (dataDir.length < 4080) dataDir = path.join(dataDir, 'd'.repeat(Math.min(200, 4080 - dataDir.length)));
    const config = loadConfig({ BACKUP_KEY, ENCRYPTION_KEY, JWT_SECRET: 'j'.repeat(40), SESSION_SECRET: 's'.repeat(40) }, { dataDir });
    await expect(restoreBackup(archive, config)).rejects.toThrow(/^The restore failed and wrote nothing: .*ENAMETOOLONG/);
    expect(existsSync(dataDir)).toBe(false);
  });
});
