// Gearbox models through the API: A and D write, C and M read; uniqueness and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../server/db/seed.ts';
import { databaseKinds, postJson, startTestApp, type TestApp } from './support/app.ts';

const INSERT = 'mutation($o: gearbox_models_input!) { insertGearboxModel(object: $o) { id model startYear endYear gears } }';
const model = (overrides: object = {}) => ({ model: 'Aisin TF-60SN', type: 'automatic', constructorName: 'Aisin Warner', startYear: 2003, endYear: 2016, gears: 6, ...overrides });

describe.each(databaseKinds)('gearbox models on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  const gql = (role: string, query: string, variables?: object) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[role]}` },
      body: JSON.stringify({ query, variables }),
    }).then((r) => r.json() as Promise<{ data?: any; errors?: { message: string; extensions: { code: string; fields?: object } }[] }>);

  beforeAll(async () => {
    t = await startTestApp(kind);
    for (const [role, email] of Object.entries({ app_admin: 'admin@demo.local', diagnostician: 'diagnostic@demo.local', mechanic: 'mecanicien@demo.local', commercial: 'commercial@demo.local' })) {
      tokens[role] = (await postJson(`${t.url}/api/auth/signin/email-password`, { email, password: DEMO_PASSWORD })).body.session.accessToken;
    }
  });
  afterAll(() => t?.close());

  it('lets every role read and filter the models', async () => {
    for (const role of ['app_admin', 'diagnostician', 'mechanic', 'commercial']) {
      const res = await gql(role, '{ gearboxModels(type: variator) { model } gearboxModelsAggregate { aggregate { count } } }');
      expect(res.data).toEqual({ gearboxModels: [{ model: 'Jatco JF011E' }], gearboxModelsAggregate: { aggregate: { count: 9 } } });
    }
    const covered = await gql('mechanic', '{ gearboxModels(year: 2010, search: "aisin") { model } }');
    expect(covered.data.gearboxModels.map((m: { model: string }) => m.model)).toEqual(['Aisin AW55-51SN', 'Aisin TF-80SC']);
  });

  it('lets admins and diagnosticians create, update and delete, and refuses the others', async () => {
    for (const role of ['mechanic', 'commercial']) expect((await gql(role, INSERT, { o: model() })).errors![0]!.extensions.code).toBe('forbidden');
    const created = (await gql('diagnostician', INSERT, { o: model() })).data.insertGearboxModel;
    expect(created).toMatchObject({ model: 'Aisin TF-60SN', startYear: 2003, endYear: 2016, gears: 6 });
    const update = 'mutation($id: uuid!, $o: gearbox_models_input!) { updateGearboxModel(id: $id, object: $o) { endYear } }';
    expect((await gql('commercial', update, { id: created.id, o: model({ endYear: 2018 }) })).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('app_admin', update, { id: created.id, o: model({ endYear: 2018 }) })).data.updateGearboxModel.endYear).toBe(2018);
    const del = 'mutation($id: uuid!) { deleteGearboxModel(id: $id) { model } }';
    expect((await gql('mechanic', del, { id: created.id })).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('diagnostician', del, { id: created.id })).data.deleteGearboxModel.model).toBe('Aisin TF-60SN');
  });

  it('refuses a model already recorded, whatever its case: "Modèle non disponible"', async () => {
    const res = await gql('diagnostician', INSERT, { o: model({ model: 'vw dq200 0am' }) });
    expect(res.errors![0]).toMatchObject({ message: 'Modèle non disponible', extensions: { code: 'conflict' } });
  });

  it('refuses bad years and numbers in French, and writes nothing', async () => {
    const res = await gql('diagnostician', INSERT, { o: model({ model: 'Essai', startYear: 99, endYear: 1990, gears: 0, constructorName: ' ' }) });
    expect(res.errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.constructorName': 'Champ obligatoire', 'object.startYear': 'Année invalide', 'object.gears': 'Minimum 1' },
    });
    const before = await gql('diagnostician', INSERT, { o: model({ model: 'Essai', startYear: 2010, endYear: 2005 }) });
    expect(before.errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.endYear': 'Année invalide' } });
    expect((await gql('diagnostician', '{ gearboxModels(search: "Essai") { id } }')).data.gearboxModels).toEqual([]);
  });
});
