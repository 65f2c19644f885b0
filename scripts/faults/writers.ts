// The client of `npm run test:faults`: four writers through the public APIs (orders, checkpoint
// answers, stock moves, uploads), each recording what it sent and what the server acknowledged
// (2xx with an id), then checking it all against the server after the crashes.
import { createHash, randomBytes } from 'node:crypto';
import { checkpointsOf, createOrderOnTheFloor, createStockItems } from '../../tests/kit/builders.ts';
import { M } from '../../tests/kit/documents.ts';
import { type Api, apiOver, type Document, type GqlResult, ok, postGraphql } from '../../tests/kit/graphql.ts';
import { pdf } from '../../tests/support/fixtures.ts';

export type Kind = 'orders' | 'checkpoints' | 'stock' | 'uploads';
export const KINDS: Kind[] = ['orders', 'checkpoints', 'stock', 'uploads'];

const TIMEOUT_MS = 15_000;

/** The writers' client: the kit's typed API (`api`), and `gql` for the writes whose HTTP status counts. */
export type Client = {
  url: string;
  token: string;
  api: Api;
  gql: <Result, Variables>(document: Document<Result, Variables>, variables: Variables) => Promise<{ status: number; body: GqlResult<Result> }>;
};

export function api(url: string, token: string): Client {
  return {
    url,
    token,
    api: apiOver(url, token, { timeoutMs: TIMEOUT_MS }),
    gql: (document, variables) => postGraphql(url, token, document, variables, { timeoutMs: TIMEOUT_MS }),
  };
}

/** What the writers work on: an order with checkpoints to answer, boxes to move. */
export type Fixture = { modelId: string; orderId: string; checkpoints: string[]; stockItems: string[] };

export async function prepare(client: Client, label: string): Promise<Fixture> {
  const { modelId, orderId } = await createOrderOnTheFloor(client.api, {
    model: { model: `Pannes ${label}` },
    procedure: {
      name: 'Remplacement mécatronique',
      steps: ['Déposer', 'Reposer'],
      checkpoints: Array.from({ length: 12 }, (_, i) => ({ name: `Contrôle ${i + 1}` })),
    },
    order: { number: `PANNES-${label}`, openedOn: '2026-11-20', interventionCategory: 'complete_car' },
  });
  const checkpoints = (await checkpointsOf(client.api, orderId)).map((c) => c.id);
  const stockItems = await createStockItems(client.api, {
    gearboxModelId: modelId,
    condition: 'used',
    rack: 'P1',
    level: 1,
    addedOn: '2026-11-20',
    quantity: 12,
  });
  return { modelId, orderId, checkpoints, stockItems };
}

/** One write: what was sent (`value`), and whether the server acknowledged it. */
type Write = { seq: number; target: string; value: string; acked: boolean };

export class Ledger {
  private seq = 0;
  readonly writes: Record<Kind, Write[]> = { orders: [], checkpoints: [], stock: [], uploads: [] };
  /** Versions known for the rows updated in place (checkpoints, boxes). */
  private readonly versions = new Map<string, number>();
  /** Upload id → sha256 of the bytes sent. */
  readonly uploadHashes = new Map<string, string>();
  errors = 0;

  private readonly label: string;
  constructor(label: string) {
    this.label = label;
  }

  acked(kind: Kind) {
    return this.writes[kind].filter((w) => w.acked).length;
  }

  /** Writes of one kind in a loop until `stopped()`; a failed call (server killed) ends it. */
  async write(kind: Kind, client: Client, fixture: Fixture, stopped: () => boolean): Promise<void> {
    let i = 0;
    while (!stopped()) {
      try {
        await this.once(kind, client, fixture, i++);
      } catch {
        this.errors += 1;
        // The server is going down or restarting: the cycle ends.
        return;
      }
    }
  }

  private async once(kind: Kind, client: Client, fixture: Fixture, i: number) {
    const seq = ++this.seq;
    if (kind === 'orders') {
      const value = `${this.label}-${seq}`;
      const write: Write = { seq, target: '', value, acked: false };
      this.writes.orders.push(write);
      const res = await client.gql(M.insertRepairOrder, {
        o: { number: `F-${value}`, openedOn: '2026-11-21', interventionCategory: 'gearbox_only', gearboxModelId: fixture.modelId, comment: `écrit ${value}` },
      });
      const id = res.body.data?.insertRepairOrder;
      if (res.status === 200 && typeof id === 'string') Object.assign(write, { target: id, acked: true });
      else throw new Error(JSON.stringify(res.body));
    } else if (kind === 'checkpoints' || kind === 'stock') {
      const targets = kind === 'checkpoints' ? fixture.checkpoints : fixture.stockItems;
      const target = targets[i % targets.length]!;
      const version = this.versions.get(target) ?? (await this.refreshVersions(kind, client, fixture), this.versions.get(target)!);
      const value = kind === 'checkpoints' ? `réponse ${seq}` : `F${seq}`;
      const write: Write = { seq, target, value, acked: false };
      this.writes[kind].push(write);
      const res =
        kind === 'checkpoints'
          ? await client.gql(M.answerOrderCheckpoint, { id: target, v: version, o: { checkResult: 'ok', comment: value } })
          : await client.gql(M.moveStockItem, {
              id: target,
              v: version,
              r: value,
              l: 1 + (seq % 9),
            });
      const data = res.body.data;
      if (res.status === 200 && data && !res.body.errors) {
        write.acked = true;
        this.versions.set(target, version + 1);
      } else if (res.body.errors?.[0]?.extensions?.code === 'conflict') {
        // A write the server committed without answering (killed just after): versions moved on.
        this.versions.delete(target);
      } else throw new Error(JSON.stringify(res.body));
    } else {
      const value = `${this.label}-${seq}-${randomBytes(8).toString('hex')}`;
      const bytes = pdf(value);
      const write: Write = { seq, target: '', value, acked: false };
      this.writes.uploads.push(write);
      const form = new FormData();
      form.append('bucket-id', 'documents');
      form.append('file[]', new Blob([new Uint8Array(bytes)]), `panne-${seq}.pdf`);
      const res = await fetch(`${client.url}/api/storage/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.token}` },
        body: form,
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await res.json()) as { processedFiles?: { id: string }[] };
      const id = body.processedFiles?.[0]?.id;
      if (res.status === 201 && id) {
        Object.assign(write, { target: id, acked: true });
        this.uploadHashes.set(id, createHash('sha256').update(bytes).digest('hex'));
      } else throw new Error(JSON.stringify(body));
    }
  }

  private async refreshVersions(kind: Kind, client: Client, fixture: Fixture) {
    if (kind === 'checkpoints') {
      for (const c of await checkpointsOf(client.api, fixture.orderId)) this.versions.set(c.id, c.version);
    } else {
      for (const id of fixture.stockItems) {
        this.versions.set(id, ok(await client.api('query($id: uuid!) { stockItem(id: $id) { version } }', { id })).stockItem.version);
      }
    }
  }

  /**
   * Every acknowledged write is there: an inserted order or file as sent; a row updated in
   * place holds its last acknowledged value, or a later one sent but not acknowledged (the
   * server may commit a write it was killed before answering). Returns the lost writes.
   */
  async verify(client: Client, fixture: Fixture): Promise<Record<Kind, string[]>> {
    const lost: Record<Kind, string[]> = { orders: [], checkpoints: [], stock: [], uploads: [] };
    for (const w of this.writes.orders.filter((x) => x.acked)) {
      const order = ok(await client.api('query($id: uuid!) { repairOrder(id: $id) { number comment } }', { id: w.target })).repairOrder;
      if (order?.number !== `F-${w.value}`.toUpperCase() || order.comment !== `écrit ${w.value}`) lost.orders.push(`${w.value}: ${JSON.stringify(order)}`);
    }
    const finalCheckpoints = new Map((await checkpointsOf(client.api, fixture.orderId)).map((c) => [c.id, c.comment]));
    const finalRacks = new Map<string, string>();
    for (const id of fixture.stockItems) finalRacks.set(id, ok(await client.api('query($id: uuid!) { stockItem(id: $id) { rack } }', { id })).stockItem.rack);
    for (const [kind, finals] of [
      ['checkpoints', finalCheckpoints],
      ['stock', finalRacks],
    ] as const) {
      const byTarget = Map.groupBy(this.writes[kind], (w) => w.target);
      for (const [target, writes] of byTarget) {
        const lastAcked = writes.findLast((w) => w.acked);
        if (!lastAcked) continue;
        const allowed = new Set(writes.filter((w) => w.seq >= lastAcked.seq).map((w) => w.value));
        if (!allowed.has(finals.get(target) ?? '')) lost[kind].push(`${target}: ${lastAcked.value} → ${finals.get(target)}`);
      }
    }
    for (const w of this.writes.uploads.filter((x) => x.acked)) {
      const res = await fetch(`${client.url}/api/storage/files/${w.target}`, { headers: { authorization: `Bearer ${client.token}` } });
      const hash = res.ok
        ? createHash('sha256')
            .update(Buffer.from(await res.arrayBuffer()))
            .digest('hex')
        : '';
      if (hash !== this.uploadHashes.get(w.target)) lost.uploads.push(w.target);
    }
    return lost;
  }
}
