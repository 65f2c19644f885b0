// Issue 19, item 3 (decision 036): PostgreSQL stopped under a running app. Pages answer a French
// 503 that reloads itself, the APIs a 503 with Retry-After, /readyz fails, /healthz stays up; no
// 500. When PostgreSQL is back the app works again without a restart, and a live list sends
// what changed unannounced while its LISTEN connection was away.
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browser, htmlText } from './support/browser.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';
import { signInAll, type DemoRole } from './kit/index.ts';
import { startEmbeddedPostgres } from './support/postgres-server.ts';

let postgres: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
let t: TestApp;
let tokens: Record<DemoRole, string>;
let databaseUrl: string;
beforeAll(async () => {
  postgres = await startEmbeddedPostgres();
  databaseUrl = await postgres.database('outage');
  t = await startTestApp('pglite', { databaseUrl, pages: true, production: true });
  tokens = (await signInAll(t)) as Record<DemoRole, string>;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await postgres?.stop();
});

const gql = (query: string, token = tokens.app_admin) =>
  fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('PostgreSQL stopped, then back', () => {
  it('answers 503 in French while it is away and recovers, live list included, without a restart', { timeout: 60_000 }, async () => {
    const b = browser(t.url);
    expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
    expect((await b.request('/repair-orders')).status).toBe(200);

    // A live list of users on an open socket.
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { headers: { authorization: `Bearer ${tokens.app_admin}` } },
      retryAttempts: 0,
    });
    const seen: string[][] = [];
    const failures: unknown[] = [];
    const stopLive = client.subscribe<{ users: { displayName: string }[] }>(
      { query: 'subscription { users { displayName } }' },
      { next: (r) => seen.push(r.data!.users.map((u) => u.displayName)), error: (e) => failures.push(e), complete: () => {} },
    );
    expect(await until(async () => seen.length > 0, 10_000)).toBe(true);

    // A change the app is never told of (no trigger, so no NOTIFY): only a resynchronisation shows it.
    const direct = new pg.Client({ connectionString: databaseUrl });
    await direct.connect();
    await direct.query(
      "set session_replication_role = replica; update auth.users set display_name = 'Nom changé sans annonce' where email = 'commercial@demo.local'",
    );
    await direct.end();

    const orderId = ((await (await gql('{ repairOrders(limit: 1) { id } }')).json()) as { data: { repairOrders: { id: string }[] } }).data.repairOrders[0]!.id;

    await postgres.pause();
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(503);

    const page = await b.request('/repair-orders');
    expect(page.status).toBe(503);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    const text = htmlText(await page.text());
    expect(text).toContain('Service momentanément indisponible');
    expect(text).toContain("La base de données de l'atelier ne répond pas pour l'instant.");
    // Pages that read one record say so too, rather than « introuvable ».
    for (const path of [`/repair-order/${orderId}/report`, `/repair-order/${orderId}/activity`]) {
      const one = await b.request(path);
      expect(one.status, path).toBe(503);
      expect(htmlText(await one.text()), path).toContain('Service momentanément indisponible');
    }

    // A signed-out visitor's sign-in: the form again, saying why in French, not a 500.
    const signIn = await browser(t.url).signIn('mecanicien@demo.local');
    expect(signIn.status).toBe(503);
    expect(htmlText(await signIn.text())).toContain('Service momentanément indisponible : réessayez dans quelques instants.');

    const api = await gql('{ repairOrders(limit: 1) { id } }');
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toBe('5');
    expect(((await api.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('unavailable');

    const auth = await postJson(`${t.url}/api/auth/signin/email-password`, { email: 'commercial@demo.local', password: 'Demo-Atelier-2026!' });
    expect(auth.status).toBe(503);
    expect(auth.headers.get('retry-after')).toBe('5');

    const files = await fetch(`${t.url}/api/storage/files/${crypto.randomUUID()}`, { headers: { authorization: `Bearer ${tokens.app_admin}` } });
    expect(files.status).toBe(503);

    await postgres.resume();
    const back = Date.now();
    expect(await until(async () => (await fetch(`${t.url}/readyz`)).status === 200, 15_000)).toBe(true);
    expect((await b.request('/repair-orders')).status).toBe(200);
    expect((await gql('{ repairOrders(limit: 1) { id } }')).status).toBe(200);
    // The LISTEN connection is back and the live list re-ran: the unannounced change arrives.
    expect(await until(async () => seen.at(-1)!.includes('Nom changé sans annonce'), 15_000)).toBe(true);
    const recovered = Date.now() - back;
    expect(recovered).toBeLessThan(15_000);
    expect(failures).toEqual([]);
    stopLive();
    await client.dispose();
    // Nothing answered 500 along the way.
    expect(t.logLines.filter((l) => l.msg === 'request' && l.status === 500)).toEqual([]);
  });
});
