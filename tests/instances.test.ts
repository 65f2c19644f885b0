// Issue 19, item 2 (decision 037): two server processes on one PostgreSQL and one S3 bucket behind
// nginx in round robin. Each case proves it crossed instances: the instance's own log names the
// X-Request-Id sent with the request (nginx's access log, for WebSockets).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { createPostgresDatabase } from './support/app.ts';
import { documentText, M } from './kit/index.ts';
import { stop as stopChild } from '../scripts/bench/support.ts';
import { type Cluster, type Instance, NGINX, nginxSite, startCluster } from './support/cluster.ts';
import { freePort } from './support/postgres-server.ts';

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster({ instances: 2, storage: 's3', databaseUrl: await createPostgresDatabase() });
}, 240_000);
afterAll(() => cluster?.stop());

/** A browser's cookies, kept across answers from either instance. */
class CookieJar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const [name, ...value] = pair!.split('=');
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(header) || value.join('=') === '') this.cookies.delete(name!);
      else this.cookies.set(name!, value.join('='));
    }
  }
  get header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** One request through the proxy with its own X-Request-Id; which instance answered it. */
async function send(path: string, init: RequestInit = {}, jar?: CookieJar): Promise<{ res: Response; body: Buffer; by: Instance }> {
  const id = `t-${randomUUID()}`;
  const headers = new Headers(init.headers);
  headers.set('x-request-id', id);
  if (jar?.header) headers.set('cookie', jar.header);
  const res = await fetch(`${cluster.url}${path}`, { redirect: 'manual', ...init, headers });
  const body = Buffer.from(await res.arrayBuffer());
  jar?.take(res);
  return { res, body, by: await cluster.answeredBy(id) };
}

/** The same request until the other instance answers it (round robin: at most a few tries). */
async function sendElsewhere(than: Instance, path: string, init: () => RequestInit = () => ({}), jar?: CookieJar) {
  for (let i = 0; i < 6; i++) {
    const answer = await send(path, init(), jar);
    if (answer.by !== than) return answer;
  }
  throw new Error(`${path}: only instance ${than.name} answered`);
}

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const gqlInit = (token: string, query: string, variables?: object): RequestInit => {
  const init = json({ query, variables });
  return { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${token}` } };
};
const signInForm = (email: string): RequestInit => ({
  method: 'POST',
  headers: { origin: cluster.url, 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ email, password: DEMO_PASSWORD }),
});
async function apiSession(email: string) {
  const { res, body, by } = await send('/api/auth/signin/email-password', json({ email, password: DEMO_PASSWORD }));
  expect(res.status).toBe(200);
  const session = JSON.parse(body.toString()).session;
  return { accessToken: session.accessToken as string, refreshToken: session.refreshToken as string, by };
}

describe('two instances behind nginx', () => {
  it('run as two processes with their own data directory on one database', () => {
    const [a, b] = cluster.instances;
    expect(a!.child.pid).not.toBe(b!.child.pid);
    expect(a!.dataDir).not.toBe(b!.dataDir);
    // Only the first loaded the demo workshop; the second found it in the shared database.
    expect(a!.lines.some((l) => l.msg === 'demo workshop loaded')).toBe(true);
    expect(b!.lines.some((l) => l.msg === 'demo workshop loaded')).toBe(false);
    for (const instance of cluster.instances)
      expect(instance.lines.find((l) => l.msg === 'listening')).toMatchObject({ publicUrl: cluster.url, database: 'postgres' });
  });

  it('keep a session made on one instance on the other: pages and API', async () => {
    const jar = new CookieJar();
    const signIn = await send('/sign-in', signInForm('diagnostic@demo.local'), jar);
    expect(signIn.res.status).toBe(303);
    expect(jar.header).toContain('atelier_session=');
    const page = await sendElsewhere(signIn.by, '/repair-orders', undefined, jar);
    expect(page.res.status).toBe(200);
    expect(page.body.toString()).toContain('Julien Moreau');

    const api = await apiSession('diagnostic@demo.local');
    const query = '{ repairOrdersAggregate { count } }';
    const answer = await sendElsewhere(api.by, '/graphql', () => gqlInit(api.accessToken, query));
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { repairOrdersAggregate: { count: expect.any(Number) } } });

    // The refresh token rotates on whichever instance gets it; one of them is the other's.
    let refreshToken = api.refreshToken;
    let crossed = false;
    for (let i = 0; i < 4 && !crossed; i++) {
      const refreshed = await send('/api/auth/token', json({ refreshToken }));
      expect(refreshed.res.status).toBe(200);
      refreshToken = JSON.parse(refreshed.body.toString()).refreshToken;
      crossed = refreshed.by !== api.by;
    }
    expect(crossed).toBe(true);
  });

  it('take a form post without JavaScript through the proxy and show its result from the other instance', async () => {
    const jar = new CookieJar();
    expect((await send('/sign-in', signInForm('commercial@demo.local'), jar)).res.status).toBe(303);
    const { accessToken } = await apiSession('commercial@demo.local');
    const models = JSON.parse((await send('/graphql', gqlInit(accessToken, '{ gearboxModels(limit: 1) { id } }'))).body.toString());
    const gearboxModelId = models.data.gearboxModels[0].id as string;
    const rack = `N${randomBytes(2).toString('hex').toUpperCase()}`;
    const form = (origin: string): RequestInit => ({
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ gearboxModelId, code: '', condition: 'used', rack, level: '2', addedOn: '2026-11-20', quantity: '1', comment: '' }),
    });

    // The origin check still refuses a foreign page behind the proxy.
    const foreign = await send('/add-stock', form('https://ailleurs.example'), jar);
    expect(foreign.res.status).toBe(403);
    expect(foreign.body.toString()).toContain("Requête refusée : elle ne vient pas de l'application.");

    const posted = await send('/add-stock', form(cluster.url), jar);
    expect(posted.res.status).toBe(303);
    const location = posted.res.headers.get('location')!;
    const shown = await sendElsewhere(posted.by, location, undefined, jar);
    expect(shown.res.status).toBe(200);
    expect(shown.body.toString()).toContain('1 boîte ajoutée au stock');
    const items = await send('/graphql', gqlInit(accessToken, 'query($r: String) { stockItems(rack: $r) { rack level } }', { r: rack }));
    expect(JSON.parse(items.body.toString()).data.stockItems).toEqual([{ rack, level: 2 }]);
  });

  it('serve from one instance the file uploaded through the other, byte for byte', async () => {
    const { accessToken } = await apiSession('diagnostic@demo.local');
    const bytes = Buffer.concat([
      Buffer.from('mesure;valeur\n'),
      Buffer.from(
        randomBytes(300_000)
          .toString('hex')
          .replace(/(.{60})/g, 'x;$1\n'),
      ),
    ]);
    const form = new FormData();
    form.append('bucket-id', 'measure');
    form.append('file[]', new Blob([new Uint8Array(bytes)]), 'pression-ligne.csv');
    const bearer = () => ({ headers: { authorization: `Bearer ${accessToken}` } });
    const uploaded = await send('/api/storage/files', { method: 'POST', ...bearer(), body: form });
    expect(uploaded.res.status).toBe(201);
    const { id } = JSON.parse(uploaded.body.toString()).processedFiles[0];
    // The bytes went to the bucket: no instance keeps them on its disk.
    for (const instance of cluster.instances) expect(existsSync(path.join(instance.dataDir, 'files', id))).toBe(false);
    const downloaded = await sendElsewhere(uploaded.by, `/api/storage/files/${id}`, bearer);
    expect(downloaded.res.status).toBe(200);
    expect(downloaded.body.equals(bytes)).toBe(true);

    // A link signed by one instance opens on the other (the shared secret), through the proxy.
    const link = await send(`/api/storage/files/${id}/presignedurl`, bearer());
    const { url } = JSON.parse(link.body.toString()) as { url: string };
    expect(url.startsWith(`${cluster.url}/`)).toBe(true);
    const opened = await sendElsewhere(link.by, url.slice(cluster.url.length));
    expect(opened.res.status).toBe(200);
    expect(opened.body.equals(bytes)).toBe(true);
  });

  it('update a live list open on one instance after a change made on the other', async () => {
    const { accessToken } = await apiSession('commercial@demo.local');
    const models = JSON.parse((await send('/graphql', gqlInit(accessToken, '{ gearboxModels(limit: 2) { id } }'))).body.toString());
    const modelId = models.data.gearboxModels[1].id as string;
    const rack = `L${randomBytes(2).toString('hex').toUpperCase()}`;
    const wsUrl = `${cluster.url.replace(/^http/, 'ws')}/graphql`;

    // Two terminals open the list through the proxy; each socket is tagged for nginx's log.
    const terminals = ['socket-1', 'socket-2'].map((tag) => {
      const id = `t-${tag}-${randomUUID()}`;
      // What a browser sends: its page's origin (checked by the instance behind the proxy).
      class TaggedSocket extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { origin: cluster.url, 'x-request-id': id } });
        }
      }
      const client = createClient({
        url: wsUrl,
        webSocketImpl: TaggedSocket,
        retryAttempts: 0,
        connectionParams: { headers: { Authorization: `Bearer ${accessToken}` } },
      });
      const lists: number[] = [];
      const waiters: { count: number; resolve: () => void }[] = [];
      client.subscribe<{ stockItems: { id: string }[] }>(
        { query: 'subscription($m: uuid, $r: String) { stockItems(modelId: $m, rack: $r) { id } }', variables: { m: modelId, r: rack } },
        {
          next: (value) => {
            lists.push(value.data!.stockItems.length);
            for (const w of waiters) if (w.count === value.data!.stockItems.length) w.resolve();
          },
          error: () => undefined,
          complete: () => undefined,
        },
      );
      const sees = (count: number) =>
        lists.includes(count)
          ? Promise.resolve()
          : Promise.race([
              new Promise<void>((resolve) => waiters.push({ count, resolve })),
              new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`${tag} did not see ${count} boxes within 10 s`)), 10_000)),
            ]);
      return { id, client, lists, sees };
    });
    await Promise.all(terminals.map((t) => t.sees(0)));

    // Boxes added until each instance has made one change; every terminal sees every change.
    const changedOn = new Set<Instance>();
    for (let count = 1; changedOn.size < 2 && count <= 6; count++) {
      const added = await send(
        '/graphql',
        gqlInit(accessToken, documentText(M.insertStockItems), {
          o: { gearboxModelId: modelId, condition: 'used', rack, level: 1, addedOn: '2026-11-20', quantity: 1 },
        }),
      );
      expect(JSON.parse(added.body.toString()).errors).toBeUndefined();
      changedOn.add(added.by);
      await Promise.all(terminals.map((t) => t.sees(count)));
    }
    expect(changedOn.size).toBe(2);
    for (const t of terminals) await t.client.dispose();

    // nginx logs a WebSocket when it closes: the two sockets were on the two instances, so each
    // received a change made on the other one.
    let sockets: (Instance | undefined)[] = [];
    for (let i = 0; i < 100 && sockets.filter(Boolean).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const log = cluster.nginx!.accessLog();
      sockets = terminals.map((t) => {
        const entry = log.find((e) => e.id === t.id);
        return entry && entry.status === 101 ? cluster.instanceAt(entry.upstream) : undefined;
      });
    }
    expect(sockets.every(Boolean)).toBe(true);
    expect(new Set(sockets).size).toBe(2);
  });

  it('are configured as the README says', () => {
    expect(readmeBlock('nginx')).toBe(nginxSite({ listen: ['80 default_server', '[::]:80 default_server'], upstreams: ['10.0.0.11:4321', '10.0.0.12:4321'] }));
  });

  it('log nothing at level error on either instance', () => {
    for (const instance of cluster.instances) expect(instance.errors).toEqual([]);
  });
});

/** A code block of README.md's "Several instances" section, by language. */
function readmeBlock(language: 'nginx' | 'sh'): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Several instances'), readme.indexOf('\n## ', readme.indexOf('## Several instances') + 1));
  const block = section.match(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``))?.[1];
  if (!block) throw new Error(`README.md's "Several instances" shows no ${language} block`);
  return block;
}

/**
 * Debian's /etc/nginx as the nginx package installed it, copied into a temporary directory: only
 * the absolute paths (configuration, logs, pid), the port and the upstreams are moved, in every
 * file and link, so that the README's lines run there as they would on the machine.
 */
function debianNginx(port: number, upstreams: string[]) {
  const root = mkdtempSync(path.join(tmpdir(), 'atelier-debian-nginx-'));
  // Debian's workers run as www-data: they reach the temporary files under this directory.
  chmodSync(root, 0o755);
  const etc = path.join(root, 'etc/nginx');
  const logs = path.join(root, 'log');
  mkdirSync(logs);
  const move = (text: string) =>
    text
      .replaceAll('/etc/nginx', etc)
      .replaceAll('/var/log/nginx', logs)
      .replaceAll('/run/nginx.pid', path.join(root, 'nginx.pid'))
      .replace(/\blisten (\[::\]:)?80\b/g, `listen $1${port}`)
      .replace(/\b10\.0\.0\.1(\d):4321\b/g, (_, n) => upstreams[Number(n) - 1]!);
  cpSync('/etc/nginx', etc, { recursive: true, verbatimSymlinks: true });
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (lstatSync(file).isSymbolicLink()) {
        const target = readlinkSync(file);
        rmSync(file);
        symlinkSync(move(target), file);
      } else if (lstatSync(file).isDirectory()) walk(file);
      else writeFileSync(file, move(readFileSync(file, 'utf8')));
    }
  };
  walk(etc);
  // Debian's build keeps its temporary files in /var/lib/nginx: here, in the copy's directory.
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `${temp}_temp_path ${path.join(root, temp)};`);
  writeFileSync(path.join(etc, 'conf.d/test-temporary-files.conf'), `${temps.join('\n')}\n`);
  const args = ['-e', path.join(logs, 'error.log'), '-c', path.join(etc, 'nginx.conf')];
  return {
    etc,
    move,
    /** `nginx -t` on the copy: its status and what it printed. */
    check: () => {
      const result = spawnSync(NGINX, [...args, '-t'], { encoding: 'utf8' });
      return { status: result.status, output: result.stdout + result.stderr };
    },
    /** nginx in the foreground on the copy, once it answers. */
    start: async () => {
      const child = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: 'ignore' });
      for (let tries = 0; ; tries++) {
        if (child.exitCode !== null || tries > 300) throw new Error(`nginx did not start: ${readFileSync(path.join(logs, 'error.log'), 'utf8')}`);
        try {
          await fetch(`http://127.0.0.1:${port}/`);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return child;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

describe("nginx in Debian's layout, as the README says", () => {
  it("serves the app once the README's lines have run", async () => {
    const port = await freePort();
    const nginx = debianNginx(
      port,
      cluster.instances.map((i) => i.address),
    );
    let child: ReturnType<typeof spawn> | undefined;
    try {
      writeFileSync(path.join(nginx.etc, 'sites-available/atelier'), nginx.move(readmeBlock('nginx')));
      for (const line of readmeBlock('sh').split('\n').filter(Boolean)) {
        const command = nginx.move(line);
        if (command === 'nginx -t') {
          const check = nginx.check();
          expect(check.output).toContain('test is successful');
          expect(check.status).toBe(0);
        } else if (command === 'systemctl reload nginx') child = await nginx.start();
        else {
          expect(command).toMatch(/^(ln -s|rm) /);
          execFileSync('sh', ['-c', command]);
        }
      }
      expect(child).toBeDefined();
      // Debian's default site, had it stayed, would answer here with its welcome page.
      const home = await fetch(`http://127.0.0.1:${port}/`, { headers: { host: 'atelier.example' }, redirect: 'manual' });
      expect(await home.text()).not.toContain('Welcome to nginx');
      const signIn = await fetch(`http://127.0.0.1:${port}/sign-in`, { headers: { host: 'atelier.example' } });
      const page = await signIn.text();
      expect(page).not.toContain('Welcome to nginx');
      expect(signIn.status).toBe(200);
      expect(page).toContain('<form');
      // Debian's default site listened on IPv6 too: the app's site takes that over.
      expect((await fetch(`http://[::1]:${port}/sign-in`, { headers: { host: 'atelier.example' } })).status).toBe(200);
    } finally {
      if (child) await stopChild(child);
      nginx.remove();
    }
  });

  it("fails nginx -t while Debian's default site is still enabled", async () => {
    const nginx = debianNginx(await freePort(), ['127.0.0.1:1', '127.0.0.1:2']);
    try {
      writeFileSync(path.join(nginx.etc, 'sites-available/atelier'), nginx.move(readmeBlock('nginx')));
      const enable = readmeBlock('sh')
        .split('\n')
        .find((line) => line.includes('sites-enabled/atelier'))!;
      execFileSync('sh', ['-c', nginx.move(enable)]);
      const check = nginx.check();
      expect(check.status).not.toBe(0);
      expect(check.output).toMatch(/duplicate default server/);
    } finally {
      nginx.remove();
    }
  });
});
