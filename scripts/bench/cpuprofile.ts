// Reads a V8 .cpuprofile (node --cpu-prof, or the inspector's Profiler.stop): self and total time
// by function, by module and by area of the application, as Markdown tables.

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
export type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** Where a frame's code lives, named as the issue asks: the database, SQL building, rendering… */
export function areaOf(frame: CallFrame): string {
  const { url, functionName: name } = frame;
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return 'V8/native (unattributed)';
  if (url.startsWith('wasm://') || /^(\$|wasm-function)/.test(name) || url.includes('@electric-sql/pglite')) return 'PGlite (query execution)';
  if (url.includes('/drizzle-orm/')) return 'drizzle (SQL building, row mapping)';
  if (/\/node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//.test(url)) return 'pg driver';
  if (url.includes('/node_modules/jose/') || url.includes('session.server')) return 'session/JWT';
  if (url.includes('/server/auth/')) return 'auth service';
  if (/\/node_modules\/(zod|@zod)\//.test(url)) return 'zod';
  if (url.includes('/node_modules/react') || url.includes('/node_modules/react-dom/')) return 'React SSR';
  if (url.includes('/node_modules/astro/') || url.includes('/node_modules/@astrojs/')) return 'Astro runtime';
  if (url.includes('/server/log.ts')) return 'logging';
  if (/page-budget|budget\.ts/.test(url) || /budget|withinBudget|OutOfTime/i.test(name)) return 'time budget';
  if (url.includes('/dist/server/')) return 'pages and middleware (built)';
  if (/\/node_modules\/(graphql|@pothos|graphql-yoga|@graphql-yoga|@envelop|@escape\.tech)\//.test(url)) return 'GraphQL';
  if (url.includes('/node_modules/i18next/')) return 'i18n';
  if (url.includes('/server/')) return 'services (server/)';
  if (url.includes('/src/')) return 'src (unbundled)';
  if (url.startsWith('node:') || url === '') return 'Node internals (http, streams, crypto)';
  if (url.includes('/node_modules/')) {
    const m = url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    return `other: ${m?.[1] ?? url}`;
  }
  return `other: ${url}`;
}

const short = (url: string) => {
  const file = url.replace(/^file:\/\//, '');
  return file.includes('/node_modules/') ? file.replace(/^.*\/node_modules\//, '~/') : file.replace(/^.*\/(server|src|dist|scripts)\//, '$1/');
};

/** Areas that run on behalf of their caller: their samples go to the nearest caller of another area. */
const DELEGATED = new Set(['Node internals (http, streams, crypto)', 'V8/native (unattributed)']);

const frameKey = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${short(f.url)}:${f.lineNumber + 1}`;

export type Summary = {
  /** Milliseconds of samples, idle excluded. */
  busyMs: number;
  idleMs: number;
  selfByFunction: [string, number][];
  totalByFunction: [string, number][];
  selfByModule: [string, number][];
  selfByArea: [string, number][];
  /** Self time, Node internals and native code counted to the area that called them. */
  attributedByArea: [string, number][];
  /** Inclusive time of each area: a sample counts once for every area on its stack. */
  totalByArea: [string, number][];
};

export function summarize(profile: CpuProfile): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  const selfFn = new Map<string, number>();
  const totalFn = new Map<string, number>();
  const selfModule = new Map<string, number>();
  const selfArea = new Map<string, number>();
  const totalArea = new Map<string, number>();
  const attributedArea = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  // Each sample lasts until the next one.
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(profile.samples[i]!)!;
    const area = areaOf(node.callFrame);
    if (area === 'idle') {
      idle += ms;
      continue;
    }
    busy += ms;
    add(selfFn, frameKey(node.callFrame), ms);
    add(selfModule, short(node.callFrame.url) || `(${area})`, ms);
    add(selfArea, area, ms);
    let attributed = area;
    for (let id = parent.get(node.id); DELEGATED.has(attributed) && id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName !== '(root)') attributed = DELEGATED.has(areaOf(frame)) ? attributed : areaOf(frame);
    }
    add(attributedArea, attributed, ms);
    const seenFn = new Set<string>();
    const seenArea = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(root)') continue;
      const key = frameKey(frame);
      if (!seenFn.has(key)) seenFn.add(key), add(totalFn, key, ms);
      const a = areaOf(frame);
      if (!seenArea.has(a)) seenArea.add(a), add(totalArea, a, ms);
    }
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    busyMs: busy,
    idleMs: idle,
    selfByFunction: sorted(selfFn),
    totalByFunction: sorted(totalFn),
    selfByModule: sorted(selfModule),
    selfByArea: sorted(selfArea),
    attributedByArea: sorted(attributedArea),
    totalByArea: sorted(totalArea),
  };
}

/** A summary as Markdown: shares of the busy time. */
export function printSummary(summary: Summary, top = 15): string {
  const pct = (ms: number) => `${((100 * ms) / summary.busyMs).toFixed(1)} %`;
  const table = (title: string, rows: [string, number][], n: number) =>
    [`\n${title}\n`, '| | ms | share |', '| --- | ---: | ---: |', ...rows.slice(0, n).map(([k, ms]) => `| \`${k}\` | ${ms.toFixed(0)} | ${pct(ms)} |`)].join(
      '\n',
    );
  return [
    `busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`,
    table('Self time by area', summary.selfByArea, 30),
    table('Self time by area, Node internals and native code counted to their caller', summary.attributedByArea, 30),
    table('Total time by area (a sample counts once per area on its stack)', summary.totalByArea, 30),
    table(`Top ${top} functions by self time`, summary.selfByFunction, top),
    table(`Top ${top} functions by total time`, summary.totalByFunction, 40),
    table(`Top ${top} modules by self time`, summary.selfByModule, top),
  ].join('\n');
}

if (import.meta.main) {
  const { readFileSync } = await import('node:fs');
  for (const file of process.argv.slice(2)) {
    console.log(`\n## ${file}\n`);
    console.log(printSummary(summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile), Number(process.env.TOP ?? 15)));
  }
}
