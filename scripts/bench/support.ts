// What every bench section shares: ports, the server as a child process, timing, the API.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEMO_PASSWORD = 'Demo-Atelier-2026!';

export { freePort, startEmbeddedPostgres } from '../../tests/support/postgres-server.ts';

export const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
export const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Durations of `runs` sequential calls, after `warmup` calls that are not kept. */
export async function timed(runs: number, warmup: number, call: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const t0 = performance.now();
    await call();
    if (i >= warmup) samples.push(performance.now() - t0);
  }
  return samples;
}
export const rssOf = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;

export function spawnServer(script: string[], env: Record<string, string>, stderr: 'inherit' | 'pipe' = 'inherit'): ChildProcess {
  // Served as `npm start` serves: NODE_ENV=production, so React renders with its production
  // build (+30 % requests per second on /gearboxes). A bench holds one token for minutes:
  // longer than the 15 s default.
  return spawn(process.execPath, script, {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', HOST: '127.0.0.1', AUTH_ACCESS_TOKEN_EXPIRES_IN: '3600', ...env },
    stdio: ['ignore', 'pipe', stderr],
  });
}

export async function waitReady(url: string, child: ChildProcess, timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited');
    if (performance.now() > deadline) throw new Error(`server not ready within ${timeoutMs / 1000} s`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export async function post(url: string, body: unknown): Promise<{ ms: number; json: any }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  const elapsed = performance.now() - t0;
  if (!res.ok && res.status !== 401) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return { ms: elapsed, json };
}

/** The session cookie a browser gets from the sign-in form. */
export async function sessionCookie(url: string, email: string): Promise<string> {
  const res = await fetch(`${url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: DEMO_PASSWORD }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('atelier_session='));
  if (!cookie) throw new Error(`no session for ${email}`);
  return cookie.split(';')[0]!;
}

export async function signInToken(url: string, email = 'admin@demo.local', password = DEMO_PASSWORD): Promise<string> {
  const res = await post(`${url}/api/auth/signin/email-password`, { email, password });
  return res.json.session.accessToken;
}

export async function gql(url: string, token: string, query: string, variables?: object): Promise<any> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const json = await res.json();
  if (json.errors) throw new Error(JSON.stringify(json.errors));
  return json.data;
}

/** The demo orders a bench reads: one in diagnosis, one following its procedure, one closed. */
export async function benchOrders(url: string, token: string) {
  const orders = (await gql(url, token, '{ repairOrders(limit: 100) { id status validatedAt diagnosticStep } }')).repairOrders as {
    id: string;
    status: string;
    validatedAt: string | null;
    diagnosticStep: number;
  }[];
  const order = orders.find((o) => o.status === 'IN_PROGRESS' && o.diagnosticStep >= 2) ?? orders[0]!;
  const followed = orders.find((o) => o.status === 'IN_PROGRESS' && o.validatedAt) ?? order;
  const closed = orders.find((o) => o.status === 'CLOSED') ?? order;
  return { order, followed, closed };
}
