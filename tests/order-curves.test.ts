// The curves of a repair order and its imported diagnostic files: through the API (roles, a
// reference curve of the order's model only, files attached and removed with their bytes, a
// closed order untouched), through the tab's form posts (a refused file among good ones, nothing
// half-written), and the CSV checks that name the line at fault.
import type { AstroGlobal } from 'astro';
import { count, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gearboxDocuments, repairOrders, files as storedFiles, users } from '#server/db/schema/index.ts';
import { MAX_CURVE_ROWS, parseCurve, readCurve, ticks } from '#lib/repair-orders/curves.ts';
import type { TabFailure } from '#lib/repair-orders/diagnostic-page.ts';
import { readPage } from '#lib/page-query.ts';
import { formatNumber } from '#lib/format.ts';
import { postCurves, querySchema } from '#pages/repair-order/[orderId]/_diagnostic.screen.ts';
import { databaseKinds, startTestApp, type TestApp } from './support/app.ts';
import { demoEmails, type DemoRole, graphqlAs, M, ok, signInAll, createModel, createOrder } from './kit/index.ts';
import { PDF } from './support/fixtures.ts';

const REFERENCE = Buffer.from('temps_s;pression_min_bar;pression_max_bar\n0;4;5\n1;8;9,5\n2;7;8\n', 'utf8');
const MEASURED = Buffer.from('temps_s;pression_bar\n0;4,5\n1;10,2\n2;7,4\n', 'utf8');
const CLOSED = 'Cet ordre de réparation est clôturé : il ne peut plus être modifié.';

const Q = {
  updateCurve: 'mutation($id: uuid!, $c: order_curves_input!) { updateOrderCurve(id: $id, object: $c) }',
  deleteCurve: 'mutation($id: uuid!) { deleteOrderCurve(id: $id) }',
  deleteFile: 'mutation($id: uuid!) { deleteOrderFile(id: $id) }',
  order: `query($id: uuid!) { repairOrder(id: $id) {
    curves { id description result comment reference { id title file { name } } measureProcedure { id title } files { id kind curveId comment file { id name mimeType } } }
    diagnosticFiles { id kind curveId file { id name mimeType size } }
  } }`,
};

describe('curve CSV checks', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `${i};${(i * 0.5).toFixed(1).replace('.', ',')}`).join('\n');

  it('reads a band and a series, with decimal commas', () => {
    expect(parseCurve(REFERENCE.toString())).toEqual({
      xLabel: 'Temps (s)',
      series: [],
      band: {
        label: 'Pression min – max (bar)',
        points: [
          [0, 4, 5],
          [1, 8, 9.5],
          [2, 7, 8],
        ],
      },
    });
    expect(readCurve(MEASURED.toString()).curve?.series).toEqual([
      {
        label: 'Pression (bar)',
        points: [
          [0, 4.5],
          [1, 10.2],
          [2, 7.4],
        ],
      },
    ]);
  });

  it('reads the machine names of exported columns as words with their unit', () => {
    const labels = (header: string) => {
      const curve = parseCurve(`${header}\n0;1;2\n1;2;3\n`)!;
      return [curve.xLabel, curve.band?.label, ...curve.series.map((s) => s.label)].filter(Boolean);
    };
    expect(labels('temps_s;course_min_mm;course_max_mm')).toEqual(['Temps (s)', 'Course min – max (mm)']);
    expect(labels('regime_rpm;pression_c1_bar;couple_nm')).toEqual(['Regime (tr/min)', 'Pression c1 (bar)', 'Couple (N·m)']);
    expect(labels('regime_tr_min;pression_bar;debit')).toEqual(['Regime (tr/min)', 'Pression (bar)', 'debit']);
    expect(labels('temps_s;pression_min_bar;debit_max_l')).toEqual(['Temps (s)', 'Pression min (bar) – Debit max (l)']);
    // Headers written for people are the workshop's own words.
    expect(labels('Temps (s);Pression basse;Pression haute')).toEqual(['Temps (s)', 'Pression basse – Pression haute']);
  });

  it('names the line of a cell that is not a number, blank lines counted', () => {
    const csv = `temps;pression\n${lines(9)}\n\n1,5;abc\n3;4\n`;
    expect(readCurve(csv)).toEqual({ curve: null, error: "Ligne 12 : « abc » n'est pas un nombre" });
    expect(parseCurve(csv)).toBeNull();
    expect(readCurve('temps;pression;débit\n0;1;2\n1;2\n').error).toBe('Ligne 3 : valeur manquante dans la colonne « débit »');
    expect(readCurve('temps;pression\n0;1\n').error).toBe('Il faut au moins deux lignes de valeurs.');
    expect(readCurve('temps\n0\n1\n').error).toBe("Il faut au moins deux colonnes : l'abscisse, puis une valeur ou les limites basse et haute.");
  });

  it('refuses values beyond any measure, and ticks never loop on huge or tiny ranges', () => {
    expect(readCurve('temps;pression\n1152921504606846976;1\n1152921504606847232;2\n').error).toBe(
      "Ligne 2 : « 1152921504606846976 » est hors de portée d'une mesure",
    );
    expect(readCurve('temps;pression\n0;1e999\n1;2\n').error).toBe("Ligne 2 : « 1e999 » est hors de portée d'une mesure");
    // Steps below the resolution of doubles: a bounded handful of ticks, not an endless loop.
    // biome-ignore lint/correctness/noPrecisionLoss: the point is bounds past 2^53
    expect(ticks(1152921504606846976, 1152921504606847232).length).toBeLessThanOrEqual(16);
    expect(ticks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it('refuses ten million lines without reading them', () => {
    const csv = `temps;pression\n${'1;2\n'.repeat(10_000_000)}`;
    expect(readCurve(csv).error).toBe(`Fichier trop long : ${formatNumber(MAX_CURVE_ROWS)} lignes de valeurs au plus.`);
    expect(readCurve(`temps;pression\n${'\n'.repeat(10_000_000)}`).error).toMatch(/^Fichier trop long/);
  });

  it('draws the longest file thinned, its spikes kept', () => {
    const rows = Array.from({ length: MAX_CURVE_ROWS }, (_, i) => `${i};${i === 12_345 ? 100 : 1}`);
    const curve = readCurve(`x;y\n${rows.join('\n')}`).curve!;
    expect(curve.series[0]!.points.length).toBeLessThanOrEqual(1600);
    expect(Math.max(...curve.series[0]!.points.map(([, y]) => y))).toBe(100);
    expect(readCurve(`x;y\n${rows.join('\n')}\n1;1`).error).toMatch(/^Fichier trop long/);
  });
});

describe.each(databaseKinds)('order curves and imported files on %s', (kind) => {
  let t: TestApp;
  let tokens: Record<DemoRole, string>;
  let gql: ReturnType<typeof graphqlAs>;
  let png: Buffer;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(kind);
    tokens = await signInAll(t);
    gql = graphqlAs(t, tokens);
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 20, g: 90, b: 200 } } })
      .png()
      .toBuffer();
  });
  afterAll(() => t?.close());

  async function upload(role: DemoRole, name: string, body: Buffer, bucket: string): Promise<{ status: number; id?: string; message?: string }> {
    const form = new FormData();
    form.append('file[]', new Blob([new Uint8Array(body)]), name);
    form.append('bucket-id', bucket);
    const res = await fetch(`${t.url}/api/storage/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${tokens[role]}` } });
    const json = (await res.json()) as { processedFiles?: { id: string }[]; message?: string; error?: { message: string } };
    return { status: res.status, id: json.processedFiles?.[0]?.id, message: json.message ?? json.error?.message };
  }
  const uploaded = async (name: string, body: Buffer, bucket: string) => {
    const res = await upload('diagnostician', name, body, bucket);
    expect(res.status, name).toBe(201);
    return res.id!;
  };
  const download = (fileId: string) => fetch(`${t.url}/api/storage/files/${fileId}`, { headers: { authorization: `Bearer ${tokens.mechanic}` } });
  const orderOf = async (id: string) => ok(await gql('mechanic', Q.order, { id })).repairOrder;

  /** A model with a reference curve and a measure procedure, another with its own curve, an order on the first. */
  async function setUp() {
    n += 1;
    const model = async (name: string) =>
      await createModel(gql.diagnostician, { model: `${name} ${kind} ${n}`, type: 'automatic', constructorName: 'ZF', startYear: 2012 });
    const link = async (gearboxModelId: string, name: string, body: Buffer, bucket: string, category: string, title: string) =>
      ok(await gql('diagnostician', M.insertGearboxDocument, { o: { gearboxModelId, fileId: await uploaded(name, body, bucket), category, title } }))
        .insertGearboxDocument as string;
    const modelId = await model('Essai courbes');
    const otherId = await model('Essai courbes bis');
    const reference = await link(modelId, 'pression.csv', REFERENCE, 'documents', 'reference_curve', 'Pression de ligne');
    const procedure = await link(modelId, 'mesure.pdf', PDF, 'measure', 'measure_procedure', 'Mesure de la pression');
    const foreign = await link(otherId, 'pression-bis.csv', REFERENCE, 'documents', 'reference_curve', 'Pression autre modèle');
    const orderId = await createOrder(gql.diagnostician, {
      number: `CB-${kind}-${n}`,
      openedOn: '2026-11-03',
      interventionCategory: 'gearbox_only',
      gearboxModelId: modelId,
    });
    return { modelId, orderId, reference, procedure, foreign };
  }

  it("records curves against the model's own documents, admins and diagnosticians only", async () => {
    const { orderId, reference, procedure, foreign } = await setUp();
    const curve = {
      description: 'Pression de ligne en montée de rapports',
      result: 'Hors bande à 1 s',
      comment: 'Huile à 80 °C',
      referenceDocumentId: reference,
      measureProcedureDocumentId: procedure,
    };
    for (const role of ['commercial', 'mechanic'] as const)
      expect((await gql(role, M.insertOrderCurve, { o: orderId, c: curve })).errors![0]!.extensions.code).toBe('forbidden');
    const id = ok(await gql('diagnostician', M.insertOrderCurve, { o: orderId, c: curve })).insertOrderCurve;
    expect((await gql('app_admin', M.insertOrderCurve, { o: orderId, c: { description: ' ' } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.description': 'Champ obligatoire' },
    });
    expect((await gql('diagnostician', M.insertOrderCurve, { o: orderId, c: { ...curve, referenceDocumentId: foreign } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.referenceDocumentId': 'Choisissez une courbe de référence du modèle de cet OR' },
    });
    // A document of the model, but not a measure procedure.
    expect(
      (await gql('diagnostician', M.insertOrderCurve, { o: orderId, c: { ...curve, measureProcedureDocumentId: reference } })).errors![0]!.extensions.fields,
    ).toEqual({
      'object.measureProcedureDocumentId': 'Choisissez une procédure de mesure du modèle de cet OR',
    });

    expect((await orderOf(orderId)).curves).toEqual([
      {
        id,
        description: curve.description,
        result: curve.result,
        comment: curve.comment,
        reference: { id: reference, title: 'Pression de ligne', file: { name: 'pression.csv' } },
        measureProcedure: { id: procedure, title: 'Mesure de la pression' },
        files: [],
      },
    ]);
    expect((await gql('diagnostician', Q.updateCurve, { id, c: { ...curve, referenceDocumentId: foreign } })).errors![0]!.extensions.code).toBe('validation');
    expect((await gql('mechanic', Q.updateCurve, { id, c: curve })).errors![0]!.extensions.code).toBe('forbidden');
    ok(await gql('app_admin', Q.updateCurve, { id, c: { description: 'Pression revue', result: 'Conforme' } }));
    expect((await orderOf(orderId)).curves[0]).toMatchObject({
      description: 'Pression revue',
      result: 'Conforme',
      comment: '',
      reference: null,
      measureProcedure: null,
    });
    expect((await gql('mechanic', Q.deleteCurve, { id })).errors![0]!.extensions.code).toBe('forbidden');
  });

  it("attaches files to a curve and removes them with their bytes, the curve's too", async () => {
    const { orderId, reference } = await setUp();
    const other = await setUp();
    const curveId = ok(
      await gql('diagnostician', M.insertOrderCurve, { o: orderId, c: { description: 'Montée en pression', referenceDocumentId: reference } }),
    ).insertOrderCurve;
    const attach = (fileId: string, extra: object = {}) =>
      gql('diagnostician', M.insertOrderFile, { o: orderId, f: { fileId, kind: 'curve', curveId, ...extra } });
    const csv = await uploaded('releve.csv', MEASURED, 'measure');
    const pdf = await uploaded('rapport.pdf', PDF, 'measure');
    const txt = await uploaded('journal.txt', Buffer.from('t=0 p=4,5\n'), 'measure');
    const image = await uploaded('ecran.png', png, 'measure');
    for (const fileId of [csv, pdf, txt, image]) ok(await attach(fileId, fileId === csv ? { comment: 'Valise' } : {}));

    // Another bucket's file, a curve of another order, a curve file without its curve.
    const outagePhoto = await uploaded('fuite.png', png, 'outage');
    expect((await attach(outagePhoto)).errors![0]).toMatchObject({ message: 'Format non supporté', extensions: { code: 'validation' } });
    const imported = await uploaded('import.csv', MEASURED, 'diagnostic-import');
    expect((await attach(imported)).errors![0]!.message).toBe('Format non supporté');
    const spare = await uploaded('autre.csv', MEASURED, 'measure');
    expect(
      (await gql('diagnostician', M.insertOrderFile, { o: other.orderId, f: { fileId: spare, kind: 'curve', curveId } })).errors![0]!.extensions.code,
    ).toBe('not-found');
    expect((await gql('diagnostician', M.insertOrderFile, { o: orderId, f: { fileId: spare, kind: 'curve' } })).errors![0]!.extensions).toEqual({
      code: 'validation',
      fields: { 'object.curveId': 'Champ obligatoire' },
    });
    expect((await attach(csv)).errors![0]).toMatchObject({ message: 'Ce fichier est déjà joint', extensions: { code: 'conflict' } });
    expect((await gql('mechanic', M.insertOrderFile, { o: orderId, f: { fileId: spare, kind: 'curve', curveId } })).errors![0]!.extensions.code).toBe(
      'forbidden',
    );

    const files = (await orderOf(orderId)).curves[0].files;
    expect(
      files.map((f: { kind: string; curveId: string; comment: string; file: { name: string; mimeType: string } }) => [
        f.kind,
        f.curveId,
        f.comment,
        f.file.name,
        f.file.mimeType,
      ]),
    ).toEqual([
      ['curve', curveId, 'Valise', 'releve.csv', 'text/csv'],
      ['curve', curveId, '', 'rapport.pdf', 'application/pdf'],
      ['curve', curveId, '', 'journal.txt', 'text/plain'],
      ['curve', curveId, '', 'ecran.png', 'image/png'],
    ]);
    expect((await orderOf(orderId)).diagnosticFiles).toEqual([]);

    expect((await gql('mechanic', Q.deleteFile, { id: files[1].id })).errors![0]!.extensions.code).toBe('forbidden');
    expect(ok(await gql('diagnostician', Q.deleteFile, { id: files[1].id })).deleteOrderFile).toBe(files[1].id);
    expect((await download(pdf)).status).toBe(404);
    expect((await orderOf(orderId)).curves[0].files).toHaveLength(3);

    expect(ok(await gql('diagnostician', Q.deleteCurve, { id: curveId })).deleteOrderCurve).toBe(curveId);
    for (const fileId of [csv, txt, image]) expect((await download(fileId)).status).toBe(404);
    expect((await orderOf(orderId)).curves).toEqual([]);
    expect((await gql('diagnostician', Q.deleteCurve, { id: curveId })).errors![0]!.extensions.code).toBe('not-found');
  });

  it('imports diagnostic files of the allowed formats only, and removes them', async () => {
    const { orderId } = await setUp();
    const csv = await uploaded('valise.csv', MEASURED, 'diagnostic-import');
    const pdf = await uploaded('rapport-valise.pdf', PDF, 'diagnostic-import');
    // The import bucket takes PDF, JPG, TXT and CSV only (SPEC §5).
    expect(await upload('diagnostician', 'ecran.png', png, 'diagnostic-import')).toMatchObject({ status: 415 });
    const measurePng = await uploaded('ecran.png', png, 'measure');
    for (const fileId of [csv, pdf]) ok(await gql('diagnostician', M.insertOrderFile, { o: orderId, f: { fileId, kind: 'import' } }));
    expect((await gql('diagnostician', M.insertOrderFile, { o: orderId, f: { fileId: measurePng, kind: 'import' } })).errors![0]).toMatchObject({
      message: 'Format non supporté',
      extensions: { code: 'validation' },
    });
    expect((await gql('commercial', M.insertOrderFile, { o: orderId, f: { fileId: measurePng, kind: 'import' } })).errors![0]!.extensions.code).toBe(
      'forbidden',
    );

    const imports = (await orderOf(orderId)).diagnosticFiles;
    expect(imports.map((f: { kind: string; curveId: null; file: { name: string; size: number } }) => [f.kind, f.curveId, f.file.name, f.file.size])).toEqual([
      ['import', null, 'valise.csv', MEASURED.length],
      ['import', null, 'rapport-valise.pdf', PDF.length],
    ]);
    ok(await gql('app_admin', Q.deleteFile, { id: imports[0].id }));
    expect((await download(csv)).status).toBe(404);
    expect((await orderOf(orderId)).diagnosticFiles.map((f: { file: { name: string } }) => f.file.name)).toEqual(['rapport-valise.pdf']);
  });

  it("never links a dossier's file, and deleting an order takes its files along", async () => {
    const { orderId, procedure } = await setUp();
    // The measure procedure's PDF sits in the same bucket as curve files: it stays the dossier's.
    const dossierFile = (await t.database.db.select({ fileId: gearboxDocuments.fileId }).from(gearboxDocuments).where(eq(gearboxDocuments.id, procedure)))[0]!
      .fileId;
    expect((await gql('diagnostician', M.insertOrderFile, { o: orderId, f: { fileId: dossierFile, kind: 'import' } })).errors![0]).toMatchObject({
      message: 'Ce fichier est déjà joint',
      extensions: { code: 'conflict' },
    });
    const csv = await uploaded('valise.csv', MEASURED, 'diagnostic-import');
    ok(await gql('diagnostician', M.insertOrderFile, { o: orderId, f: { fileId: csv, kind: 'import' } }));
    ok(await gql('diagnostician', M.deleteRepairOrder, { id: orderId }));
    expect((await download(csv)).status).toBe(404);
    expect((await download(dossierFile)).status).toBe(200);
  });

  it('leaves a closed order untouched', async () => {
    // No mutation closes an order yet: the demo data has closed ones.
    const [closed] = await t.database.db.select({ id: repairOrders.id }).from(repairOrders).where(eq(repairOrders.status, 'CLOSED')).limit(1);
    expect(closed).toBeDefined();
    expect((await gql('diagnostician', M.insertOrderCurve, { o: closed!.id, c: { description: 'Trop tard' } })).errors![0]).toMatchObject({
      message: CLOSED,
      extensions: { code: 'conflict' },
    });
    const file = await uploaded('tardif.pdf', PDF, 'diagnostic-import');
    expect((await gql('diagnostician', M.insertOrderFile, { o: closed!.id, f: { fileId: file, kind: 'import' } })).errors![0]!.message).toBe(CLOSED);
  });

  describe("the tab's form posts", () => {
    let userId: string;
    const flashes: string[] = [];
    beforeAll(async () => {
      const [user] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, demoEmails.diagnostician));
      userId = user!.id;
    });

    /** The Astro global a page would pass: the diagnostician signed in, posting `form`. */
    const post = (order: { id: string; modelId: string }, query: string, form: FormData) => {
      const url = new URL(`${t.url}/repair-order/${order.id}/diagnostic?onglet=courbes&${query}`);
      const astro = {
        url,
        request: new Request(url, { method: 'POST', body: form }),
        locals: {
          // The services bound to the diagnostician, as the session middleware sets them.
          services: t.app.services.forViewer({ id: userId, role: 'diagnostician', sessionId: decodeJwt(tokens.diagnostician).sid as string }),
          user: { id: userId, role: 'diagnostician' },
          session: { sessionId: decodeJwt(tokens.diagnostician).sid },
          flash: [],
        },
        cookies: { set: (_name: string, value: string) => flashes.push(JSON.parse(Buffer.from(value, 'base64url').toString()).message) },
        redirect: (location: string, status = 302) => new Response(null, { status, headers: { location } }),
      } as unknown as AstroGlobal;
      return postCurves(astro, { id: order.id }, readPage(querySchema, { url, params: { orderId: order.id } }));
    };
    const formOf = (fields: Record<string, string>, filesOf: Record<string, [string, Buffer][]> = {}) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      for (const [k, list] of Object.entries(filesOf)) for (const [name, body] of list) form.append(k, new File([new Uint8Array(body)], name));
      return form;
    };
    const storedCount = async () => (await t.database.db.select({ n: count() }).from(storedFiles))[0]!.n;

    it('adds a curve with its CSV, keeps what was typed when the CSV or the reference is refused', async () => {
      const { orderId, modelId, reference, foreign } = await setUp();
      const order = { id: orderId, modelId };
      const before = await storedCount();
      const typed = { description: 'Passage 2-3', result: 'À revoir', comment: '', referenceDocumentId: reference, measureProcedureDocumentId: '' };
      const bad = (await post(
        order,
        'action=courbe-ajout',
        formOf(typed, { file: [['releve.csv', Buffer.from('temps;pression\n0;1\n1;abc\n')]] }),
      )) as TabFailure;
      expect(bad).toMatchObject({
        status: 400,
        form: 'courbe-ajout',
        values: { description: 'Passage 2-3', result: 'À revoir' },
        errors: { file: "Ligne 3 : « abc » n'est pas un nombre" },
      });
      const exe = (await post(order, 'action=courbe-ajout', formOf(typed, { file: [['outil.exe', PDF]] }))) as TabFailure;
      expect(exe.errors).toEqual({ file: 'Format non supporté' });
      const foreignRef = (await post(
        order,
        'action=courbe-ajout',
        formOf({ ...typed, referenceDocumentId: foreign }, { file: [['releve.csv', MEASURED]] }),
      )) as TabFailure;
      expect(foreignRef).toMatchObject({
        status: 400,
        values: { referenceDocumentId: foreign },
        errors: { referenceDocumentId: 'Choisissez une courbe de référence du modèle de cet OR' },
      });
      // Bytes that are not what the name says: the curve created for them goes too.
      const fake = (await post(order, 'action=courbe-ajout', formOf(typed, { file: [['ecran.png', PDF]] }))) as TabFailure;
      expect(fake.errors).toEqual({ file: 'Format non supporté' });
      expect((await orderOf(orderId)).curves).toEqual([]);
      expect(await storedCount()).toBe(before);

      const done = (await post(order, 'action=courbe-ajout', formOf(typed, { file: [['releve.csv', MEASURED]] }))) as Response;
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(`/repair-order/${orderId}/diagnostic?onglet=courbes`);
      expect(flashes.at(-1)).toBe('Courbe ajoutée');
      const [curve] = (await orderOf(orderId)).curves;
      expect(curve).toMatchObject({
        description: 'Passage 2-3',
        reference: { id: reference },
        measureProcedure: null,
        files: [{ kind: 'curve', file: { name: 'releve.csv', mimeType: 'text/csv' } }],
      });

      // A file for a curve that is gone: stored, refused by the API, then removed.
      const stored = await storedCount();
      const gone = (await post(order, `action=courbe-fichier&id=${crypto.randomUUID()}`, formOf({}, { file: [['rapport.pdf', PDF]] }))) as TabFailure;
      expect(gone).toMatchObject({ status: 400, form: 'courbe-fichier', formError: 'Élément introuvable : il a peut-être été supprimé.' });
      expect(await storedCount()).toBe(stored);
      // An id that is none is refused as the API refused it, nothing stored, nothing deleted.
      const malformed = (await post(order, 'action=courbe-fichier', formOf({ id: 'pas-un-id' }, { file: [['rapport.pdf', PDF]] }))) as TabFailure;
      expect(malformed).toMatchObject({ status: 400, form: 'courbe-fichier', formError: 'Identifiant invalide' });
      expect(await storedCount()).toBe(stored);
      expect(await post(order, 'action=courbe-suppr', formOf({ id: 'pas-un-id' }))).toMatchObject({ status: 400, formError: 'Identifiant invalide' });
      // A NUL character is refused as the API refused it, what was typed kept.
      expect(await post(order, 'action=courbe-ajout', formOf({ ...typed, comment: 'avant\u0000après' }))).toMatchObject({
        status: 400,
        form: 'courbe-ajout',
        formError: 'Valeur invalide : caractère nul',
        values: { description: typed.description },
      });
      expect(await post(order, `action=courbe-fichier&id=${curve.id}`, formOf({}, { file: [['rapport.pdf', PDF]] }))).toBeInstanceOf(Response);
      expect(await post(order, `action=courbe-modif&id=${curve.id}`, formOf({ ...typed, description: '' }))).toMatchObject({
        status: 400,
        form: 'courbe-modif',
        errors: { description: 'Champ obligatoire' },
      });
      expect(await post(order, `action=courbe-modif&id=${curve.id}`, formOf({ ...typed, result: 'Conforme' }))).toBeInstanceOf(Response);
      expect((await orderOf(orderId)).curves[0]).toMatchObject({
        result: 'Conforme',
        files: [{ file: { name: 'releve.csv' } }, { file: { name: 'rapport.pdf' } }],
      });
      expect(await post(order, 'action=courbe-suppr', formOf({ id: curve.id }))).toBeInstanceOf(Response);
      expect(flashes.at(-1)).toBe('Courbe supprimée');
      expect(await storedCount()).toBe(before);
    });

    it('imports several files at once: a refused one is named, the others are kept', async () => {
      const { orderId, modelId } = await setUp();
      const order = { id: orderId, modelId };
      const failed = (await post(
        order,
        'action=import',
        formOf(
          {},
          {
            files: [
              ['valise.csv', MEASURED],
              ['ecran.png', png],
              ['rapport.pdf', PDF],
            ],
          },
        ),
      )) as TabFailure;
      expect(failed).toMatchObject({
        status: 400,
        form: 'import',
        formError: "Erreur lors de l'import du fichier ecran.png",
        errors: { files: 'ecran.png : Format non supporté' },
      });
      const imports = (await orderOf(orderId)).diagnosticFiles;
      expect(imports.map((f: { file: { name: string } }) => f.file.name)).toEqual(['valise.csv', 'rapport.pdf']);
      expect(await post(order, 'action=import', formOf({}))).toMatchObject({ status: 400, errors: { files: 'Choisissez au moins un fichier' } });
      const done = (await post(order, 'action=import', formOf({}, { files: [['journal.txt', Buffer.from('code P0730\n')]] }))) as Response;
      expect(done.status).toBe(303);
      expect(flashes.at(-1)).toBe('1 fichier importé');
      expect(await post(order, 'action=import-suppr', formOf({ id: imports[0].id }))).toBeInstanceOf(Response);
      expect((await orderOf(orderId)).diagnosticFiles.map((f: { file: { name: string } }) => f.file.name)).toEqual(['rapport.pdf', 'journal.txt']);
      expect(await post(order, 'action=import-suppr', formOf({ id: imports[0].id }))).toMatchObject({
        status: 400,
        formError: 'Élément introuvable : il a peut-être été supprimé.',
      });
    });
  });
});
