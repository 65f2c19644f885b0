// The report PDF beside other requests (walk12 F4, decision 080): `concurrent` PDFs asked at once
// while /healthz is asked every 20 ms, as a supervisor would, until the last PDF has come.
import { pct } from './support.ts';

export type PdfsWithHealth = {
  /** /healthz answers while the PDFs were drawn, in ms. */
  health: number[];
  /** PDFs answered per second over the run. */
  pdfsPerSecond: number;
  /** Statuses of the PDFs' answers, counted. */
  statuses: Record<number, number>;
};

export async function healthWhilePdfs(url: string, cookie: string, ids: string[], concurrent = 16, everyMs = 20): Promise<PdfsWithHealth> {
  const statuses: Record<number, number> = {};
  let done = false;
  const t0 = performance.now();
  const pdfs = Promise.all(
    Array.from({ length: concurrent }, async (_, i) => {
      const res = await fetch(`${url}/repair-order/${ids[i % ids.length]}/report.pdf`, { headers: { cookie } });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }),
  ).finally(() => (done = true));
  // As a supervisor asks: on its own clock, whether the previous answer came or not.
  const asked: Promise<number>[] = [];
  while (!done) {
    const start = performance.now();
    asked.push(fetch(`${url}/healthz`).then(async (res) => (await res.text(), performance.now() - start)));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  await pdfs;
  const elapsed = performance.now() - t0;
  return { health: await Promise.all(asked), pdfsPerSecond: concurrent / (elapsed / 1000), statuses };
}

export const healthLine = (run: PdfsWithHealth) =>
  `/healthz p50 ${pct(run.health, 50).toFixed(1)} ms, p99 ${pct(run.health, 99).toFixed(1)} ms, max ${Math.max(...run.health).toFixed(1)} ms (${run.health.length} asked); ${run.pdfsPerSecond.toFixed(2)} PDFs/s; answers ${Object.entries(
    run.statuses,
  )
    .map(([status, n]) => `${status} × ${n}`)
    .join(', ')}`;
