// `npm run test:faults` (issue 19, item 3; decision 036): the real server (node server/main.ts),
// on PostgreSQL and on PGlite, killed with SIGKILL at random moments while a client writes
// through the public APIs, restarted each time; then every acknowledged write is checked, and
// stored files against their rows. Then SIGTERM's drain and a PostgreSQL outage. Prints the
// figures; exits 1 when a write is lost or a file orphaned.
// FAULT_CYCLES_PG (100) and FAULT_CYCLES_PGLITE (30) set the number of kills.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '#server/build.ts';
import { openDatabase } from '#server/db/client.ts';
import { files } from '#server/db/schema/index.ts';
import { HOME_MARKER } from '#server/storage/home.ts';
import { freePort, pct, signInToken, spawnServer, waitReady } from './bench/support.ts';
import { startEmbeddedPostgres } from '../tests/support/postgres-server.ts';
import { api, KINDS, Ledger, prepare, type Kind } from './faults/writers.ts';

const CYCLES = { postgres: Number(process.env.FAULT_CYCLES_PG ?? 100), pglite: Number(process.env.FAULT_CYCLES_PGLITE ?? 30) };
/** A kill lands 0.2 s to 2.5 s after the server is ready again. */
const KILL_AFTER_MS = [200, 2_500] as const;

type DatabaseKind = keyof typeof CYCLES;
const failures: string[] = [];
const ms = (v: number) => `${Math.round(v)} ms`;

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Rows without bytes, and bytes (files and thumbnails) no row claims, read from the database itself. */
async function storedFiles(kind: DatabaseKind, dataDir: string, databaseUrl?: string) {
  const database = await openDatabase({ dataDir, databaseUrl });
  try {
    const rows = new Set((await database.db.select({ id: files.id }).from(files)).map((r) => r.id));
    const root = path.join(dataDir, 'files');
    const keys = [
      ...readdirSync(root, { withFileTypes: true })
        // The home's marker (decision 057) is no file's bytes.
        .filter((e) => e.isFile() && e.name !== HOME_MARKER)
        .map((e) => e.name),
      ...readdirSync(path.join(root, 'thumbnails')).map((name) => `thumbnails/${name}`),
    ];
    // Staged bytes (an upload or a replacement cut short) are settled by the next start's sweep.
    const claimed = (key: string) => rows.has(/([0-9a-f-]{36})/.exec(key)?.[1] ?? '') && !key.includes('.staged.');
    return {
      kind,
      rows: rows.size,
      rowsWithoutBytes: [...rows].filter((id) => !existsSync(path.join(root, id)) && !keys.some((key) => key.startsWith(`${id}.staged.`))),
      bytesWithoutRow: keys.filter((key) => !claimed(key)),
    };
  } finally {
    await database.close();
  }
}

async function crashCycles(kind: DatabaseKind) {
  const dataDir = mkdtempSync(path.join(tmpdir(), `atelier-faults-${kind}-`));
  const postgres = kind === 'postgres' ? await startEmbeddedPostgres('atelier-faults-pg-') : null;
  const databaseUrl = postgres ? await postgres.database('faults') : undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: url,
    AUTH_RATE_LIMIT_FACTOR: '1000',
    ...(databaseUrl
      ? {
          DATABASE_URL: databaseUrl,
          DEMO_DATA: '1',
          SESSION_SECRET: randomBytes(32).toString('hex'),
          JWT_SECRET: randomBytes(32).toString('hex'),
          ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        }
      : {}),
  };
  const start = async (extra: Record<string, string> = {}) => {
    const t0 = performance.now();
    const child = spawnServer(['server/main.ts'], { ...env, ...extra });
    child.stdout!.resume();
    await waitReady(url, child);
    return { child, readyMs: performance.now() - t0 };
  };
  let child: ChildProcess | undefined;
  try {
    ({ child } = await start());
    // One sign-in for the whole run: tokens outlive restarts (AUTH_ACCESS_TOKEN_EXPIRES_IN=3600).
    const client = api(url, await signInToken(url, 'diagnostic@demo.local'));
    const fixture = await prepare(client, `${kind}-${Date.now()}`);
    const ledger = new Ledger(kind);
    const readyTimes: number[] = [];
    const started = performance.now();
    for (let cycle = 1; cycle <= CYCLES[kind]; cycle++) {
      let stopped = false;
      const writers = KINDS.map((k) => ledger.write(k, client, fixture, () => stopped));
      await new Promise((r) => setTimeout(r, KILL_AFTER_MS[0] + Math.random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0])));
      child!.kill('SIGKILL');
      await exited(child!);
      stopped = true;
      await Promise.all(writers);
      const next = await start();
      child = next.child;
      readyTimes.push(next.readyMs);
      if (cycle % 10 === 0) process.stderr.write(`  ${kind}: ${cycle}/${CYCLES[kind]} cycles\n`);
    }
    const cyclesMs = performance.now() - started;
    child.kill('SIGKILL');
    await exited(child);

    // What the last crash left, before any sweep: a row without bytes would be a lost file.
    const afterCrash = await storedFiles(kind, dataDir, databaseUrl);
    // Started with no grace period, the sweep takes the bytes that crashes left without a row.
    ({ child } = await start({ STORAGE_ORPHAN_GRACE_MINUTES: '0' }));
    const lost = await ledger.verify(client, fixture);
    const leftover = () => afterCrash.bytesWithoutRow.some((key) => existsSync(path.join(dataDir, 'files', key)));
    for (let i = 0; i < 100 && leftover(); i++) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    const code = await exited(child);
    const swept = await storedFiles(kind, dataDir, databaseUrl);
    return { kind, cycles: CYCLES[kind], cyclesMs, ledger, lost, readyTimes, afterCrash, swept, sigtermExit: code };
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(result: Awaited<ReturnType<typeof crashCycles>>) {
  const { kind, ledger, lost, readyTimes, afterCrash, swept } = result;
  console.log(
    `\n## ${kind === 'postgres' ? 'PostgreSQL' : 'PGlite (DATA_DIR on disk)'}: ${result.cycles} SIGKILL cycles in ${(result.cyclesMs / 1000).toFixed(0)} s`,
  );
  console.log('| writes | sent | acknowledged | lost |');
  console.log('|---|---|---|---|');
  for (const k of KINDS as Kind[]) console.log(`| ${k} | ${ledger.writes[k].length} | ${ledger.acked(k)} | ${lost[k].length} |`);
  const totalLost = KINDS.reduce((n, k) => n + lost[k].length, 0);
  console.log(`Acknowledged ${KINDS.reduce((n, k) => n + ledger.acked(k), 0)}, lost ${totalLost}.`);
  console.log(`Restart to ready (spawn → /readyz 200): p50 ${ms(pct(readyTimes, 50))}, p95 ${ms(pct(readyTimes, 95))}, max ${ms(Math.max(...readyTimes))}.`);
  console.log(
    `Files: ${afterCrash.rows} rows; after the last crash ${afterCrash.rowsWithoutBytes.length} rows without bytes, ${afterCrash.bytesWithoutRow.length} bytes without a row (a crash between bytes and commit); after the start's sweep ${swept.rowsWithoutBytes.length} and ${swept.bytesWithoutRow.length}.`,
  );
  console.log(`The database opened after the crashes; the last SIGTERM exited ${result.sigtermExit}.`);
  for (const k of KINDS) for (const item of lost[k].slice(0, 5)) console.log(`  LOST ${k}: ${item}`);
  if (totalLost) failures.push(`${kind}: ${totalLost} acknowledged writes lost`);
  const orphans = afterCrash.rowsWithoutBytes.length + swept.rowsWithoutBytes.length + swept.bytesWithoutRow.length;
  if (orphans) failures.push(`${kind}: ${orphans} orphan files (${[...afterCrash.rowsWithoutBytes, ...swept.bytesWithoutRow].slice(0, 3).join(', ')})`);
  if (result.sigtermExit !== 0) failures.push(`${kind}: SIGTERM exited ${result.sigtermExit}`);
}

async function main() {
  ensureBuilt();
  console.log(`# Faults (node ${process.version}): SIGKILL at random moments while writing, SIGTERM drain, PostgreSQL outage`);
  const { drainCheck, outageCheck } = await import('./faults/checks.ts');
  const t0 = performance.now();
  for (const kind of ['postgres', 'pglite'] as const) {
    if (CYCLES[kind] > 0) report(await crashCycles(kind));
  }
  const drain = await drainCheck();
  console.log(`\n## SIGTERM drain\n${drain.lines.join('\n')}`);
  failures.push(...drain.failures);
  const outage = await outageCheck();
  console.log(`\n## PostgreSQL stopped for ${outage.outageSeconds} s, then started\n${outage.lines.join('\n')}`);
  failures.push(...outage.failures);
  console.log(`\nTotal ${((performance.now() - t0) / 60_000).toFixed(1)} min.`);
  if (failures.length) {
    console.log(`\nFAILED:\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
  console.log('\nNo acknowledged write lost, no orphan file, drain and outage as expected.');
}

await main();
