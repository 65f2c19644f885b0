// Technical dossiers through the API: repair procedures and their priorities on outages,
// measures, documents with their stored files, thumbnails and the live dossier.
import { createClient } from 'graphql-ws';
import sharp from 'sharp';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { createModel, createOutage, createProcedure, type DemoRole, type Document, graphqlAs, M, type ProcedureFields, signInAll } from './kit/index.ts';
import { PDF } from './support/fixtures.ts';

const CSV = Buffer.from('régime;pression\n800;4,2\n2000;5,1\n', 'utf8');

const Q = {
  outageProcedures: 'query($id: uuid!) { gearboxOutage(id: $id) { procedures { priority procedure { id name } } } }',
  procedure: 'query($id: uuid!) { repairProcedure(id: $id) { name description steps checkpoints { id position name description } outageCount } }',
  updateMeasure: 'mutation($id: uuid!, $o: gearbox_measures_input!) { updateGearboxMeasure(id: $id, object: $o) { id } }',
  deleteMeasure: 'mutation($id: uuid!) { deleteGearboxMeasure(id: $id) }',
  measure: 'query($id: uuid!) { gearboxMeasure(id: $id) { name unit minimum maximum } }',
  updateDocument: 'mutation($id: uuid!, $t: String!, $c: String!) { updateGearboxDocument(id: $id, title: $t, comment: $c) }',
  deleteDocument: 'mutation($id: uuid!) { deleteGearboxDocument(id: $id) }',
  dossier: `query($id: uuid!) { gearboxModel(id: $id) {
    repairProcedures { id name steps checkpoints { name } outageCount }
    measures { id name unit minimum maximum files { id category title file { id } } }
    documents { id category title comment file { id name mimeType bucketId } }
    outages { id files { id category title file { id } } procedures { priority procedure { id name } } }
  } }`,
};

const procedure = (overrides: Partial<ProcedureFields> = {}): ProcedureFields => ({
  name: 'Remplacement de la mécatronique',
  description: 'Mécatronique hors service',
  steps: ['Vidanger la boîte', 'Déposer la mécatronique', 'Reposer et faire les adaptations'],
  checkpoints: [{ name: 'Pression de ligne', description: 'Au ralenti, moteur chaud' }],
  ...overrides,
});

type Named = { name: string };

describe.each(databaseKinds)('technical dossiers on %s', (kind) => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  let gql: ReturnType<typeof graphqlAs>;
  let jpeg: Buffer;

  beforeAll(async () => {
    t = await startTestApp(kind);
    tokens = await signInAll(t);
    gql = graphqlAs(t, tokens);
    jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 180, g: 40, b: 30 } } })
      .jpeg()
      .toBuffer();
  });
  afterAll(() => t?.close());

  /** Each test works on models of its own, so the demo data cannot change its answers. */
  const newModel = (model: string) => createModel(gql.diagnostician, { model, type: 'automatic', constructorName: 'Aisin Warner', startYear: 2008, gears: 6 });
  const newOutage = (modelId: string, component = 'Mécatronique') => createOutage(gql.diagnostician, modelId, { component, outageType: 'Défaut électrique' });
  const newProcedure = (modelId: string, name: string) => createProcedure(gql.diagnostician, modelId, procedure({ name }));

  async function upload(role: DemoRole, name: string, body: Buffer, bucket: string): Promise<string> {
    const form = new FormData();
    form.append('file[]', new Blob([new Uint8Array(body)]), name);
    form.append('bucket-id', bucket);
    const res = await fetch(`${t.url}/api/storage/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${tokens[role]}` } });
    expect(res.status, name).toBe(201);
    return ((await res.json()) as { processedFiles: { id: string }[] }).processedFiles[0]!.id;
  }

  const download = (fileId: string, query = '') =>
    fetch(`${t.url}/api/storage/files/${fileId}${query}`, { headers: { authorization: `Bearer ${tokens.commercial}` } });
  const modelOf = async (modelId: string, role: DemoRole = 'mechanic') => (await gql(role, Q.dossier, { id: modelId })).data.gearboxModel;

  it('lets admins and diagnosticians write procedures, measures and documents, and commercials and mechanics only read them', async () => {
    const modelId = await newModel('Essai rôles');
    const outageId = await newOutage(modelId);
    for (const writer of ['app_admin', 'diagnostician'] as const) {
      const procedureId = (await gql(writer, M.insertRepairProcedure, { m: modelId, o: procedure({ name: `Procédure ${writer}` }) })).data
        .insertRepairProcedure;
      const updated = await gql(writer, M.updateRepairProcedure, {
        id: procedureId,
        o: procedure({ name: `Procédure ${writer}`, steps: ['Contrôler le niveau'] }),
      });
      expect(updated.data.updateRepairProcedure).toBe(procedureId);
      expect((await gql(writer, M.setOutageProcedures, { o: outageId, p: [procedureId] })).data.setOutageProcedures).toBe(outageId);
      const measureId = (await gql(writer, M.insertGearboxMeasure, { m: modelId, o: { name: `Pression ${writer}`, unit: 'bar', minimum: 2.5, maximum: 4 } }))
        .data.insertGearboxMeasure.id;
      expect(
        (await gql(writer, Q.updateMeasure, { id: measureId, o: { name: `Pression ${writer}`, unit: 'bar', minimum: 2.5, maximum: 4.5 } })).data
          .updateGearboxMeasure.id,
      ).toBe(measureId);
      const fileId = await upload(writer, 'plan.pdf', PDF, 'documents');
      const documentId = (
        await gql(writer, M.insertGearboxDocument, { o: { gearboxModelId: modelId, fileId, category: 'gearbox_technical_drawing', title: 'Plan' } })
      ).data.insertGearboxDocument;
      expect((await gql(writer, Q.updateDocument, { id: documentId, t: 'Plan en coupe', c: 'Révision B' })).data.updateGearboxDocument).toBe(documentId);

      const written = await modelOf(modelId, writer);
      expect(written.repairProcedures).toEqual([
        { id: procedureId, name: `Procédure ${writer}`, steps: ['Contrôler le niveau'], checkpoints: [{ name: 'Pression de ligne' }], outageCount: 1 },
      ]);
      expect(written.measures).toEqual([{ id: measureId, name: `Pression ${writer}`, unit: 'bar', minimum: 2.5, maximum: 4.5, files: [] }]);
      expect(written.documents).toMatchObject([
        { id: documentId, category: 'gearbox_technical_drawing', title: 'Plan en coupe', comment: 'Révision B', file: { id: fileId, name: 'plan.pdf' } },
      ]);
      expect(written.outages[0].procedures).toEqual([{ priority: 1, procedure: { id: procedureId, name: `Procédure ${writer}` } }]);

      const spare = await upload(writer, 'notice.pdf', PDF, 'documents');
      for (const reader of ['commercial', 'mechanic'] as const) {
        expect(await modelOf(modelId, reader)).toEqual(written);
        expect((await gql(reader, Q.procedure, { id: procedureId })).data.repairProcedure.name).toBe(`Procédure ${writer}`);
        expect((await gql(reader, Q.measure, { id: measureId })).data.gearboxMeasure.maximum).toBe(4.5);
        const writes: [string, Document<any, any>, object][] = [
          ['insertRepairProcedure', M.insertRepairProcedure, { m: modelId, o: procedure({ name: 'Intrus' }) }],
          ['updateRepairProcedure', M.updateRepairProcedure, { id: procedureId, o: procedure({ name: 'Intrus' }) }],
          ['deleteRepairProcedure', M.deleteRepairProcedure, { id: procedureId }],
          ['setOutageProcedures', M.setOutageProcedures, { o: outageId, p: [] }],
          ['insertGearboxMeasure', M.insertGearboxMeasure, { m: modelId, o: { name: 'Intrus' } }],
          ['updateGearboxMeasure', Q.updateMeasure, { id: measureId, o: { name: 'Intrus' } }],
          ['deleteGearboxMeasure', Q.deleteMeasure, { id: measureId }],
          ['insertGearboxDocument', M.insertGearboxDocument, { o: { gearboxModelId: modelId, fileId: spare, category: 'gearbox_scrapyard_file' } }],
          ['updateGearboxDocument', Q.updateDocument, { id: documentId, t: 'Intrus', c: '' }],
          ['deleteGearboxDocument', Q.deleteDocument, { id: documentId }],
        ];
        for (const [name, query, variables] of writes)
          expect((await gql(reader, query, variables)).errors?.[0]?.extensions.code, `${name} by ${reader}`).toBe('forbidden');
        expect(await modelOf(modelId, reader)).toEqual(written);
      }
      expect((await download(fileId)).status).toBe(200);

      expect((await gql(writer, M.setOutageProcedures, { o: outageId, p: [] })).data.setOutageProcedures).toBe(outageId);
      expect((await gql(writer, M.deleteRepairProcedure, { id: procedureId })).data.deleteRepairProcedure).toBe(procedureId);
      expect((await gql(writer, Q.deleteMeasure, { id: measureId })).data.deleteGearboxMeasure).toBe(measureId);
      expect((await gql(writer, Q.deleteDocument, { id: documentId })).data.deleteGearboxDocument).toBe(documentId);
      expect(await modelOf(modelId)).toMatchObject({ repairProcedures: [], measures: [], documents: [], outages: [{ procedures: [] }] });
    }
  });

  it('keeps the steps in order without the empty ones, numbers the checkpoints 1..n, and keeps their ids on update', async () => {
    const modelId = await newModel('Essai procédures');
    const inserted = await gql('diagnostician', M.insertRepairProcedure, {
      m: modelId,
      o: procedure({
        steps: ['Vidanger la boîte', '', '   ', 'Déposer la mécatronique', ' Reposer et faire les adaptations '],
        checkpoints: [{ name: 'Pression de ligne', description: 'Au ralenti' }, { name: 'Étanchéité' }, { name: 'Adaptations' }],
      }),
    });
    const id = inserted.data.insertRepairProcedure;
    const created = (await gql('mechanic', Q.procedure, { id })).data.repairProcedure;
    expect(created).toMatchObject({
      name: 'Remplacement de la mécatronique',
      steps: ['Vidanger la boîte', 'Déposer la mécatronique', 'Reposer et faire les adaptations'],
      outageCount: 0,
    });
    expect(created.checkpoints.map((c: { position: number; name: string; description: string }) => [c.position, c.name, c.description])).toEqual([
      [1, 'Pression de ligne', 'Au ralenti'],
      [2, 'Étanchéité', ''],
      [3, 'Adaptations', ''],
    ]);

    const [pressure, seal, adaptations] = created.checkpoints as { id: string }[];
    const update = await gql('diagnostician', M.updateRepairProcedure, {
      id,
      o: procedure({
        steps: ['Déposer la mécatronique', 'Vidanger la boîte'],
        checkpoints: [
          { id: adaptations!.id, name: 'Adaptations', description: "Avec l'outil de diagnostic" },
          { id: pressure!.id, name: 'Pression de ligne' },
          { name: 'Essai routier' },
        ],
      }),
    });
    expect(update.errors).toBeUndefined();
    const updated = (await gql('mechanic', Q.procedure, { id })).data.repairProcedure;
    expect(updated.steps).toEqual(['Déposer la mécatronique', 'Vidanger la boîte']);
    expect(updated.checkpoints.map((c: { position: number; name: string; description: string }) => [c.position, c.name, c.description])).toEqual([
      [1, 'Adaptations', "Avec l'outil de diagnostic"],
      [2, 'Pression de ligne', ''],
      [3, 'Essai routier', ''],
    ]);
    expect(updated.checkpoints[0].id).toBe(adaptations!.id);
    expect(updated.checkpoints[1].id).toBe(pressure!.id);
    expect([pressure!.id, seal!.id, adaptations!.id]).not.toContain(updated.checkpoints[2].id);
  });

  it('refuses a procedure without steps or checkpoints, or named like another of the model, in French, writing nothing', async () => {
    const modelId = await newModel('Essai validation');
    const otherId = await newModel('Essai validation bis');
    const noSteps = await gql('diagnostician', M.insertRepairProcedure, { m: modelId, o: procedure({ steps: ['', '  '] }) });
    expect(noSteps.errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.steps': 'Champ obligatoire' } });
    const noCheckpoint = await gql('diagnostician', M.insertRepairProcedure, { m: modelId, o: procedure({ checkpoints: [] }) });
    expect(noCheckpoint.errors![0]).toMatchObject({
      message: 'Au moins un point de contrôle',
      extensions: { code: 'validation', fields: { 'object.checkpoints': 'Au moins un point de contrôle' } },
    });
    expect((await modelOf(modelId)).repairProcedures).toEqual([]);

    const drain = await newProcedure(modelId, 'Vidange');
    const duplicate = await gql('app_admin', M.insertRepairProcedure, { m: modelId, o: procedure({ name: ' VIDANGE ' }) });
    expect(duplicate.errors![0]).toMatchObject({ message: 'Une procédure porte déjà ce nom', extensions: { code: 'conflict' } });
    // Another model has names of its own.
    expect((await gql('app_admin', M.insertRepairProcedure, { m: otherId, o: procedure({ name: 'Vidange' }) })).errors).toBeUndefined();

    const flush = (
      await gql('diagnostician', M.insertRepairProcedure, {
        m: modelId,
        o: procedure({ name: 'Rinçage', steps: ['Rincer'], checkpoints: [{ name: 'Propreté' }] }),
      })
    ).data.insertRepairProcedure;
    const before = (await gql('mechanic', Q.procedure, { id: flush })).data.repairProcedure;
    const renamed = await gql('diagnostician', M.updateRepairProcedure, {
      id: flush,
      o: procedure({ name: 'vidange', steps: ['Autre'], checkpoints: [{ name: 'Autre point' }] }),
    });
    expect(renamed.errors![0]).toMatchObject({ message: 'Une procédure porte déjà ce nom', extensions: { code: 'conflict' } });
    const emptied = await gql('diagnostician', M.updateRepairProcedure, { id: flush, o: procedure({ name: 'Rinçage', steps: [], checkpoints: [] }) });
    expect(emptied.errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.steps': 'Champ obligatoire', 'object.checkpoints': 'Au moins un point de contrôle' },
    });
    expect((await gql('mechanic', Q.procedure, { id: flush })).data.repairProcedure).toEqual(before);
    expect((await modelOf(modelId)).repairProcedures.map((p: { id: string }) => p.id)).toEqual([flush, drain]);
  });

  it("orders an outage's procedures by priority, refuses another model's, and keeps a listed procedure from deletion", async () => {
    const modelId = await newModel('Essai priorités');
    const otherId = await newModel('Essai priorités bis');
    const outageId = await newOutage(modelId);
    const a = await newProcedure(modelId, 'A — Remplacement de la mécatronique');
    const b = await newProcedure(modelId, 'B — Mise à jour du calculateur');
    const foreign = await newProcedure(otherId, "C — Procédure d'un autre modèle");
    const prioritiesOf = async () =>
      (await gql('commercial', Q.outageProcedures, { id: outageId })).data.gearboxOutage.procedures.map(
        (p: { priority: number; procedure: { id: string } }) => [p.priority, p.procedure.id],
      );

    expect((await gql('diagnostician', M.setOutageProcedures, { o: outageId, p: [b, a] })).data.setOutageProcedures).toBe(outageId);
    expect(await prioritiesOf()).toEqual([
      [1, b],
      [2, a],
    ]);
    expect((await modelOf(modelId)).outages[0].procedures.map((p: { procedure: Named }) => p.procedure.name)).toEqual([
      'B — Mise à jour du calculateur',
      'A — Remplacement de la mécatronique',
    ]);

    const refused = await gql('diagnostician', M.setOutageProcedures, { o: outageId, p: [a, foreign] });
    expect(refused.errors![0]!.extensions.code).toBe('validation');
    expect(refused.data?.setOutageProcedures ?? null).toBeNull();
    const twice = await gql('diagnostician', M.setOutageProcedures, { o: outageId, p: [a, a] });
    expect(twice.errors![0]!.extensions.code).toBe('validation');
    expect(await prioritiesOf()).toEqual([
      [1, b],
      [2, a],
    ]);

    expect((await gql('mechanic', Q.procedure, { id: a })).data.repairProcedure.outageCount).toBe(1);
    const listed = await gql('diagnostician', M.deleteRepairProcedure, { id: a });
    expect(listed.errors![0]).toMatchObject({ message: 'Suppression impossible', extensions: { code: 'conflict', reasons: ["pannes qui l'utilisent (1)"] } });
    expect((await gql('mechanic', Q.procedure, { id: a })).data.repairProcedure).not.toBeNull();

    expect((await gql('app_admin', M.setOutageProcedures, { o: outageId, p: [b] })).data.setOutageProcedures).toBe(outageId);
    expect(await prioritiesOf()).toEqual([[1, b]]);
    expect((await gql('diagnostician', M.deleteRepairProcedure, { id: a })).data.deleteRepairProcedure).toBe(a);
    expect((await gql('mechanic', Q.procedure, { id: a })).data.repairProcedure).toBeNull();
    // Deleting the outage lets its procedures go too.
    expect((await gql('diagnostician', M.deleteOutage, { id: outageId })).data.deleteOutage).toBe(outageId);
    expect((await gql('diagnostician', M.deleteRepairProcedure, { id: b })).data.deleteRepairProcedure).toBe(b);
  });

  it("checks a measure's bounds in French and writes nothing when they are wrong", async () => {
    const modelId = await newModel('Essai mesures');
    const insert = (o: object) => gql('diagnostician', M.insertGearboxMeasure, { m: modelId, o: { name: 'Pression de ligne', unit: 'bar', ...o } });
    expect((await insert({ minimum: -1, maximum: 4 })).errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.minimum': 'Nombre invalide' } });
    expect((await insert({ minimum: 2, maximum: 1e12 })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.maximum': 'Nombre invalide' },
    });
    expect((await insert({ minimum: 5, maximum: 4 })).errors![0]).toMatchObject({
      message: 'Le maximum doit être supérieur ou égal au minimum',
      extensions: { code: 'validation', fields: { 'object.maximum': 'Le maximum doit être supérieur ou égal au minimum' } },
    });
    // Not a number at all: the API's types refuse it before anything runs.
    expect((await insert({ minimum: 'deux' })).errors).toHaveLength(1);
    expect((await modelOf(modelId)).measures).toEqual([]);

    const pressure = (await insert({ minimum: 2.5, maximum: 4 })).data.insertGearboxMeasure;
    expect(pressure).toMatchObject({ name: 'Pression de ligne', unit: 'bar', minimum: 2.5, maximum: 4 });
    expect((await insert({ name: 'Débit', unit: 'l/min', minimum: 0 })).data.insertGearboxMeasure).toMatchObject({ minimum: 0, maximum: null });
    const reversed = await gql('diagnostician', Q.updateMeasure, { id: pressure.id, o: { name: 'Pression', minimum: 6, maximum: 3 } });
    expect(reversed.errors![0]!.extensions).toEqual({ code: 'validation', fields: { 'object.maximum': 'Le maximum doit être supérieur ou égal au minimum' } });
    expect((await gql('diagnostician', Q.updateMeasure, { id: pressure.id, o: { name: 'Pression', minimum: -3 } })).errors![0]!.extensions.fields).toEqual({
      'object.minimum': 'Nombre invalide',
    });
    expect((await gql('mechanic', Q.measure, { id: pressure.id })).data.gearboxMeasure).toEqual({
      name: 'Pression de ligne',
      unit: 'bar',
      minimum: 2.5,
      maximum: 4,
    });
    // Equal bounds are a range of one value.
    expect(
      (await gql('diagnostician', Q.updateMeasure, { id: pressure.id, o: { name: 'Pression de ligne', unit: 'bar', minimum: 4, maximum: 4 } })).errors,
    ).toBeUndefined();
    expect((await modelOf(modelId)).measures.map((m: Named) => m.name)).toEqual(['Débit', 'Pression de ligne']);
  });

  it("links uploaded files by category, and refuses a file from another bucket, a curve that is not CSV and another model's outage", async () => {
    const modelId = await newModel('Essai documents');
    const otherId = await newModel('Essai documents bis');
    const outageId = await newOutage(modelId);
    const foreignOutageId = await newOutage(otherId);
    const measureId = (await gql('diagnostician', M.insertGearboxMeasure, { m: modelId, o: { name: 'Pression de ligne', unit: 'bar' } })).data
      .insertGearboxMeasure.id;
    const link = (o: object) => gql('diagnostician', M.insertGearboxDocument, { o: { gearboxModelId: modelId, ...o } });

    const cases: [category: string, name: string, body: Buffer, bucket: string, extra: object][] = [
      ['gearbox_technical_drawing', 'plan.pdf', PDF, 'documents', { title: 'Plan en coupe' }],
      ['gearbox_scrapyard_file', 'fiche-casse.pdf', PDF, 'documents', {}],
      ['gearbox_manufacturer_information', 'note.pdf', PDF, 'documents', {}],
      ['measure_procedure', 'mesure-pression.pdf', PDF, 'measure', {}],
      ['reference_curve', 'courbe.csv', CSV, 'documents', { comment: 'Moteur chaud' }],
      ['outage_file', 'fuite.jpg', jpeg, 'outage', { outageId }],
      ['measure_file', 'releve.csv', CSV, 'measure', { measureId }],
    ];
    const fileIds: Record<string, string> = {};
    for (const [category, name, body, bucket, extra] of cases) {
      fileIds[category] = await upload('diagnostician', name, body, bucket);
      const res = await link({ fileId: fileIds[category], category, ...extra });
      expect(res.errors, category).toBeUndefined();
    }
    const dossier = await modelOf(modelId);
    type Doc = { category: string; title: string; comment: string; file: { id: string; mimeType: string; bucketId: string } };
    expect(dossier.documents.map((d: Doc) => [d.category, d.title, d.comment, d.file.mimeType, d.file.bucketId]).sort()).toEqual([
      ['gearbox_manufacturer_information', 'note.pdf', '', 'application/pdf', 'documents'],
      ['gearbox_scrapyard_file', 'fiche-casse.pdf', '', 'application/pdf', 'documents'],
      ['gearbox_technical_drawing', 'Plan en coupe', '', 'application/pdf', 'documents'],
      ['measure_procedure', 'mesure-pression.pdf', '', 'application/pdf', 'measure'],
      ['reference_curve', 'courbe.csv', 'Moteur chaud', 'text/csv', 'documents'],
    ]);
    expect(dossier.outages[0].files).toMatchObject([{ category: 'outage_file', title: 'fuite.jpg', file: { id: fileIds.outage_file } }]);
    expect(dossier.measures[0].files).toMatchObject([{ category: 'measure_file', title: 'releve.csv', file: { id: fileIds.measure_file } }]);

    const fromOutageBucket = await upload('diagnostician', 'plan-b.pdf', PDF, 'outage');
    expect((await link({ fileId: fromOutageBucket, category: 'gearbox_technical_drawing' })).errors![0]).toMatchObject({
      message: 'Format non supporté',
      extensions: { code: 'validation' },
    });
    const fromDocuments = await upload('diagnostician', 'photo.jpg', jpeg, 'documents');
    expect((await link({ fileId: fromDocuments, category: 'outage_file', outageId })).errors![0]!.message).toBe('Format non supporté');
    const pdfCurve = await upload('diagnostician', 'courbe.pdf', PDF, 'documents');
    expect((await link({ fileId: pdfCurve, category: 'reference_curve' })).errors![0]).toMatchObject({
      message: 'Format non supporté',
      extensions: { code: 'validation' },
    });
    const photo = await upload('diagnostician', 'fuite-2.jpg', jpeg, 'outage');
    expect((await link({ fileId: photo, category: 'outage_file', outageId: foreignOutageId })).errors![0]!.extensions.code).toBe('not-found');
    expect((await link({ fileId: fileIds.reference_curve, category: 'reference_curve' })).errors![0]).toMatchObject({
      message: 'Ce fichier est déjà joint',
      extensions: { code: 'conflict' },
    });
    const after = await modelOf(modelId);
    expect(after.documents).toHaveLength(5);
    expect(after.outages[0].files).toHaveLength(1);
    expect((await modelOf(otherId)).outages[0].files).toEqual([]);
    // The refused photo is fine on its own model's outage.
    expect((await link({ fileId: photo, category: 'outage_file', outageId })).errors).toBeUndefined();
  });

  it("removes the stored file with its document, and an outage's and a measure's files with them", async () => {
    const modelId = await newModel('Essai suppression fichiers');
    const outageId = await newOutage(modelId);
    const measureId = (await gql('diagnostician', M.insertGearboxMeasure, { m: modelId, o: { name: 'Pression de ligne' } })).data.insertGearboxMeasure.id;
    const plan = await upload('diagnostician', 'plan.pdf', PDF, 'documents');
    const curve = await upload('diagnostician', 'courbe.csv', CSV, 'documents');
    const photo = await upload('diagnostician', 'fuite.jpg', jpeg, 'outage');
    const reading = await upload('diagnostician', 'releve.csv', CSV, 'measure');
    const link = async (o: object) =>
      (await gql('app_admin', M.insertGearboxDocument, { o: { gearboxModelId: modelId, ...o } })).data.insertGearboxDocument as string;
    const planDoc = await link({ fileId: plan, category: 'gearbox_technical_drawing' });
    await link({ fileId: curve, category: 'reference_curve' });
    await link({ fileId: photo, category: 'outage_file', outageId });
    await link({ fileId: reading, category: 'measure_file', measureId });
    for (const fileId of [plan, curve, photo, reading]) expect((await download(fileId)).status).toBe(200);

    expect((await gql('diagnostician', Q.deleteDocument, { id: planDoc })).data.deleteGearboxDocument).toBe(planDoc);
    expect((await download(plan)).status).toBe(404);
    expect((await modelOf(modelId)).documents.map((d: { file: { id: string } }) => d.file.id)).toEqual([curve]);

    expect((await gql('diagnostician', M.deleteOutage, { id: outageId })).data.deleteOutage).toBe(outageId);
    expect((await download(photo)).status).toBe(404);
    expect((await gql('diagnostician', Q.deleteMeasure, { id: measureId })).data.deleteGearboxMeasure).toBe(measureId);
    expect((await download(reading)).status).toBe(404);
    expect((await download(curve)).status).toBe(200);
    expect((await gql('diagnostician', Q.deleteDocument, { id: planDoc })).errors![0]!.extensions.code).toBe('not-found');
  });

  it('refuses deleting a model with procedures, documents or outages, naming them', async () => {
    const modelId = await newModel('Essai suppression modèle');
    const procedureId = await newProcedure(modelId, 'Vidange');
    const plan = await upload('diagnostician', 'plan.pdf', PDF, 'documents');
    const curve = await upload('diagnostician', 'courbe.csv', CSV, 'documents');
    const documents: string[] = [];
    for (const [fileId, category] of [
      [plan, 'gearbox_technical_drawing'],
      [curve, 'reference_curve'],
    ]) {
      documents.push((await gql('diagnostician', M.insertGearboxDocument, { o: { gearboxModelId: modelId, fileId, category } })).data.insertGearboxDocument);
    }
    const outageId = await newOutage(modelId);
    const refused = await gql('app_admin', M.deleteGearboxModel, { id: modelId });
    expect(refused.errors![0]).toMatchObject({
      message: 'Suppression impossible',
      extensions: { code: 'conflict', reasons: ['procédures de réparation (1)', 'documents techniques (2)', 'hypothèses de panne (1)'] },
    });

    expect((await gql('diagnostician', M.deleteRepairProcedure, { id: procedureId })).errors).toBeUndefined();
    expect((await gql('diagnostician', M.deleteOutage, { id: outageId })).errors).toBeUndefined();
    expect((await gql('app_admin', M.deleteGearboxModel, { id: modelId })).errors![0]!.extensions).toMatchObject({
      code: 'conflict',
      reasons: ['documents techniques (2)'],
    });
    for (const id of documents) expect((await gql('diagnostician', Q.deleteDocument, { id })).errors).toBeUndefined();
    const measureId = (await gql('diagnostician', M.insertGearboxMeasure, { m: modelId, o: { name: 'Pression' } })).data.insertGearboxMeasure.id;
    expect((await gql('app_admin', M.deleteGearboxModel, { id: modelId })).errors![0]).toMatchObject({
      message: 'Suppression impossible',
      extensions: { code: 'conflict' },
    });
    expect((await gql('diagnostician', Q.deleteMeasure, { id: measureId })).errors).toBeUndefined();
    expect((await gql('app_admin', M.deleteGearboxModel, { id: modelId })).data.deleteGearboxModel.id).toBe(modelId);
  });

  it('serves a WebP thumbnail of an image with w=, and a file that is not an image as it is', async () => {
    const photo = await upload('diagnostician', 'fuite.jpg', jpeg, 'outage');
    const small = await download(photo, '?w=160');
    expect(small.status).toBe(200);
    expect(small.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(Buffer.from(await small.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 160, height: 120 });
    // Made once, then served again.
    const again = await download(photo, '?w=160');
    expect(again.headers.get('etag')).toBe(small.headers.get('etag'));
    expect(again.headers.get('etag')).not.toBe((await download(photo)).headers.get('etag'));
    const whole = await download(photo);
    expect(whole.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(jpeg);

    const pdf = await upload('diagnostician', 'plan.pdf', PDF, 'documents');
    const asked = await download(pdf, '?w=160');
    expect(asked.status).toBe(200);
    expect(asked.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await asked.arrayBuffer())).toEqual(PDF);

    // A JPEG header on bytes that do not decode passes the upload; its thumbnail is the file itself.
    const broken = Buffer.concat([jpeg.subarray(0, 4), Buffer.alloc(300, 7)]);
    const brokenId = await upload('diagnostician', 'casse.jpg', broken, 'outage');
    const fallback = await download(brokenId, '?w=160');
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await fallback.arrayBuffer())).toEqual(broken);
  });

  it("sends the dossier again when an outage's priorities change", async () => {
    const modelId = await newModel('Essai en direct');
    const outageId = await newOutage(modelId);
    const a = await newProcedure(modelId, 'A — Remplacement de la mécatronique');
    const b = await newProcedure(modelId, 'B — Mise à jour du calculateur');
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { headers: { Authorization: `Bearer ${tokens.mechanic}` } },
    });
    try {
      const seen: string[][] = [];
      let first!: () => void;
      const started = new Promise<void>((resolve) => (first = resolve));
      const reordered = new Promise<void>((resolve, reject) => {
        client.subscribe<{ gearboxModel: { outages: { procedures: { priority: number; procedure: Named }[] }[] } }>(
          {
            query: 'subscription($id: uuid!) { gearboxModel(id: $id) { outages { procedures { priority procedure { name } } } } }',
            variables: { id: modelId },
          },
          {
            next: (value) => {
              if (value.errors) return reject(new Error(value.errors[0]!.message));
              const names = value.data!.gearboxModel.outages[0]!.procedures.map((p) => `${p.priority}. ${p.procedure.name}`);
              seen.push(names);
              first();
              if (names.length === 2) resolve();
            },
            error: reject,
            complete: () => undefined,
          },
        );
      });
      await started;
      expect((await gql('diagnostician', M.setOutageProcedures, { o: outageId, p: [b, a] })).data.setOutageProcedures).toBe(outageId);
      await Promise.race([reordered, new Promise((_, reject) => setTimeout(() => reject(new Error('the dossier was not sent again within 5 s')), 5000))]);
      expect(seen[0]).toEqual([]);
      expect(seen.at(-1)).toEqual(['1. B — Mise à jour du calculateur', '2. A — Remplacement de la mécatronique']);
    } finally {
      await client.dispose();
    }
  });
});
