// The model catalogue the screens' selects offer (decision 076): kept beside the embedded
// database, read at every request on PostgreSQL. Whatever the path of a change, the next page
// offers the models as they are, on the instance that made it and on another one.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, startTestApp, type TestApp } from './support/app.ts';
import { browser, htmlText } from './support/browser.ts';
import { createModel, graphqlAs, M, ok, signInAll } from './kit/index.ts';

/** A diagnostician's browser on one instance. */
async function diagnostician(t: TestApp) {
  const b = browser(t.url);
  expect((await b.signIn('diagnostic@demo.local')).status).toBe(303);
  return b;
}

/** The options of the model filter of /gearboxes, as that browser reads them. */
async function filterModels(b: ReturnType<typeof browser>): Promise<string[]> {
  const html = await (await b.request('/gearboxes')).text();
  const select = /<select id="[^"]*" name="modele"[^>]*>([\s\S]*?)<\/select>/.exec(html)![1]!;
  return [...select.matchAll(/<option value="[0-9a-f-]{36}"[^>]*>\s*([^<]*?)\s*<\/option>/g)].map((m) => m[1]!);
}

const JATCO = { model: 'Jatco JF011E', type: 'variator', constructorName: 'Jatco', startYear: 2005 } as const;

describe('the model catalogue on PGlite', () => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let reader: ReturnType<typeof browser>;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    gql = graphqlAs(t, await signInAll(t));
    reader = await diagnostician(t);
  });
  afterAll(() => t?.close());

  it('offers a model created, renamed and deleted through the API at the next page', async () => {
    expect(await filterModels(reader)).toContain('Jatco JF011E');
    const id = await createModel(gql.diagnostician, { model: 'Catalogue créé' });
    expect(await filterModels(reader)).toContain('Catalogue créé');
    ok(await gql.diagnostician(M.updateGearboxModel, { id, o: { model: 'Catalogue renommé', type: 'automatic', constructorName: 'ZF', startYear: 2010 } }));
    const renamed = await filterModels(reader);
    expect(renamed).toContain('Catalogue renommé');
    expect(renamed).not.toContain('Catalogue créé');
    ok(await gql.diagnostician(M.deleteGearboxModel, { id }));
    expect(await filterModels(reader)).not.toContain('Catalogue renommé');
  });

  it('counts, in the one read of a page, what a page past the last shows as the last', async () => {
    const html = await (await reader.request('/gearboxes?page=7')).text();
    expect(html).toMatch(/(?<!\d)9 modèles/);
    expect(html).toContain('Jatco JF011E');
    const admin = browser(t.url);
    expect((await admin.signIn('admin@demo.local')).status).toBe(303);
    const users = await (await admin.request('/users?page=9')).text();
    expect(users).toMatch(/\d+ utilisateurs/);
    expect(users).not.toMatch(/(?<!\d)0 utilisateur/);
    // The last page, said so as the other lists say it, with its users (walk14 F11).
    expect(htmlText(users)).toMatch(/La page 9 n'existe plus : la liste (compte \d+ pages, voici la dernière|tient sur une seule page)\./);
    expect(htmlText(users)).not.toContain('Aucun utilisateur ne correspond');
    // A search that finds nothing says only that, whatever page it asks (walk15 F12).
    const none = htmlText(await (await admin.request('/users?recherche=zzzz&page=3')).text());
    expect(none).toContain('Aucun utilisateur ne correspond à cette recherche.');
    expect(none).not.toContain("n'existe plus");
  });

  it("offers a model as SQL wrote it outside the services (its table's notification)", async () => {
    expect(await filterModels(reader)).toContain('Jatco JF011E');
    await t.database.db.execute(sql`update gearbox_models set model = 'Jatco JF011E (SQL)' where model = 'Jatco JF011E'`);
    const after = await filterModels(reader);
    expect(after).toContain('Jatco JF011E (SQL)');
    expect(after).not.toContain('Jatco JF011E');
    await t.database.db.execute(sql`update gearbox_models set model = 'Jatco JF011E' where model = 'Jatco JF011E (SQL)'`);
    expect(await filterModels(reader)).toContain('Jatco JF011E');
  });
});

describe('the model catalogue on two instances of one PostgreSQL', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const databaseUrl = await createPostgresDatabase(18, { migrated: true });
    const secrets = {
      jwtSecret: randomBytes(32).toString('hex'),
      sessionSecret: randomBytes(32).toString('hex'),
      encryptionKeys: [randomBytes(32).toString('hex')],
    };
    a = await startTestApp('postgres', { pages: true, databaseUrl, ...secrets });
    // Instances on one database share their files' home.
    b = await startTestApp('postgres', { pages: true, databaseUrl, ...secrets, dataDir: a.config.dataDir });
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('offers on one instance the model another instance renamed, at once', async () => {
    const gql = graphqlAs(a, await signInAll(a));
    const reader = await diagnostician(b);
    expect(await filterModels(reader)).toContain('Jatco JF011E');
    const [jatco] = ok(await gql.diagnostician('{ gearboxModels(search: "JF011E") { id } }')).gearboxModels as { id: string }[];
    ok(await gql.diagnostician(M.updateGearboxModel, { id: jatco!.id, o: { ...JATCO, model: 'Jatco JF011E (A)' } }));
    const seen = await filterModels(reader);
    expect(seen).toContain('Jatco JF011E (A)');
    expect(seen).not.toContain('Jatco JF011E');
  });
});
