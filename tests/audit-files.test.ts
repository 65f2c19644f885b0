// The storage API's own writes in the audit trail (issue 19, item 5; decision 034): a file
// replaced or deleted through /api/storage changes what a dossier's document or an order's file
// holds, or takes it away (foreign keys cascade). Each is recorded on that document or order
// file, by the request's viewer, in the file row's transaction: an event refused keeps the file.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '#server/db/client.ts';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { createModel, createOrder, demoEmails, type DemoRole, graphqlAs, M, ok, signInAll } from './kit/index.ts';

type Event = {
  action: string;
  entityKind: string;
  entityLabel: string;
  actorEmail: string | null;
  parentKind: string;
  parentLabel: string;
  changes: unknown[];
};
const EVENTS = `query($s: audit_scope!) {
  auditEvents(scope: $s, limit: 500) { actorEmail action entityKind entityLabel parentKind parentLabel changes { field before after } }
}`;

describe.each(databaseKinds)('files changed through the storage API, in the audit trail on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let tokens: Record<DemoRole, string>;
  const people = { app_admin: { email: demoEmails.app_admin }, diagnostician: { email: demoEmails.diagnostician } };

  beforeAll(async () => {
    t = await startTestApp(kind);
    tokens = await signInAll(t);
    gql = graphqlAs(t, tokens);
  });
  afterAll(() => t?.close());

  const eventsOf = async (scope: Record<string, string>) => ok(await gql('app_admin', EVENTS, { s: scope })).auditEvents as Event[];
  const unique = (prefix: string) => `${prefix}-${kind.toUpperCase()}`;

  const storageApi = () => `${t.url}/api/storage/files`;
  const form = (name: string, body: string, bucket?: string) => {
    const data = new FormData();
    data.append('file[]', new Blob([body]), name);
    data.append('metadata[]', new Blob([JSON.stringify({ name })], { type: 'application/json' }), '');
    if (bucket) data.append('bucket-id', bucket);
    return data;
  };
  const upload = async (role: DemoRole, name: string, body: string, bucket: string): Promise<string> => {
    const res = await fetch(storageApi(), { method: 'POST', body: form(name, body, bucket), headers: { authorization: `Bearer ${tokens[role]}` } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
  };
  const replaceFile = async (role: DemoRole, id: string, name: string, body: string) =>
    (await fetch(`${storageApi()}/${id}`, { method: 'PUT', body: form(name, body), headers: { authorization: `Bearer ${tokens[role]}` } })).status;
  const deleteFile = async (role: DemoRole, id: string) =>
    (await fetch(`${storageApi()}/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${tokens[role]}` } })).status;

  it('records a file replaced or deleted through the storage API on the dossier or the order that held it, by who did it', async () => {
    const model = unique('Audit fichiers');
    const modelId = await createModel(gql.diagnostician, { model });
    const fileId = await upload('diagnostician', 'plan.csv', 'a;b\n1;2\n', 'documents');
    ok(
      await gql('diagnostician', M.insertGearboxDocument, {
        o: { gearboxModelId: modelId, fileId, category: 'gearbox_technical_drawing', title: 'Plan de coupe' },
      }),
    );
    expect(await replaceFile('app_admin', fileId, 'plan-v2.csv', 'a;b\n3;4\n')).toBe(200);
    expect(await deleteFile('app_admin', fileId)).toBe(204);
    const dossier = await eventsOf({ gearboxModelId: modelId });
    expect(dossier.map((e) => [e.action, e.entityKind, e.entityLabel, e.actorEmail, e.changes])).toEqual([
      ['deleted', 'document', 'Plan de coupe', people.app_admin.email, []],
      [
        'changed',
        'document',
        'Plan de coupe',
        people.app_admin.email,
        [
          { field: 'Fichier', before: 'plan.csv', after: 'plan-v2.csv' },
          { field: 'Contenu du fichier', before: '', after: 'remplacé' },
        ],
      ],
      ['created', 'document', 'Plan de coupe', people.diagnostician.email, [{ field: 'Fichier', before: '', after: 'plan.csv' }]],
      ['created', 'gearbox_model', model, people.diagnostician.email, expect.any(Array)],
    ]);
    expect(dossier[0]).toMatchObject({ parentKind: 'gearbox_model', parentLabel: model });

    const number = unique('FICH');
    const orderId = await createOrder(gql.diagnostician, { number, gearboxModelId: modelId });
    const importId = await upload('diagnostician', 'relevé.txt', 'P0700\n', 'diagnostic-import');
    ok(
      await gql('diagnostician', M.insertOrderFile, {
        o: orderId,
        f: { fileId: importId, kind: 'import' },
      }),
    );
    expect(await replaceFile('diagnostician', importId, 'relevé.txt', 'P0700\nP0730\n')).toBe(200);
    expect(await deleteFile('diagnostician', importId)).toBe(204);
    const order = await eventsOf({ repairOrderId: orderId });
    expect(order.slice(0, 3).map((e) => [e.action, e.entityKind, e.entityLabel, e.actorEmail, e.parentLabel, e.changes])).toEqual([
      ['deleted', 'order_file', 'relevé.txt', people.diagnostician.email, number, []],
      ['changed', 'order_file', 'relevé.txt', people.diagnostician.email, number, [{ field: 'Contenu du fichier', before: '', after: 'remplacé' }]],
      ['created', 'order_file', 'relevé.txt', people.diagnostician.email, number, []],
    ]);

    // A closed order's file stays as it is, through the storage API too.
    const closedFile = await upload('diagnostician', 'clos.txt', 'P0700\n', 'diagnostic-import');
    ok(
      await gql('diagnostician', M.insertOrderFile, {
        o: orderId,
        f: { fileId: closedFile, kind: 'import' },
      }),
    );
    await t.database.db.execute(sql`update repair_orders set status = 'CLOSED' where id = ${orderId}`);
    expect(await replaceFile('app_admin', closedFile, 'clos.txt', 'autre\n')).toBe(409);
    expect(await deleteFile('app_admin', closedFile)).toBe(409);
    const closedDownload = await fetch(`${storageApi()}/${closedFile}`, { headers: { authorization: `Bearer ${tokens.mechanic}` } });
    expect(await closedDownload.text()).toBe('P0700\n');

    // A file nothing holds yet: nothing of the four domains changes, no event.
    const [{ n: before }] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit.events`);
    expect(await deleteFile('diagnostician', await upload('diagnostician', 'seul.csv', 'x;y\n', 'documents'))).toBe(204);
    const [{ n: after }] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit.events`);
    expect(after).toBe(before);

    // The event refused: the file and its document stay.
    const keptId = await upload('diagnostician', 'garde.csv', 'x;y\n', 'documents');
    const title = `REFUS-FICHIER-${kind}`;
    ok(
      await gql('diagnostician', M.insertGearboxDocument, {
        o: { gearboxModelId: modelId, fileId: keptId, category: 'gearbox_technical_drawing', title },
      }),
    );
    await t.database.db.execute(sql.raw(`alter table audit.events add constraint test_refuse_file check (entity_label <> '${title}') not valid`));
    try {
      expect(await deleteFile('diagnostician', keptId)).toBeGreaterThanOrEqual(500);
      expect(await replaceFile('diagnostician', keptId, 'garde.csv', 'z;w\n')).toBeGreaterThanOrEqual(500);
    } finally {
      await t.database.db.execute(sql.raw('alter table audit.events drop constraint test_refuse_file'));
    }
    const [kept] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from gearbox_documents where file_id = ${keptId}`);
    expect(kept!.n).toBe(1);
    const download = await fetch(`${storageApi()}/${keptId}`, { headers: { authorization: `Bearer ${tokens.mechanic}` } });
    expect(await download.text()).toBe('x;y\n');
  });
});
