// Issue 14, item 3: no request can stall the server. Costs that multiply by list sizes, a time
// budget, live subscriptions bounded per connection and per user, bodies refused before reading.
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COST } from '#server/graphql/builder.ts';
import { schema } from '#server/graphql/schema.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { graphqlAs, signInAll, type DemoRole } from './kit/index.ts';

const CANDIDATES = 'outageCandidates { outage { id component { name } outageType { name } description } similarOrders confirmedOrders dossierRate chosen }';
/** One mechanic's query of the issue: 15 aliases of 100 orders, each with its outage ranking. */
const abusive = (aliases: number, limit: number) =>
  `{ ${Array.from({ length: aliases }, (_, i) => `o${i}: repairOrders(limit: ${limit}) { id number ${CANDIDATES} }`).join(' ')} }`;

const costOf = (query: string, variables: Record<string, unknown> = {}) => complexityFromQuery(query, { schema, variables }).complexity;

describe('the cost of an operation', () => {
  it('multiplies by the list sizes, so the abusive query costs far over the limit', () => {
    expect(costOf(abusive(15, 100))).toBeGreaterThan(30 * MAX_COST);
    expect(costOf(abusive(1, 100))).toBeGreaterThan(MAX_COST);
    expect(costOf(abusive(1, 30))).toBeLessThanOrEqual(MAX_COST);
  });

  it('lets the heaviest documents of the app through', () => {
    const documents: [string, Record<string, unknown>][] = [
      // The users screen's live list, with its count.
      [
        'query($where: users_bool_exp, $limit: Int, $offset: Int) { users(where: $where, limit: $limit, offset: $offset, order_by: [{ displayName: asc }, { email: asc }]) { id displayName email defaultRole disabled emailVerified } usersAggregate(where: $where) { aggregate { count } } }',
        { limit: 15, offset: 0 },
      ],
      // The stock's CSV export, 500 boxes a page.
      [
        'query { stockItems(limit: 500) { id reference version model { id model type constructorName } doctorCode gearboxCode condition rack level addedOn outOn outReason comment } }',
        {},
      ],
      // The add-stock form: every model with its codes.
      ['query { gearboxModels(limit: 100) { id model doctorCodes { id code gearboxCodes { id code } } } stockRacks }', {}],
      // The diagnostic page of one order, with its ranking.
      [
        `query($id: uuid!) { repairOrder(id: $id) { id number faultCodes { id } symptoms { id } measures { id } curves { id } ${CANDIDATES} } diagnosticGuideHidden }`,
        { id: '00000000-0000-4000-8000-000000000000' },
      ],
    ];
    for (const [document, variables] of documents) expect(costOf(document, variables), document).toBeLessThanOrEqual(MAX_COST);
  });
});

describe('limits on the running server', () => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let tokens: Record<DemoRole, string>;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startTestApp('pglite', {
      graphqlLimits: { timeBudgetMs: 20, subscriptionsPerConnection: 3, subscriptionsPerUser: 5, maxBodyBytes: 1024 * 1024, maxAnonymousBodyBytes: 16 * 1024 },
    });
    tokens = (await signInAll(t)) as Record<DemoRole, string>;
    gql = graphqlAs(t, tokens);
  });
  afterAll(async () => {
    for (const c of clients) await c.dispose();
    await t?.close();
  });

  it('refuses the abusive query before running it, with a code and a French message', async () => {
    const res = await gql('mechanic', abusive(15, 100));
    // Refused before execution: no field ran, so there is no data key at all.
    expect(res).not.toHaveProperty('data');
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'cost-limit', maxCost: MAX_COST });
    expect(res.errors![0]!.message).toMatch(/^Requête trop coûteuse/);
  });

  it('counts the limit a variable gives, and refuses a costly live list before it starts', async () => {
    const byVariable = await gql('mechanic', `query($n: Int!) { repairOrders(limit: $n) { id ${CANDIDATES} } }`, { n: 100 });
    expect(byVariable).not.toHaveProperty('data');
    expect(byVariable.errors![0]!.extensions).toMatchObject({ code: 'cost-limit' });
    // A variable of the wrong type is the caller's error, said as such, not a cost or a crash.
    const wrong = await gql('mechanic', 'query($n: Int!) { repairOrders(limit: $n) { id } }', { n: 'cent' });
    expect(wrong.errors![0]!.extensions.code, JSON.stringify(wrong)).toBe('validation');
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { headers: { Authorization: `Bearer ${tokens.commercial}` } },
    });
    clients.push(client);
    const first = await new Promise<unknown>((resolve) => {
      client.subscribe(
        { query: 'subscription { stockItems(limit: 10000) { id model { id } } }' },
        { next: resolve, error: resolve, complete: () => undefined },
      );
    });
    expect(first).toMatchObject({ errors: [{ extensions: { code: 'cost-limit', maxCost: MAX_COST } }] });
  });

  it('refuses too deep or too many aliases with the same coded French refusal', async () => {
    const nested = (levels: number) => Array.from({ length: levels }).reduce<string>((inner) => `measures { repairOrder { ${inner} } }`, 'id');
    const tooDeep = await gql('mechanic', `{ repairOrders(limit: 1) { ${nested(4)} } }`);
    const aliases = await gql('mechanic', `{ ${Array.from({ length: 16 }, (_, i) => `o${i}: repairOrders(limit: 1) { id }`).join(' ')} }`);
    for (const res of [tooDeep, aliases]) {
      expect(res).not.toHaveProperty('data');
      expect(res.errors![0]).toMatchObject({ message: 'Requête trop imbriquée ou trop large.', extensions: { code: 'cost-limit' } });
    }
  });

  it('stops an operation past its time budget', async () => {
    const res = await gql('mechanic', abusive(1, 30));
    expect(res.errors?.[0]?.extensions.code).toBe('timeout');
    expect(res.errors![0]!.message).toMatch(/^Requête trop longue/);
    // A small one still answers, once the stopped operation's queries in flight have drained
    // (on a loaded machine the first try may itself pass 20 ms).
    await expect
      .poll(async () => (await gql('mechanic', '{ repairOrders(limit: 1) { id } }')).data?.repairOrders, { timeout: 5000, interval: 100 })
      .toHaveLength(1);
  });

  it('bounds live subscriptions per connection and per user', async () => {
    const socket = () => {
      const c = createClient({
        url: `${t.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { headers: { Authorization: `Bearer ${tokens.diagnostician}` } },
      });
      clients.push(c);
      return c;
    };
    const subscribe = (c: Client) =>
      new Promise<'data' | string>((resolve) => {
        const stop = c.subscribe(
          { query: 'subscription { stockItems(limit: 1) { id } }' },
          {
            next: () => resolve('data'),
            error: (e) => resolve((e as { extensions?: { code?: string } }[])[0]?.extensions?.code ?? String(e)),
            complete: () => undefined,
          },
        );
        stops.push(stop);
      });
    const stops: (() => void)[] = [];
    const first = socket();
    expect(await Promise.all([subscribe(first), subscribe(first), subscribe(first)])).toEqual(['data', 'data', 'data']);
    expect(await subscribe(first)).toBe('too-many-subscriptions');
    const second = socket();
    expect(await Promise.all([subscribe(second), subscribe(second)])).toEqual(['data', 'data']);
    expect(await subscribe(second)).toBe('too-many-subscriptions');
    // Ending one frees its place.
    stops[0]!();
    await new Promise((r) => setTimeout(r, 100));
    expect(await subscribe(second)).toBe('data');
  });

  it('refuses bodies over their limit before reading them, and bodies of unknown length', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const huge = JSON.stringify({ query: `{ __typename } # ${'x'.repeat(20 * 1024 * 1024)}` });
    const anonymous = await post(huge);
    expect(anonymous.status).toBe(413);
    expect((await anonymous.json()).errors[0]).toMatchObject({ extensions: { code: 'too-large' } });
    expect((await post(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(20_000)}` }))).status).toBe(413);
    expect((await post(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(20_000)}` }), { authorization: `Bearer ${tokens.mechanic}` })).status).toBe(200);
    expect((await post(huge, { authorization: `Bearer ${tokens.mechanic}` })).status).toBe(413);
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('{"query":"{ __typename }"}')), c.close()) });
    const chunked = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(411);
  });
});
