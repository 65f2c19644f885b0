// Gearbox models through the API: A and D write, C and M read; uniqueness and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestApp, type TestApp, viewerOf } from './support/app.ts';
import { graphqlAs, M, signInAll } from './kit/index.ts';

const model = (overrides: object = {}) => ({
  model: 'Aisin TF-60SN',
  type: 'automatic',
  constructorName: 'Aisin Warner',
  startYear: 2003,
  endYear: 2016,
  gears: 6,
  ...overrides,
});

describe.each(databaseKinds)('gearbox models on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  it('lets every role read and filter the models', async () => {
    for (const role of ['app_admin', 'diagnostician', 'mechanic', 'commercial'] as const) {
      const res = await gql(role, '{ gearboxModels(type: variator) { model } gearboxModelsAggregate { aggregate { count } } }');
      expect(res.data).toEqual({ gearboxModels: [{ model: 'Jatco JF011E' }], gearboxModelsAggregate: { aggregate: { count: 9 } } });
    }
    const covered = await gql('mechanic', '{ gearboxModels(year: 2010, search: "aisin") { model } }');
    expect(covered.data.gearboxModels.map((m: { model: string }) => m.model)).toEqual(['Aisin AW55-51SN', 'Aisin TF-80SC']);
  });

  it('reads a search cut at 120 characters, for the pages as for the API', async () => {
    // What lies past the cut is not searched: the name and the spaces before it find the model.
    const search = `Jatco JF011E${' '.repeat(130)}introuvable`;
    const services = t.app.services.forViewer(await viewerOf(t, 'mecanicien@demo.local'));
    expect((await services.gearboxModels.list({ search, limit: 20, offset: 0 })).map((m) => m.model)).toEqual(['Jatco JF011E']);
    expect(await services.gearboxModels.count({ search })).toBe(1);
    const { gearboxModels } = (await gql('mechanic', 'query($s: String) { gearboxModels(search: $s) { model } }', { s: search })).data;
    expect(gearboxModels).toEqual([{ model: 'Jatco JF011E' }]);
  });

  it('finds a model by a doctor or gearbox code of its dossier, as the stock finds its boxes', async () => {
    // The code on the plate of boxes in stock: the order's compatible search starts from it.
    const { stockItems } = (await gql('commercial', '{ stockItems(limit: 1) { gearboxCode doctorCode model { model } } }')).data;
    const [box] = stockItems as { gearboxCode: string; doctorCode: string; model: { model: string } }[];
    for (const code of [box!.gearboxCode, box!.doctorCode]) {
      const { gearboxModels } = (await gql('mechanic', 'query($s: String) { gearboxModels(search: $s) { model } }', { s: code })).data;
      expect(gearboxModels).toContainEqual({ model: box!.model.model });
    }
    const { stockItemsAggregate } = (await gql('commercial', 'query($s: String) { stockItemsAggregate(search: $s) { count } }', { s: box!.gearboxCode })).data;
    expect(stockItemsAggregate.count).toBeGreaterThan(0);
  });

  it('records the parent BVA model of a model, never itself nor a loop, and keeps a parent', async () => {
    const base = { type: 'automatic', constructorName: 'Essai parent', startYear: 2010 };
    const parent = (await gql('diagnostician', M.insertGearboxModel, { o: { ...base, model: `Parent ${kind}` } })).data.insertGearboxModel;
    const child = (await gql('diagnostician', M.insertGearboxModel, { o: { ...base, model: `Dérivé ${kind}`, parentId: parent.id } })).data.insertGearboxModel;
    expect(child.parentId).toBe(parent.id);
    const refusal = async (id: string, parentId: string) =>
      (await gql('diagnostician', M.updateGearboxModel, { id, o: { ...base, model: id === parent.id ? `Parent ${kind}` : `Dérivé ${kind}`, parentId } }))
        .errors![0]!.extensions;
    expect(await refusal(parent.id, parent.id)).toMatchObject({ code: 'validation', fields: { parentId: 'Un modèle ne peut pas être son propre parent' } });
    // The parent under its own child would make a loop.
    expect(await refusal(parent.id, child.id)).toMatchObject({ code: 'validation', fields: { parentId: 'Un modèle ne peut pas être son propre parent' } });
    expect(await refusal(child.id, '00000000-0000-4000-8000-000000000000')).toMatchObject({ code: 'validation', fields: { parentId: 'Élément introuvable' } });
    // The list filtered by a model shows it and the models derived from it.
    const family = (
      await gql('commercial', 'query($m: uuid) { gearboxModels(modelId: $m) { model } gearboxModelsAggregate(modelId: $m) { aggregate { count } } }', {
        m: parent.id,
      })
    ).data;
    expect(family).toEqual({ gearboxModels: [{ model: `Dérivé ${kind}` }, { model: `Parent ${kind}` }], gearboxModelsAggregate: { aggregate: { count: 2 } } });
    const kept = await gql('app_admin', M.deleteGearboxModel, { id: parent.id });
    expect(kept.errors![0]!.extensions).toMatchObject({ reasons: ['modèles dérivés (1)'] });
    for (const id of [child.id, parent.id]) expect((await gql('app_admin', M.deleteGearboxModel, { id })).errors).toBeUndefined();
  });

  it('lets admins and diagnosticians create, update and delete, and refuses the others', async () => {
    for (const role of ['mechanic', 'commercial'] as const)
      expect((await gql(role, M.insertGearboxModel, { o: model() })).errors![0]!.extensions.code).toBe('forbidden');
    const created = (await gql('diagnostician', M.insertGearboxModel, { o: model() })).data.insertGearboxModel;
    expect(created).toMatchObject({ model: 'Aisin TF-60SN', startYear: 2003, endYear: 2016, gears: 6 });
    expect((await gql('commercial', M.updateGearboxModel, { id: created.id, o: model({ endYear: 2018 }) })).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('app_admin', M.updateGearboxModel, { id: created.id, o: model({ endYear: 2018 }) })).data.updateGearboxModel.endYear).toBe(2018);
    expect((await gql('mechanic', M.deleteGearboxModel, { id: created.id })).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('diagnostician', M.deleteGearboxModel, { id: created.id })).data.deleteGearboxModel.model).toBe('Aisin TF-60SN');
  });

  it('refuses a model already recorded, whatever its case: "Modèle non disponible"', async () => {
    const res = await gql('diagnostician', M.insertGearboxModel, { o: model({ model: 'vw dq200 0am' }) });
    expect(res.errors![0]).toMatchObject({ message: 'Modèle non disponible', extensions: { code: 'conflict' } });
  });

  it('refuses bad years and numbers in French, and writes nothing', async () => {
    const res = await gql('diagnostician', M.insertGearboxModel, {
      o: model({ model: 'Essai', startYear: 99, endYear: 1990, gears: 0, constructorName: ' ' }),
    });
    expect(res.errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.constructorName': 'Champ obligatoire', 'object.startYear': 'Année invalide', 'object.gears': 'Minimum 1' },
    });
    const before = await gql('diagnostician', M.insertGearboxModel, { o: model({ model: 'Essai', startYear: 2010, endYear: 2005 }) });
    expect(before.errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.endYear': 'Année invalide' } });
    // Fitted from a year still to come: a typo (walk31 W4).
    const later = await gql('diagnostician', M.insertGearboxModel, { o: model({ model: 'Essai', startYear: 2099, endYear: null }) });
    expect(later.errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.startYear': 'Année invalide' } });
    expect((await gql('diagnostician', '{ gearboxModels(search: "Essai") { id } }')).data.gearboxModels).toEqual([]);
  });

  it('keeps doctor and gearbox codes unique, refuses deleting a doctor code in use, and lets only A and D write', async () => {
    const modelId = (await gql('mechanic', '{ gearboxModels(search: "DQ250") { id } }')).data.gearboxModels[0].id;
    expect((await gql('commercial', M.insertDoctorCode, { m: modelId, o: { code: 'DQ250-CD' } })).errors![0]!.extensions.code).toBe('forbidden');
    const doctor = (await gql('diagnostician', M.insertDoctorCode, { m: modelId, o: { code: 'DQ250-CD', engine: '2.0 TDI 170' } })).data.insertDoctorCode;
    expect((await gql('app_admin', M.insertDoctorCode, { m: modelId, o: { code: 'dq250-cd' } })).errors![0]).toMatchObject({
      message: 'Code déjà existant',
      extensions: { code: 'conflict' },
    });
    const box = (await gql('diagnostician', M.insertGearboxCode, { d: doctor.id, c: 'KNS' })).data.insertGearboxCode;
    expect((await gql('diagnostician', M.insertGearboxCode, { d: doctor.id, c: 'kns' })).errors![0]!.message).toBe('Code déjà existant');
    const read = await gql('mechanic', 'query($id: uuid!) { gearboxModel(id: $id) { doctorCodes { code engine gearboxCodes { code } } } }', { id: modelId });
    // Between the demo's own doctor codes of the model, in code order.
    expect(read.data.gearboxModel.doctorCodes).toEqual([
      { code: 'DQ250-BKD', engine: '2.0 TDI BKD (140 ch)', gearboxCodes: [{ code: 'HXT' }, { code: 'JPM' }] },
      { code: 'DQ250-CD', engine: '2.0 TDI 170', gearboxCodes: [{ code: 'KNS' }] },
      { code: 'DQ250-CFG', engine: '2.0 TDI CFGB (170 ch)', gearboxCodes: [{ code: 'LQV' }, { code: 'NLE' }] },
    ]);
    expect((await gql('diagnostician', M.deleteDoctorCode, { id: doctor.id })).errors![0]).toMatchObject({
      message: 'Code utilisé',
      extensions: { code: 'conflict' },
    });
    expect((await gql('mechanic', M.deleteGearboxCode, { id: box.id })).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('diagnostician', M.deleteGearboxCode, { id: box.id })).data.deleteGearboxCode).toBe(box.id);
    expect((await gql('diagnostician', M.deleteDoctorCode, { id: doctor.id })).data.deleteDoctorCode).toBe(doctor.id);
  });

  it('keeps error codes unique within a model, in capitals, and lets only A and D write', async () => {
    const models = (await gql('mechanic', '{ gearboxModels(search: "ZF") { id model errorCodes { code } } }')).data.gearboxModels;
    const [first, second] = models;
    expect(first.errorCodes.map((c: { code: string }) => c.code)).toContain('P0730');
    expect(
      (await gql('commercial', M.insertErrorCode, { m: first.id, o: { code: 'P0735', description: 'Rapport 5 incorrect' } })).errors![0]!.extensions.code,
    ).toBe('forbidden');
    const created = (await gql('diagnostician', M.insertErrorCode, { m: first.id, o: { code: 'p0735', description: 'Rapport 5 incorrect' } })).data
      .insertErrorCode;
    expect(created.code).toBe('P0735');
    expect((await gql('diagnostician', M.insertErrorCode, { m: first.id, o: { code: 'P0735', description: 'Doublon' } })).errors![0]!.message).toBe(
      'Code déjà existant',
    );
    // The same code on another model is that model's own.
    expect(
      (await gql('diagnostician', M.insertErrorCode, { m: second.id, o: { code: 'P0735', description: 'Rapport 5 incorrect' } })).data.insertErrorCode.code,
    ).toBe('P0735');
    expect((await gql('diagnostician', M.insertErrorCode, { m: first.id, o: { code: 'P07 35!', description: 'x' } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.code': 'Code invalide' },
    });
    expect((await gql('diagnostician', M.deleteErrorCode, { id: created.id })).data.deleteErrorCode).toBe(created.id);
  });

  it('records outages from the base names, refuses unknown ones unless added, and keeps a model that has some', async () => {
    const modelId = (await gql('mechanic', '{ gearboxModels(search: "ETG6") { id } }')).data.gearboxModels[0].id;
    const outage = { component: 'mécatronique', outageType: 'Défaut logiciel', occurrenceRate: 9, averageMileage: 80000 };
    expect((await gql('mechanic', M.insertOutage, { m: modelId, o: outage })).errors![0]!.extensions.code).toBe('forbidden');
    const unknown = await gql('diagnostician', M.insertOutage, { m: modelId, o: { ...outage, component: "Actionneur d'embrayage", outageType: 'Calage' } });
    expect(unknown.errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: {
        'object.component': 'Cet item ne fait pas partie de la base de donnée',
        'object.outageType': 'Cet item ne fait pas partie de la base de donnée',
      },
    });
    expect((await gql('diagnostician', '{ baseItems(kind: component, search: "Actionneur") { name } }')).data.baseItems).toEqual([]);
    const id = (await gql('diagnostician', M.insertOutage, { m: modelId, o: outage })).data.insertOutage;
    const added = (await gql('diagnostician', M.insertOutage, { m: modelId, o: { ...outage, component: "Actionneur d'embrayage", addMissing: true } })).data
      .insertOutage;
    const read = await gql('commercial', 'query($id: uuid!) { gearboxOutage(id: $id) { component { name } outageType { name } occurrenceRate } }', { id });
    expect(read.data.gearboxOutage).toEqual({ component: { name: 'Mécatronique' }, outageType: { name: 'Défaut logiciel' }, occurrenceRate: 9 });
    expect((await gql('diagnostician', '{ baseItems(kind: component, search: "Actionneur") { name } }')).data.baseItems).toEqual([
      { name: "Actionneur d'embrayage" },
    ]);
    expect((await gql('diagnostician', M.insertOutage, { m: modelId, o: { ...outage, occurrenceRate: 140 } })).errors![0]!.extensions).toMatchObject({
      code: 'validation',
      fields: { 'object.occurrenceRate': 'Entre 0 et 100' },
    });

    const refused = await gql('diagnostician', M.deleteGearboxModel, { id: modelId });
    // The demo dossier: 3 procedures, 3 measures and a reference curve, 4 outages; and the 2 added here.
    // The demo stock: 6 of its boxes on the racks and 2 gone, kept in the history. The demo orders: 4 on this model.
    expect(refused.errors![0]).toMatchObject({
      message: 'Suppression impossible',
      extensions: {
        code: 'conflict',
        reasons: [
          'ordres de réparation (4)',
          'procédures de réparation (3)',
          'documents techniques (4)',
          'hypothèses de panne (6)',
          'boîtes en stock (6)',
          'historique du stock (2)',
        ],
      },
    });
    const componentId = (await gql('diagnostician', '{ baseItems(kind: component, search: "Actionneur") { id } }')).data.baseItems[0].id;
    expect((await gql('diagnostician', M.deleteBaseItem, { id: componentId })).errors![0]!.message).toBe('Cet item est utilisé');
    for (const outageId of [id, added]) expect((await gql('diagnostician', M.deleteOutage, { id: outageId })).data.deleteOutage).toBe(outageId);
  });
});
