// The server as an operator starts it: `node server/main.ts` with its environment.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { postJson } from './support/app.ts';
import { freePort } from './support/postgres-server.ts';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-proc-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

type Running = { child: ChildProcess; url: string; stdout: () => string; stderr: () => string; exited: Promise<number | null> };

function run(script: string, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [path.join(root, script), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function start(env: Record<string, string> = {}, script = 'server/main.ts'): Promise<Running> {
  const port = await freePort();
  const proc = run(script, { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ...env });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return { ...proc, url };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not become ready: ${proc.stderr()}`);
}

describe('the server process', () => {
  it('stops at once with one clear line on a wrong setting', async () => {
    const bad = run('server/main.ts', { PORT: 'quatre', DATA_DIR: dataDir });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toMatch(/^atelier-bva: Invalid PORT: .+\n$/);
    const noSecret = run('server/main.ts', { DATABASE_URL: 'postgres://127.0.0.1:1/x', DATA_DIR: dataDir });
    expect(await noSecret.exited).toBe(1);
    expect(noSecret.stderr()).toBe('atelier-bva: Missing SESSION_SECRET: it is required when DATABASE_URL is set\n');
  });

  it('refuses, as npm start runs it, SMS sign-in with no provider to send the codes (issue 30)', async () => {
    const sms = run('server/start.ts', { DATA_DIR: dataDir, AUTH_SMS_PASSWORDLESS_ENABLED: '1' });
    // A server that starts anyway is stopped, not left running.
    const started = setTimeout(() => sms.child.kill('SIGKILL'), 20_000);
    expect(await sms.exited).toBe(1);
    clearTimeout(started);
    // After the build's own lines when the sources changed since the last build.
    expect(sms.stderr().split('\n').at(-2)).toBe(
      'atelier-bva: Invalid AUTH_SMS_PASSWORDLESS_ENABLED: in production SMS sign-in needs a provider (AUTH_SMS_TWILIO_ACCOUNT_SID, _AUTH_TOKEN and _MESSAGING_SERVICE_ID); without one the codes only reach DATA_DIR/outbox and the log',
    );
  });

  it('starts on a new database with the demo workshop, refuses a second process, and stops gracefully', async () => {
    const server = await start();
    const lines = server
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const demo = lines.find((l) => l.msg === 'demo workshop loaded');
    expect(demo.accounts).toEqual([
      'admin@demo.local (app_admin)',
      'diagnostic@demo.local (diagnostician)',
      'mecanicien@demo.local (mechanic)',
      'commercial@demo.local (commercial)',
    ]);
    expect(lines.find((l) => l.msg === 'listening').url).toBe(server.url.replace('127.0.0.1', '127.0.0.1'));

    const second = run('server/main.ts', { DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/already open in process \d+; stop it first\n$/);

    // A request in flight when SIGTERM arrives still gets its answer.
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = request(
        `${server.url}/api/auth/signin/email-password`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ email: 'admin@demo.local', password: DEMO_PASSWORD }), () => setTimeout(() => server.child.kill('SIGTERM'), 10));
    });
    expect(await inFlight).toBe(200);
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('"msg":"stopped"');
    expect(existsSync(path.join(dataDir, 'db.lock'))).toBe(false);
  });

  it('starts again on the existing database without loading the demo twice', async () => {
    const server = await start();
    expect(server.stdout()).not.toContain('demo workshop loaded');
    const res = await postJson(`${server.url}/api/auth/signin/email-password`, { email: 'commercial@demo.local', password: DEMO_PASSWORD });
    expect(res.status).toBe(200);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('writes a backup archive with npm run db:backup while the server is stopped', () => {
    const file = path.join(dataDir, 'backup.tar.gz');
    const result = spawnSync(process.execPath, [path.join(root, 'server/cli.ts'), 'backup', file], {
      cwd: root,
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(result.stderr).toMatch(
      new RegExp(`^Backup written to ${file} \\(\\d+ rows in \\d+ tables, \\d+ files copied from disk \\([\\d.]+ MB\\), migration \\d{4}_\\w+\\)\n$`),
    );
    expect(result.status).toBe(0);
    const list = spawnSync('tar', ['tzf', file], { encoding: 'utf8' }).stdout.split('\n');
    expect(list[0]).toBe('manifest.json');
    // Its MAC right after, under the key file the first backup made (decision 051).
    expect(list[1]).toBe('manifest.hmac');
    expect(statSync(path.join(dataDir, 'secrets/backup')).mode & 0o777).toBe(0o600);
    expect(list).toContain('data/auth.users.ndjson');
  });

  it('builds the pages when needed and serves them with npm start', { timeout: 180_000 }, async () => {
    const server = await start({}, 'server/start.ts');
    try {
      const home = await fetch(server.url, { redirect: 'manual' });
      expect(home.status).toBe(302);
      expect(home.headers.get('location')).toBe('/sign-in');
      const page = await fetch(`${server.url}/sign-in`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      expect(html).toContain('<html lang="fr"');
      expect(html).toContain('<h1 class="mb-4 text-2xl font-bold">Connexion</h1>');

      // Production (issue 14, item 9): no version headers, the schema for admins only, no suggestions.
      for (const res of [page, home, await fetch(`${server.url}/healthz`), await fetch(`${server.url}/graphql`, { method: 'POST' })]) {
        expect([...res.headers.keys()].filter((h) => /powered|^server$|version/i.test(h))).toEqual([]);
      }
      const tokenOf = async (email: string) =>
        (await postJson(`${server.url}/api/auth/signin/email-password`, { email, password: DEMO_PASSWORD })).body.session.accessToken as string;
      const ask = async (token: string, query: string) =>
        (await postJson(`${server.url}/graphql`, { query }, { authorization: `Bearer ${token}` })).body as {
          data?: any;
          errors?: { message: string; extensions: { code: string } }[];
        };
      const mechanic = await tokenOf('mecanicien@demo.local');
      const admin = await tokenOf('admin@demo.local');
      for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "users") { name } }']) {
        expect((await ask(mechanic, query)).errors![0]!.extensions.code).toBe('forbidden');
      }
      expect((await ask(admin, '{ __schema { queryType { name } } }')).data.__schema.queryType.name).toBe('Query');
      expect((await ask(mechanic, '{ __typename }')).data.__typename).toBe('Query');
      const typo = await ask(mechanic, '{ gearboxModls { id } }');
      expect(typo.errors![0]!.message).not.toMatch(/Did you mean/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
