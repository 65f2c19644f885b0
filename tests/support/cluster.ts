// Several instances as an operator runs them (issue 19, decision 037): real server processes on
// one PostgreSQL and one S3 bucket, behind Debian's nginx in round robin. Used by
// tests/instances.test.ts and by `npm run test:load`.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { rssOf, spawnServer, stop as stopChild, waitReady } from '../../scripts/bench/support.ts';
import { freePort, startEmbeddedPostgres } from './postgres-server.ts';
import { startS3Server } from './s3-server.ts';

export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/** The largest upload (200 MB) and its form (astro.config.mjs's bodySizeLimit). */
const MAX_BODY_MB = 202;

/**
 * The proxy's site, as README.md shows it for Debian's `sites-available/atelier` (what goes in
 * an `http` block): round robin over the instances, WebSocket upgrade on /graphql, the
 * X-Forwarded-* headers TRUST_PROXY=1 reads, uploads streamed through. `accessLog` is nginx's
 * log directory by default.
 */
export function nginxSite(options: { listen: string | string[]; upstreams: string[]; maxBodyMb?: number; accessLog?: string }): string {
  return `${[
    '# One JSON line per request: which instance answered which X-Request-Id.',
    `log_format instances escape=json '{"status":$status,"request":"$request","upstream":"$upstream_addr","id":"$request_tag","ms":$request_time}';`,
    `access_log ${options.accessLog ?? '/var/log/nginx/atelier.log'} instances;`,
    "# The client's X-Request-Id, or one made here: the instance logs it beside each request.",
    'map $http_x_request_id $request_tag { default $http_x_request_id; "" $request_id; }',
    '# A WebSocket upgrade goes through; other requests keep the upstream connection alive.',
    "map $http_upgrade $connection_upgrade { default upgrade; '' ''; }",
    'upstream atelier {',
    ...options.upstreams.map((u) => `  server ${u} max_fails=1 fail_timeout=5s;`),
    '  keepalive 32;',
    "  # Below the instances' own keep-alive (5 s): nginx never reuses a socket Node is closing.",
    '  keepalive_timeout 4s;',
    '}',
    'server {',
    ...[options.listen].flat().map((listen) => `  listen ${listen};`),
    `  client_max_body_size ${options.maxBodyMb ?? MAX_BODY_MB}m;`,
    '  proxy_http_version 1.1;',
    "  # The Host the browser used: PUBLIC_URL's, which the origin checks compare with.",
    '  proxy_set_header Host $http_host;',
    '  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '  proxy_set_header X-Forwarded-Proto $scheme;',
    '  proxy_set_header X-Forwarded-Host $http_host;',
    '  proxy_set_header X-Request-Id $request_tag;',
    '  proxy_set_header Upgrade $http_upgrade;',
    '  proxy_set_header Connection $connection_upgrade;',
    '  # Uploads stream to an instance as they arrive, not into a file here first.',
    '  proxy_request_buffering off;',
    '  proxy_connect_timeout 5s;',
    '  proxy_send_timeout 300s;',
    '  proxy_read_timeout 300s;',
    '  location / { proxy_pass http://atelier; }',
    '  # Live lists: a quiet socket stays open (the server sends nothing between changes).',
    '  location = /graphql { proxy_pass http://atelier; proxy_read_timeout 1h; proxy_send_timeout 1h; }',
    '}',
  ].join('\n')}\n`;
}

/**
 * A whole `nginx.conf` around the site, with its pid, logs and temporary files in `dir` (a
 * test's): nginx started by the tests and by `npm run test:load`.
 */
export function nginxConfig(options: { listen: string; upstreams: string[]; maxBodyMb?: number; dir: string; user?: string }): string {
  const inDir = (name: string) => path.join(options.dir, name);
  const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');
  return `${[
    options.user && `user ${options.user};`,
    // Round robin is per worker: one worker keeps the order strict for the tests; more are fine.
    'worker_processes 1;',
    `pid ${inDir('nginx.pid')};`,
    `error_log ${inDir('error.log')} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `  ${temp}_temp_path ${inDir(temp)};`),
    indent(nginxSite({ ...options, accessLog: inDir('access.log') })).trimEnd(),
    '}',
  ]
    .filter(Boolean)
    .join('\n')}\n`;
}

export type AccessEntry = { status: number; request: string; upstream: string; id: string; ms: number };

export type Nginx = { url: string; dir: string; config: string; pid: number; accessLog(): AccessEntry[]; stop(): Promise<void> };

/** nginx in the foreground with its own directory, in front of `upstreams` (host:port). */
export async function startNginx(upstreams: string[], options: { maxBodyMb?: number; port?: number } = {}): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'atelier-nginx-'));
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, sub));
  const port = options.port ?? (await freePort());
  // As root, nginx's workers would become `nobody`, who cannot read the test's directory.
  const config = nginxConfig({
    listen: `127.0.0.1:${port}`,
    upstreams,
    maxBodyMb: options.maxBodyMb,
    dir,
    user: process.getuid?.() === 0 ? 'root' : undefined,
  });
  const file = path.join(dir, 'nginx.conf');
  writeFileSync(file, config);
  const child = spawn(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', file, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const log = (() => {
        try {
          return readFileSync(path.join(dir, 'error.log'), 'utf8');
        } catch {
          return '';
        }
      })();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${stderr}${log}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    dir,
    config,
    pid: child.pid!,
    accessLog: () =>
      readFileSync(path.join(dir, 'access.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AccessEntry),
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Instance = {
  name: string;
  /** Its own address, bypassing the proxy. */
  url: string;
  /** host:port, as nginx's $upstream_addr names it. */
  address: string;
  dataDir: string;
  child: ChildProcess;
  /** Its log lines so far (JSON), when kept. */
  lines: Record<string, unknown>[];
  /** Log lines at level error, always kept. */
  errors: Record<string, unknown>[];
  /** Requests it logged (answered), always counted. */
  requests: number;
  rss(): number;
  /** V8's used heap in MiB, from a diagnostic report the process writes on SIGUSR2 (`heapReports`). */
  heap(): Promise<number | undefined>;
};

export type Cluster = {
  /** Where clients go: the proxy, or the one instance without a proxy. */
  url: string;
  instances: Instance[];
  nginx: Nginx | undefined;
  databaseUrl: string;
  storage: 's3' | 'disk';
  /** The instance whose log names this X-Request-Id (waits for the line, written as the answer ends). */
  answeredBy(requestId: string): Promise<Instance>;
  /** The instance nginx sent a request to, from its access log. */
  instanceAt(upstream: string): Instance | undefined;
  stop(): Promise<void>;
};

/**
 * `instances` server processes (default 2) sharing one PostgreSQL (the given database, or a new
 * embedded server), one S3 bucket, the secrets and PUBLIC_URL, with their own DATA_DIR; with files
 * on disk they share one DATA_DIR, as an operator's must (decision 057). Behind nginx unless
 * `proxy` is false (one instance reached directly).
 */
export async function startCluster(
  options: {
    instances?: number;
    proxy?: boolean;
    storage?: 's3' | 'disk';
    databaseUrl?: string;
    env?: Record<string, string>;
    keepLines?: boolean;
    heapReports?: boolean;
  } = {},
): Promise<Cluster> {
  const count = options.instances ?? 2;
  const useProxy = options.proxy ?? true;
  const storage = options.storage ?? 's3';
  const keepLines = options.keepLines ?? true;
  const cleanups: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      const postgres = await startEmbeddedPostgres('atelier-cluster-pg-');
      cleanups.push(postgres.stop);
      databaseUrl = await postgres.database('atelier');
    }
    let storageEnv: Record<string, string> = {};
    if (storage === 's3') {
      const s3 = await startS3Server();
      cleanups.push(s3.stop);
      storageEnv = s3.env;
    }
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    // nginx needs its port before the instances start (their PUBLIC_URL), and the instances'
    // ports in its configuration: the port is chosen here and nginx started after them.
    const proxyPort = useProxy ? await freePort() : undefined;
    const publicUrl = proxyPort ? `http://127.0.0.1:${proxyPort}` : `http://127.0.0.1:${ports[0]}`;
    const shared = {
      DATABASE_URL: databaseUrl,
      JWT_SECRET: randomBytes(32).toString('hex'),
      SESSION_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      PUBLIC_URL: publicUrl,
      TRUST_PROXY: useProxy ? '1' : '0',
      DEMO_DATA: '1',
      LOG_LEVEL: 'info',
      ...storageEnv,
      ...options.env,
    };
    const instances: Instance[] = [];
    let sharedDataDir: string | undefined;
    // One after the other: the first applies the migrations and loads the demo workshop.
    for (const [i, port] of ports.entries()) {
      const name = String.fromCharCode(65 + i);
      const dataDir = sharedDataDir ?? mkdtempSync(path.join(tmpdir(), `atelier-instance-${name}-`));
      if (!sharedDataDir) cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      if (storage === 'disk') sharedDataDir = dataDir;
      const reports = path.join(dataDir, `reports-${name}`);
      const reportOptions = `--report-on-signal --report-signal=SIGUSR2 --report-directory=${reports} --report-compact --report-exclude-env --report-exclude-network`;
      if (options.heapReports) mkdirSync(reports);
      const child = spawnServer(
        ['server/main.ts'],
        {
          ...shared,
          PORT: String(port),
          DATA_DIR: dataDir,
          ...(options.heapReports ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${reportOptions}`.trim() } : {}),
        },
        'pipe',
      );
      // The instance's stderr, line by line (a chunk may cut one), without Node's two lines for each heap report.
      createInterface({ input: child.stderr! }).on('line', (line) => {
        if (!/^(Writing Node\.js report to file: |Node\.js report completed)/.test(line)) process.stderr.write(`${line}\n`);
      });
      const instance: Instance = {
        name,
        url: `http://127.0.0.1:${port}`,
        address: `127.0.0.1:${port}`,
        dataDir,
        child,
        lines: [],
        errors: [],
        requests: 0,
        rss: () => rssOf(child.pid!),
        heap: async () => {
          if (!options.heapReports || child.exitCode !== null) return undefined;
          child.kill('SIGUSR2');
          for (let tries = 0; tries < 100; tries++) {
            await new Promise((r) => setTimeout(r, 20));
            const file = readdirSync(reports).find((name) => name.endsWith('.json'));
            if (!file) continue;
            // Written in one go; a report still being written fails to parse: read it again.
            try {
              const report = JSON.parse(readFileSync(path.join(reports, file), 'utf8'));
              rmSync(path.join(reports, file));
              return report.javascriptHeap.usedMemory / 1024 / 1024;
            } catch {}
          }
          return undefined;
        },
      };
      let rest = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        const text = rest + chunk.toString('utf8');
        const parts = text.split('\n');
        rest = parts.pop()!;
        for (const part of parts) {
          let line: Record<string, unknown>;
          try {
            line = JSON.parse(part);
          } catch {
            line = { level: 'error', msg: part };
          }
          if (keepLines) instance.lines.push(line);
          if (line.msg === 'request') instance.requests++;
          if (line.level === 'error') instance.errors.push(line);
        }
      });
      cleanups.push(() => (child.exitCode === null ? stopChild(child) : undefined));
      await waitReady(instance.url, child, 120_000);
      instances.push(instance);
    }
    let nginx: Nginx | undefined;
    if (proxyPort) {
      nginx = await startNginx(
        instances.map((i) => i.address),
        { port: proxyPort },
      );
      cleanups.push(nginx.stop);
    }
    const answeredBy = async (requestId: string) => {
      for (let tries = 0; tries < 250; tries++) {
        const found = instances.find((instance) => instance.lines.some((line) => line.msg === 'request' && line.id === requestId));
        if (found) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no instance logged request ${requestId}`);
    };
    return {
      url: nginx?.url ?? instances[0]!.url,
      instances,
      nginx,
      databaseUrl,
      storage,
      answeredBy,
      instanceAt: (upstream) => instances.find((i) => i.address === upstream),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
