// The audit trail (issue 19, item 5; decision 034): each write of an order, a dossier, the
// stock and the users leaves exactly the event a person reads (who, what, which fields from
// what to what), in the transaction of the change: a refused change leaves none, a failed
// event undoes the change. Events are never changed nor deleted, through the API or in SQL,
// and outlive what they name. The activity pages and their CSV obey the role table.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCsv, auditFileName, csvCell, whatLabel, withWord } from '#lib/audit/audit.ts';
import { record } from '#server/audit/record.ts';
import { queryRows } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { databaseKinds, postJson, startTestApp, type TestApp, verifyLink } from './support/app.ts';
import {
  answerCheckpoint,
  checkpointsOf,
  chooseRepair,
  createModel,
  createOrder,
  createOutage,
  createProcedure,
  createStockItems,
  createUser,
  demoEmails,
  type DemoRole,
  finishDiagnostic,
  graphqlAs,
  M,
  ok,
  signInAll,
} from './kit/index.ts';
import { browser, htmlText } from './support/browser.ts';

type Event = {
  actorName: string;
  actorEmail: string | null;
  action: string;
  entityKind: string;
  entityLabel: string;
  parentKind: string;
  parentLabel: string;
  changes: { field: string; before: string; after: string }[];
};

const EVENTS = `query($s: audit_scope!, $a: audit_action, $l: Int) {
  auditEvents(scope: $s, action: $a, limit: $l) { actorName actorEmail action entityKind entityLabel parentKind parentLabel changes { field before after } }
  auditEventsAggregate(scope: $s, action: $a) { aggregate { count } }
}`;

const Q = {
  updateOutage: 'mutation($id: uuid!, $o: outages_input!) { updateOutage(id: $id, object: $o) }',
};

describe.each(databaseKinds)('the audit trail on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  let people: Record<DemoRole, { id: string; name: string; email: string }>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
    const rows = await queryRows<{ id: string; display_name: string; email: string }>(
      t.database.db,
      sql`select id, display_name, email from auth.users where email in (${sql.join(Object.values(demoEmails), sql`, `)})`,
    );
    people = Object.fromEntries(
      (Object.entries(demoEmails) as [DemoRole, string][]).map(([role, email]) => {
        const row = rows.find((r) => r.email === email)!;
        return [role, { id: row.id, name: row.display_name, email }];
      }),
    ) as typeof people;
  });
  afterAll(() => t?.close());

  const eventsOf = async (scope: Record<string, string>, role: DemoRole = 'app_admin', action?: string) => {
    const data = ok(await gql(role, EVENTS, { s: scope, a: action, l: 500 }));
    expect(data.auditEventsAggregate.aggregate.count).toBe(data.auditEvents.length);
    return data.auditEvents as Event[];
  };
  const by = (role: DemoRole) => ({ actorName: people[role].name, actorEmail: people[role].email });
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${kind.toUpperCase()}-${++n}`;

  it("records an order's life, what hangs off it, and its closing and reopening, by who did each", async () => {
    const modelId = await createModel(gql.diagnostician, { model: unique('Audit modèle') });
    const outageId = await createOutage(gql.diagnostician, modelId);
    const procedureId = await createProcedure(gql.diagnostician, modelId, { name: 'Remplacement', steps: ['Déposer'], checkpoints: [{ name: 'Pression' }] });
    const number = unique('AUD');
    const order = { number, openedOn: '2026-11-02', interventionCategory: 'complete_car' as const, gearboxModelId: modelId };
    const orderId = await createOrder(gql.diagnostician, order);
    ok(await gql('app_admin', M.updateRepairOrder, { id: orderId, o: { ...order, gearboxCode: 'K-42', vehicleBrand: 'Renault' } }));
    await chooseRepair(gql.diagnostician, orderId, { outageId, procedureId });
    await finishDiagnostic(gql.diagnostician, orderId);
    const [checkpoint] = await checkpointsOf(gql.mechanic, orderId);
    await answerCheckpoint(gql.mechanic, checkpoint!, { checkResult: 'ok', comment: 'Au ralenti' });
    // A refused closing (a commercial) and a refused reopening (not closed) leave nothing.
    expect((await gql('commercial', M.closeRepairOrder, { id: orderId, c: 'Non' })).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('app_admin', M.reopenRepairOrder, { id: orderId, c: 'Non' })).errors![0]!.extensions.code).toBe('conflict');
    ok(await gql('mechanic', M.closeRepairOrder, { id: orderId, c: 'Essai concluant' }));
    ok(await gql('app_admin', M.reopenRepairOrder, { id: orderId, c: 'Bruit à froid' }));

    const events = await eventsOf({ repairOrderId: orderId });
    // Other roles read the same events without anyone's e-mail, as they read no other account's.
    for (const role of ['mechanic', 'commercial', 'diagnostician'] as const) {
      const seen = await eventsOf({ repairOrderId: orderId }, role);
      expect(seen.map((e) => [e.actorName, e.actorEmail])).toEqual(events.map((e) => [e.actorName, null]));
    }
    // Newest first, each with its author's name and e-mail as they were.
    expect(events.map((e) => [e.action, e.entityKind, e.actorEmail])).toEqual([
      ['reopened', 'repair_order', people.app_admin.email],
      ['closed', 'repair_order', people.mechanic.email],
      ['changed', 'order_checkpoint', people.mechanic.email],
      ['changed', 'repair_order', people.diagnostician.email],
      ['created', 'order_symptom', people.diagnostician.email],
      ['changed', 'repair_order', people.diagnostician.email],
      ['changed', 'order_procedure', people.diagnostician.email],
      ['changed', 'order_procedure', people.diagnostician.email],
      ['changed', 'repair_order', people.app_admin.email],
      ['created', 'repair_order', people.diagnostician.email],
    ]);
    expect(events[0]).toMatchObject({
      ...by('app_admin'),
      entityLabel: number,
      parentLabel: number,
      changes: [{ field: 'Commentaire', before: '', after: 'Bruit à froid' }],
    });
    expect(events[1]).toMatchObject({ ...by('mechanic'), changes: [{ field: 'Commentaire', before: '', after: 'Essai concluant' }] });
    expect(events[2]).toMatchObject({
      entityLabel: 'Pression',
      parentKind: 'repair_order',
      parentLabel: number,
      changes: [
        { field: 'Résultat', before: '', after: 'Conforme' },
        { field: 'Commentaire', before: '', after: 'Au ralenti' },
      ],
    });
    expect(events[3]!.changes).toEqual([{ field: 'Procédures validées', before: 'Non', after: 'Oui' }]);
    expect(events[5]!.changes).toEqual([{ field: 'Codes défaut lisibles', before: '', after: 'Non' }]);
    expect(events[6]!.changes).toEqual([{ field: 'Procédures retenues', before: '', after: 'Remplacement' }]);
    expect(events[7]!.changes).toEqual([{ field: 'Pannes retenues', before: '', after: 'Mécatronique — Usure' }]);
    expect(events[8]).toMatchObject({
      ...by('app_admin'),
      changes: [
        { field: 'Code boîte', before: '', after: 'K-42' },
        { field: 'Marque du véhicule', before: '', after: 'Renault' },
      ],
    });
    expect(events[9]!.changes).toContainEqual({ field: "Catégorie d'intervention", before: '', after: 'Véhicule complet' });
    expect(events[9]!.changes).toContainEqual({ field: 'Modèle de boîte', before: '', after: expect.stringContaining('Audit modèle') });

    // Deleted: its events stay, and one more says who deleted it.
    ok(await gql('diagnostician', M.deleteRepairOrder, { id: orderId }));
    const after = await eventsOf({ repairOrderId: orderId });
    expect(after).toHaveLength(events.length + 1);
    expect(after[0]).toMatchObject({ action: 'deleted', entityLabel: number, ...by('diagnostician') });
  });

  it("records a dossier's changes with its outages, and keeps them once it is deleted", async () => {
    const model = unique('Audit dossier');
    const modelId = await createModel(gql.diagnostician, { model });
    const outageId = await createOutage(gql.diagnostician, modelId, { component: 'Embrayage' });
    ok(await gql('app_admin', Q.updateOutage, { id: outageId, o: { component: 'Embrayage', outageType: 'Usure', description: 'Patinage à chaud' } }));
    ok(await gql('app_admin', M.updateGearboxModel, { id: modelId, o: { model, type: 'automatic', constructorName: 'Aisin', startYear: 2010 } }));
    ok(await gql('diagnostician', M.deleteOutage, { id: outageId }));
    ok(await gql('diagnostician', M.deleteGearboxModel, { id: modelId }));
    const events = await eventsOf({ gearboxModelId: modelId });
    expect((await eventsOf({ gearboxModelId: modelId }, 'commercial')).map((e) => e.actorEmail)).toEqual(events.map(() => null));
    expect(events.map((e) => [e.action, e.entityKind, e.entityLabel, e.actorEmail])).toEqual([
      ['deleted', 'gearbox_model', model, people.diagnostician.email],
      ['deleted', 'outage', 'Embrayage — Usure', people.diagnostician.email],
      ['changed', 'gearbox_model', model, people.app_admin.email],
      ['changed', 'outage', 'Embrayage — Usure', people.app_admin.email],
      ['created', 'outage', 'Embrayage — Usure', people.diagnostician.email],
      ['created', 'gearbox_model', model, people.diagnostician.email],
    ]);
    expect(events[2]!.changes).toEqual([{ field: 'Constructeur', before: 'ZF', after: 'Aisin' }]);
    expect(events[3]!.changes).toEqual([{ field: 'Description', before: '', after: 'Patinage à chaud' }]);
    expect(events.every((e) => e.parentKind === 'gearbox_model' && e.parentLabel === model)).toBe(true);
  });

  it('records stock moves and removals in the domain words; mechanics may not read them', async () => {
    const modelId = await createModel(gql.diagnostician, { model: unique('Audit stock') });
    const [itemId] = await createStockItems(gql.commercial, {
      gearboxModelId: modelId,
      condition: 'used',
      rack: 'A',
      level: 1,
      addedOn: '2026-11-01',
      quantity: 1,
    });
    ok(await gql('commercial', M.moveStockItem, { id: itemId, v: 1, r: 'B', l: 3 }));
    ok(await gql('diagnostician', M.removeStockItem, { id: itemId, v: 2, d: '2026-11-20', r: 'Vendue' }));
    const events = await eventsOf({ stockItemId: itemId });
    expect((await eventsOf({ stockItemId: itemId }, 'commercial')).map((e) => e.actorEmail)).toEqual([null, null, null]);
    expect(events.map((e) => [e.action, e.actorEmail, e.changes])).toEqual([
      [
        'removed',
        people.diagnostician.email,
        [
          { field: 'Date de sortie', before: '', after: '20/11/2026' },
          { field: 'Motif de sortie', before: '', after: 'Vendue' },
        ],
      ],
      ['moved', people.commercial.email, [{ field: 'Rayon / Niveau', before: 'A / 1', after: 'B / 3' }]],
      [
        'created',
        people.commercial.email,
        [
          { field: 'État', before: '', after: 'Occasion' },
          { field: 'Rayon / Niveau', before: '', after: 'A / 1' },
        ],
      ],
    ]);
    expect(events[0]!.entityLabel).toMatch(/^n° \d+ — Audit stock/);
    expect((await gql('mechanic', EVENTS, { s: { stockItemId: itemId } })).errors![0]!.extensions.code).toBe('forbidden');
  });

  it("records users' accounts for admins only, never a secret, and keeps a deleted user's deeds", async () => {
    const email = `${unique('apprenti')}@demo.local`.toLowerCase();
    const id = await createUser(gql.app_admin, { email, displayName: 'Apprenti', defaultRole: 'mechanic' });
    ok(await gql('app_admin', M.updateUser, { id, s: { defaultRole: 'commercial', displayName: 'Apprentie' } }));
    const events = await eventsOf({ userId: id });
    expect(events.map((e) => [e.action, e.actorEmail, e.changes])).toEqual([
      [
        'changed',
        people.app_admin.email,
        [
          { field: 'Nom', before: 'Apprenti', after: 'Apprentie' },
          { field: 'Rôle', before: 'Mécanicien', after: 'Commercial' },
        ],
      ],
      [
        'created',
        people.app_admin.email,
        [
          { field: 'Nom', before: '', after: 'Apprenti' },
          { field: 'E-mail', before: '', after: email },
          { field: 'Rôle', before: '', after: 'Mécanicien' },
          { field: 'Désactivé', before: '', after: 'Non' },
        ],
      ],
    ]);
    for (const role of ['diagnostician', 'mechanic', 'commercial'] as const)
      expect((await gql(role, EVENTS, { s: { userId: id } })).errors![0]!.extensions.code).toBe('forbidden');
    // Exactly one scope.
    expect((await gql('app_admin', EVENTS, { s: { userId: id, repairOrderId: id } })).errors![0]!.extensions.code).toBe('validation');

    ok(await gql('app_admin', M.deleteUser, { id }));
    const kept = await eventsOf({ userId: id });
    expect(kept.map((e) => e.action)).toEqual(['deleted', 'changed', 'created']);
    expect(kept[0]).toMatchObject({ entityLabel: `Apprentie <${email}>`, ...by('app_admin') });
    // The admin's own page lists what they did.
    const admin = await eventsOf({ userId: people.app_admin.id }, 'app_admin', 'deleted');
    expect(admin.some((e) => e.entityKind === 'user' && e.entityLabel.includes(email))).toBe(true);
    // No column anywhere holds a password, a hash or a token.
    const [leak] = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from audit.events where changes::text ~* '(\\$argon2|password_hash|token)'`,
    );
    expect(leak!.n).toBe(0);
  });

  it("records a self sign-up and a password change as the account's own, never the password", async () => {
    const email = `inscrite-${kind}@garage.fr`;
    const api = `${t.url}/api/auth`;
    const signUp = await postJson(`${api}/signup/email-password`, { email, password: 'Inscription-2026!', options: { displayName: 'Inès Inscrite' } });
    expect(signUp.status).toBe(200);
    const [{ id }] = await queryRows<{ id: string }>(t.database.db, sql`select id from auth.users where email = ${email}`);
    ok(await gql('app_admin', M.updateUser, { id, s: { disabled: false } }));
    expect((await postJson(`${api}/user/password/reset`, { email })).status).toBe(200);
    const ticket = new URL(verifyLink((await t.outbox()).at(-1)!)).searchParams.get('ticket');
    expect((await postJson(`${api}/user/password`, { newPassword: 'Nouveau-Passe-2026!', ticket })).status).toBe(200);
    const events = await eventsOf({ userId: id });
    expect(events.map((e) => [e.action, e.actorEmail, e.changes])).toEqual([
      ['changed', email, [{ field: 'Mot de passe', before: '', after: 'modifié' }]],
      ['changed', people.app_admin.email, [{ field: 'Désactivé', before: 'Oui', after: 'Non' }]],
      [
        'created',
        email,
        [
          { field: 'Nom', before: '', after: 'Inès Inscrite' },
          { field: 'E-mail', before: '', after: email },
          { field: 'Rôle', before: '', after: 'Mécanicien' },
          { field: 'Désactivé', before: '', after: 'Oui' },
        ],
      ],
    ]);
  });

  it('pages an export by the last event given: an event recorded meanwhile repeats no row', async () => {
    const modelId = await createModel(gql.diagnostician, { model: unique('Audit curseur') });
    const number = unique('CUR');
    const orderId = await createOrder(gql.diagnostician, { number, gearboxModelId: modelId });
    const order = { number, openedOn: '2026-11-02', interventionCategory: 'complete_car' as const, gearboxModelId: modelId };
    for (const brand of ['A', 'B', 'C']) ok(await gql('app_admin', M.updateRepairOrder, { id: orderId, o: { ...order, vehicleBrand: brand } }));
    const PAGE = 'query($s: audit_scope!, $l: Int, $o: Int, $b: String) { auditEvents(scope: $s, limit: $l, offset: $o, before: $b) { id } }';
    const ids = async (vars: Record<string, unknown>) =>
      (ok(await gql('mechanic', PAGE, { s: { repairOrderId: orderId }, ...vars })).auditEvents as { id: string }[]).map((e) => e.id);
    const all = await ids({ l: 10 });
    expect(all).toHaveLength(4);
    const first = await ids({ l: 2 });
    // Recorded between two pages of an export.
    ok(await gql('app_admin', M.updateRepairOrder, { id: orderId, o: { ...order, vehicleBrand: 'D' } }));
    expect([...first, ...(await ids({ l: 2, b: first[1] }))]).toEqual(all);
    // What an offset would have given: the first page's last row again.
    expect((await ids({ l: 2, o: 2 }))[0]).toBe(first[1]);
    expect((await gql('mechanic', PAGE, { s: { repairOrderId: orderId }, b: 'pas-un-id' })).errors![0]!.extensions.code).toBe('validation');
  });

  it('writes nothing when the change fails, and undoes the change when its event fails', async () => {
    const [{ n: before }] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit.events`);
    // A refused change: an order number already taken.
    const modelId = await createModel(gql.diagnostician, { model: unique('Audit échec') });
    const number = unique('ECH');
    await createOrder(gql.diagnostician, { number, gearboxModelId: modelId });
    const [{ n: afterOne }] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit.events`);
    expect(afterOne).toBe(before + 2); // the model, the order
    const taken = await gql('diagnostician', M.insertRepairOrder, {
      o: { number, openedOn: '2026-11-02', interventionCategory: 'complete_car', gearboxModelId: modelId },
    });
    expect(taken.errors![0]!.extensions.code).toBe('validation');
    // A transaction that records, then fails: its event goes with it.
    await expect(
      t.database.db.transaction(async (tx) => {
        await record(tx, { action: 'created', entity: { kind: 'repair_order', id: modelId, label: 'fantôme' } });
        throw new Error('later failure');
      }),
    ).rejects.toThrow('later failure');
    const [{ n: afterFailures }] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit.events`);
    expect(afterFailures).toBe(afterOne);

    // The event's insert refused (a constraint added for the test): the order is not created.
    await t.database.db.execute(sql.raw(`alter table audit.events add constraint test_refuse check (entity_label <> 'REFUS-${kind.toUpperCase()}')`));
    try {
      const refused = await gql('diagnostician', M.insertRepairOrder, {
        o: { number: `REFUS-${kind.toUpperCase()}`, openedOn: '2026-11-02', interventionCategory: 'complete_car', gearboxModelId: modelId },
      });
      expect(refused.errors).toBeDefined();
      const [{ n }] = await queryRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from repair_orders where number = ${`REFUS-${kind.toUpperCase()}`}`,
      );
      expect(n).toBe(0);
    } finally {
      await t.database.db.execute(sql.raw('alter table audit.events drop constraint test_refuse'));
    }
  });

  it('refuses to change or delete an event, in SQL and through the API', async () => {
    const codeOf = async (statement: string) => {
      try {
        await t.database.db.execute(sql.raw(statement));
        return 'accepted';
      } catch (error) {
        return pgCode(error) ?? String(error);
      }
    };
    expect(await codeOf("update audit.events set actor_name = 'quelqu''un'")).toBe('42501');
    expect(await codeOf('delete from audit.events')).toBe('42501');
    expect(await codeOf('truncate audit.events')).toBe('42501');
    // The API offers reading only: no mutation names the events.
    const fields = ok(await gql('app_admin', '{ __schema { mutationType { fields { name } } } }')).__schema.mutationType.fields as { name: string }[];
    expect(fields.filter((f) => /audit|event/i.test(f.name))).toEqual([]);
  });
});

describe.each(databaseKinds)('the activity pages and their CSV on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  const as: Partial<Record<DemoRole, ReturnType<typeof browser>>> = {};
  let orderId = '';
  let number = '';
  let modelId = '';

  beforeAll(async () => {
    t = await startTestApp(kind, { pages: true });
    gql = graphqlAs(t, await signInAll(t));
    for (const role of Object.keys(demoEmails) as DemoRole[]) {
      as[role] = browser(t.url);
      expect((await as[role]!.signIn(demoEmails[role])).status).toBe(303);
    }
    modelId = await createModel(gql.diagnostician, { model: `Pages ${kind}` });
    number = `PAGES-${kind.toUpperCase()}`;
    const order = { number, openedOn: '2026-11-02', interventionCategory: 'complete_car' as const, gearboxModelId: modelId };
    orderId = await createOrder(gql.diagnostician, order);
    // 51 changes and the creation: two pages of 50.
    for (let i = 1; i <= 51; i += 1) ok(await gql('app_admin', M.updateRepairOrder, { id: orderId, o: { ...order, vehicleBrand: `=Marque ${i}` } }));
  }, 120_000);
  afterAll(() => t?.close());

  const get = async (role: DemoRole, path: string) => {
    const res = await as[role]!.request(path);
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, text: htmlText(await res.text()) };
  };

  it("shows an order's activity to every role that reads the order, newest first, 50 to a page", async () => {
    for (const role of ['mechanic', 'commercial'] as const) {
      const page = await get(role, `/repair-order/${orderId}/activity`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`Activité <span class="font-mono">${number}</span>`);
      expect(page.text).toContain(
        'Marque du véhicule</span> : <span class="text-muted [overflow-wrap:anywhere]">=Marque 50</span> → <span class="[overflow-wrap:anywhere]">=Marque 51</span>',
      );
      expect(page.text.match(/<tr class="border-b/g)).toHaveLength(50);
      expect(page.text).toContain('Page 1 sur 2');
      expect(page.text).toContain(`href="/repair-order/${orderId}/activity.csv"`);
      // Who did it by name only: staff e-mails are for those who manage users.
      expect(page.text).toContain('Claire Dubois');
      expect(page.text).not.toContain('admin@demo.local');
      expect(page.text).not.toContain('diagnostic@demo.local');
    }
    expect((await get('app_admin', `/repair-order/${orderId}/activity`)).text).toContain('admin@demo.local');
    const second = await get('mechanic', `/repair-order/${orderId}/activity?page=2`);
    expect(second.text.match(/<tr class="border-b/g)).toHaveLength(2);
    expect(second.text).toContain('Création');
    // The filter keeps its rows, in the URL and in the CSV link.
    const created = await get('mechanic', `/repair-order/${orderId}/activity?action=created`);
    expect(created.text.match(/<tr class="border-b/g)).toHaveLength(1);
    expect(created.text).toContain(`href="/repair-order/${orderId}/activity.csv?action=created"`);
    // The order's tabs lead there.
    expect((await get('mechanic', `/repair-order/${orderId}`)).text).toContain(`href="/repair-order/${orderId}/activity"`);
  });

  const csvOf = async (role: DemoRole, path: string) => {
    const raw = await as[role]!.request(path);
    const bytes = new Uint8Array(await raw.arrayBuffer());
    return { status: raw.status, headers: raw.headers, bytes, text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes) };
  };
  const linesOf = (text: string) => text.split('\r\n').filter(Boolean);

  it('gives the same rows as a CSV for French Excel, named after the order and the day, e-mails for admins only', async () => {
    const res = await csvOf('mechanic', `/repair-order/${orderId}/activity.csv`);
    // UTF-8 with its BOM (which text() would drop).
    expect([...res.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris' }).format(new Date());
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="activite-or-pages-${kind}-${day}\\.csv"; `));
    const lines = linesOf(res.text);
    // A mechanic's: no e-mail column, no staff e-mail anywhere.
    expect(lines[0]).toBe('\uFEFFDate;Qui;Action;Quoi;Dans;Modifications');
    expect(lines).toHaveLength(1 + 52);
    expect(lines[1]).toMatch(
      new RegExp(`^\\d{2}/\\d{2}/\\d{4} \\d{2}:\\d{2}:\\d{2};[^;@]+;Modification;OR ${number};OR ${number};Marque du véhicule : =Marque 50 → =Marque 51$`),
    );
    expect(lines[52]).toContain(';Création;');
    expect(res.text).not.toContain('@demo.local');
    const changed = await get('commercial', `/repair-order/${orderId}/activity.csv?action=changed`);
    expect(linesOf(changed.text)).toHaveLength(1 + 51);
    expect(changed.text).not.toContain('@demo.local');

    // An admin's: the e-mail column.
    const admin = linesOf((await csvOf('app_admin', `/repair-order/${orderId}/activity.csv`)).text);
    expect(admin[0]).toBe('\uFEFFDate;Qui;E-mail;Action;Quoi;Dans;Modifications');
    expect(admin[1]).toContain(';admin@demo.local;Modification;');
    expect(admin[52]).toContain(';diagnostic@demo.local;Création;');
  });

  it('neutralises a cell that starts as a formula: an author named "=1+2"', async () => {
    const [{ id: diagnostician, name }] = await queryRows<{ id: string; name: string }>(
      t.database.db,
      sql`select id, display_name as name from auth.users where email = 'diagnostic@demo.local'`,
    );
    ok(await gql('app_admin', M.updateUser, { id: diagnostician, s: { displayName: '=1+2 Diag' } }));
    try {
      const formulaOrder = await createOrder(gql.diagnostician, { number: `FORMULE-${kind.toUpperCase()}`, gearboxModelId: modelId });
      const lines = linesOf((await csvOf('mechanic', `/repair-order/${formulaOrder}/activity.csv`)).text);
      expect(lines).toHaveLength(2);
      expect(lines[1]!.split(';')[1]).toBe("'=1+2 Diag");
    } finally {
      ok(await gql('app_admin', M.updateUser, { id: diagnostician, s: { displayName: name } }));
    }
  });

  it('answers the 503 page, not a 404 nor a CSV cut short, when the database fails; an export repeats no row', async () => {
    const bulkNumber = `VRAC-${kind.toUpperCase()}`;
    const bulkId = await createOrder(gql.diagnostician, { number: bulkNumber, gearboxModelId: modelId });
    const entity = { kind: 'repair_order' as const, id: bulkId, label: bulkNumber };
    // More than one page of the API (500): recorded as a script would.
    await t.database.db.transaction(async (tx) => {
      for (let i = 1; i <= 520; i += 1) await record(tx, { action: 'changed', entity, changes: [{ field: 'Commentaire', before: '', after: `n° ${i}` }] });
    });
    const audit = t.app.domain.audit;
    const list = audit.list;
    let calls = 0;
    const path = `/repair-order/${bulkId}/activity.csv`;
    try {
      // An event recorded while the export runs: newer than the export, so not in it, and no row twice.
      audit.list = async (viewer, filter) => {
        const rows = await list(viewer, filter);
        calls += 1;
        if (calls === 1) await record(t.database.db, { action: 'changed', entity, changes: [{ field: 'Commentaire', before: '', after: 'pendant' }] });
        return rows;
      };
      const lines = linesOf((await csvOf('mechanic', path)).text);
      expect(calls).toBe(2);
      expect(lines).toHaveLength(1 + 521);
      expect(new Set(lines).size).toBe(lines.length);
      expect(lines.at(-1)).toContain(';Création;');

      // The database lost after the first page: the download fails, as a 503, rather than a short CSV.
      const away = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      calls = 0;
      audit.list = async (viewer, filter) => {
        calls += 1;
        if (calls > 1) throw away();
        return list(viewer, filter);
      };
      const cut = await csvOf('mechanic', path);
      expect(cut.status).toBe(503);
      expect(cut.text).toContain('Service momentanément indisponible');

      // Lost from the start: the page and the CSV say so, not « introuvable ».
      audit.list = async () => {
        throw away();
      };
      for (const url of [`/repair-order/${bulkId}/activity`, path, `/gearbox/${modelId}/activity`]) {
        const res = await get('commercial', url);
        expect(res.status, url).toBe(503);
        expect(res.text).toContain('Service momentanément indisponible');
      }
    } finally {
      audit.list = list;
    }
    expect((await get('commercial', `/repair-order/${bulkId}/activity`)).status).toBe(200);
  });

  it("shows a dossier's activity to every role, and a user's to admins only", async () => {
    const dossier = await get('mechanic', `/gearbox/${modelId}/activity`);
    expect(dossier.status).toBe(200);
    expect(dossier.text).toContain(`Activité : Pages ${kind}`);
    expect(dossier.text).toContain('Création');
    expect((await get('mechanic', `/gearbox/${modelId}`)).text).toContain(`href="/gearbox/${modelId}/activity"`);
    expect((await get('commercial', `/gearbox/${modelId}/activity.csv`)).status).toBe(200);

    const admin = (await queryRows<{ id: string }>(t.database.db, sql`select id from auth.users where email = 'admin@demo.local'`))[0]!.id;
    const page = await get('app_admin', `/users/${admin}/activity`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('=Marque 51');
    expect((await get('app_admin', `/users/${admin}/activity.csv`)).status).toBe(200);
    expect((await get('app_admin', '/users')).text).toContain(`href="/users/${admin}/activity"`);
    for (const role of ['diagnostician', 'mechanic', 'commercial'] as const) {
      for (const path of [`/users/${admin}/activity`, `/users/${admin}/activity.csv`]) {
        const refused = await get(role, path);
        expect(refused.status).toBe(302);
        expect(refused.location).toBe('/repair-orders');
      }
    }
    // An id that names nothing: the French 404, the CSV too.
    const unknown = '3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f';
    expect((await get('mechanic', `/repair-order/${unknown}/activity.csv`)).status).toBe(404);
    expect((await get('app_admin', `/users/${unknown}/activity?action=deleted`)).status).toBe(404);
    expect((await get('mechanic', '/repair-order/pas-un-id/activity')).status).toBe(404);
  });
});

describe('the CSV of an activity', () => {
  it('opens in French Excel: a BOM, semicolons, quotes where needed, formulas neutralised', () => {
    const csv = auditCsv(
      [
        {
          id: 1,
          at: '2026-07-14T10:05:00Z',
          actorId: 'x',
          actorName: 'Léa; "chef"',
          actorEmail: 'lea@demo.local',
          action: 'changed',
          entityKind: 'repair_order',
          entityId: 'x',
          entityLabel: '=HYPERLINK("http://x")',
          parentKind: 'repair_order',
          parentId: 'x',
          parentLabel: 'OR-1',
          changes: [{ field: 'Commentaire', before: '', after: '+33 1' }],
        },
      ],
      { emails: true },
    );
    expect(csv.startsWith('\uFEFFDate;Qui;E-mail;Action;Quoi;Dans;Modifications\r\n')).toBe(true);
    // 12:05 in Paris in summer.
    expect(csv).toContain('14/07/2026 12:05:00;"Léa; ""chef""";lea@demo.local;Modification;"OR =HYPERLINK(""http://x"")";OR-1;Commentaire : — → +33 1\r\n');
    // An order's number that starts with «OR-» is not said twice, in a row or in the file's name.
    expect(whatLabel({ entityKind: 'repair_order', entityLabel: 'OR-2026-0351' })).toBe('OR-2026-0351');
    expect(whatLabel({ entityKind: 'repair_order', entityLabel: 'or 2026-0351' })).toBe('or 2026-0351');
    expect(whatLabel({ entityKind: 'repair_order', entityLabel: 'AUD-12' })).toBe('OR AUD-12');
    expect(whatLabel({ entityKind: 'repair_order', entityLabel: 'ORAN-12' })).toBe('OR ORAN-12');
    expect(whatLabel({ entityKind: 'order_checkpoint', entityLabel: 'Démarrage en côte' })).toBe('Point de contrôle Démarrage en côte');
    expect(auditFileName(withWord('OR', 'OR-2026-0601'), new Date('2026-11-26T12:00:00Z'))).toBe('activite-or-2026-0601-2026-11-26.csv');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('-2')).toBe("'-2");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('+33')).toBe("'+33");
  });
});
