// Photos of checkpoints and measures (issue 32, decision 088), through the services: JPEG, PNG and
// WebP taken with EXIF and a GPS position are kept upright, at most 2048 px, with a thumbnail, and
// neither holds any metadata; a phone's full-size photo is made smaller; what is not a photo, a
// HEIC, a file too large or broken is refused in French and nothing is kept; a closed order's
// photos are read-only; deleting a photo, a measure or the order takes the photos' bytes with them.
import { and, eq, inArray, sql } from 'drizzle-orm';
import pg from 'pg';
import { readdirSync, rmSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, files, orderFiles, repairOrders } from '#server/db/schema/index.ts';
import { DomainError } from '#server/errors.ts';
import { pgConstraint } from '#server/db/errors.ts';
import { auditCsv } from '#lib/audit/audit.ts';
import { startTestApp, type TestApp, viewerOf } from './support/app.ts';
import { answerCheckpoint, checkpointsOf, createOrderOnTheFloor, type DemoRole, demoEmails, graphqlAs, M, ok, signInAll } from './kit/index.ts';
import { storageServer } from './support/storage.ts';
import { browser } from './support/browser.ts';
import { cameraPhoto, carriesExif, HEIC, hasGpsIfd, PHOTO_FORMATS, phonePhoto, pixelBomb, pngChunk } from './kit/photos.ts';

const s3 = storageServer();
const upload = (name: string, bytes: Buffer) => new File([new Uint8Array(bytes)], name);
/** What a call was refused with, as the photo field says it; null when it was not. */
const refusalOf = (call: Promise<unknown> | (() => Promise<unknown>)) =>
  Promise.resolve()
    .then(typeof call === 'function' ? call : () => call)
    .then(
      () => null,
      (error: unknown) => (error instanceof DomainError ? (error.details.fields?.photos ?? error.message) : String(error)),
    );

describe.each(['pglite', 'postgres'] as const)('photos of checkpoints and measures on %s', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  const as = async (role: DemoRole) => t.app.services.forViewer(await viewerOf(t, demoEmails[role])).orderPhotos;
  const photoFiles = async () => (await t.database.db.select({ id: files.id }).from(files).where(eq(files.bucketId, 'photo'))).length;
  const bytesOf = async (id: string) => (await t.app.services.files.blobs.read(id))!;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  it('keeps JPEG, PNG and WebP upright and small, with a thumbnail, and no EXIF or GPS in either', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const taken = await Promise.all(PHOTO_FORMATS.map((f) => cameraPhoto(f)));
    for (const bytes of taken) {
      const meta = await sharp(bytes).metadata();
      expect(hasGpsIfd(meta.exif)).toBe(true);
      expect(meta.orientation).toBe(6);
    }
    const mechanic = await as('mechanic');
    expect(
      await mechanic.addToCheckpoint(point.id, [upload('atelier.jpg', taken[0]!), upload('capture.png', taken[1]!), upload('huile.webp', taken[2]!)]),
    ).toBe(3);
    const photos = await mechanic.photosOf(orderId);
    expect(photos.map((p) => [p.checkpointId, p.name])).toEqual([
      [point.id, 'atelier.jpg'],
      [point.id, 'capture.jpg'],
      [point.id, 'huile.jpg'],
    ]);
    for (const photo of photos) {
      for (const [id, side] of [
        [photo.fileId, 300],
        [photo.thumbnailId!, 300],
      ] as const) {
        const bytes = await bytesOf(id);
        const meta = await sharp(bytes).metadata();
        expect(meta).toMatchObject({ format: 'jpeg', width: 200, height: side });
        expect(meta.exif).toBeUndefined();
        expect(meta.orientation).toBeUndefined();
        expect(meta.icc).toBeUndefined();
        expect(carriesExif(bytes)).toBe(false);
        expect(bytes.includes(Buffer.from('Samsung'))).toBe(false);
      }
    }
    // Created as any order file, in the audit trail.
    const events = await t.database.db.select().from(auditEvents).where(eq(auditEvents.parentId, orderId));
    expect(events.filter((e) => e.entityKind === 'order_file' && e.action === 'created').map((e) => e.entityLabel)).toEqual([
      `${point.name} : atelier.jpg`,
      `${point.name} : capture.jpg`,
      `${point.name} : huile.jpg`,
    ]);
  });

  it('makes a phone camera full-size photo 2048 px wide, with a 400 px thumbnail', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const bytes = await phonePhoto();
    expect(bytes.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(hasGpsIfd((await sharp(bytes).metadata()).exif)).toBe(true);
    await (await as('diagnostician')).addToCheckpoint(point.id, [upload('PXL_20261128.jpg', bytes)]);
    const [photo] = await (await as('commercial')).photosOf(orderId);
    const kept = await bytesOf(photo!.fileId);
    expect(await sharp(kept).metadata()).toMatchObject({ width: 2048, height: 1536 });
    expect((await sharp(kept).metadata()).exif).toBeUndefined();
    expect(kept.length).toBeLessThan(bytes.length);
    expect(await sharp(await bytesOf(photo!.thumbnailId!)).metadata()).toMatchObject({ width: 400, height: 300 });
  });

  it('refuses what is not a photo, a HEIC, a file too large or broken, in French, and keeps nothing', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const mechanic = await as('mechanic');
    const before = await photoFiles();
    const good = upload('bon.jpg', await cameraPhoto('jpeg'));
    expect(await refusalOf(mechanic.addToCheckpoint(point.id, [good, upload('notes.jpg', Buffer.from('Pression 4,2 bar\n'))]))).toBe(
      "« notes.jpg » n'est pas une photo : JPEG, PNG ou WebP seulement.",
    );
    expect(await refusalOf(mechanic.addToCheckpoint(point.id, [upload('IMG_0001.HEIC', HEIC)]))).toBe(
      "« IMG_0001.HEIC » est une photo HEIC (iPhone), que l'application ne lit pas : réglez l'appareil sur « Le plus compatible » (JPEG) ou envoyez-la en JPEG.",
    );
    expect(await refusalOf(mechanic.addToCheckpoint(point.id, [upload('enorme.jpg', Buffer.alloc(21 * 1024 * 1024, 0xff))]))).toBe(
      '« enorme.jpg » est trop volumineuse : 20 Mo au plus par photo.',
    );
    expect(await refusalOf(mechanic.addToCheckpoint(point.id, [upload('bombe.png', pixelBomb())]))).toBe(
      '« bombe.png » a trop de pixels (64 millions au plus).',
    );
    const cut = (await cameraPhoto('jpeg')).subarray(0, 600);
    expect(await refusalOf(mechanic.addToCheckpoint(point.id, [upload('coupee.jpg', cut)]))).toBe(
      '« coupee.jpg » est abîmée ou incomplète : elle ne se lit pas.',
    );
    expect(await refusalOf(mechanic.addToCheckpoint(point.id, []))).toBe('Choisissez au moins une photo.');
    // Two refused in one post (without JavaScript): both named at once, in one sentence.
    const both = [upload('vanne.jpg', Buffer.from('Pression 4,2 bar\n')), good, upload('enorme.jpg', Buffer.alloc(21 * 1024 * 1024, 0xff))];
    expect(await refusalOf(mechanic.addToCheckpoint(point.id, both))).toBe(
      "« vanne.jpg » n'est pas une photo : JPEG, PNG ou WebP seulement ; « enorme.jpg » est trop volumineuse : 20 Mo au plus par photo.",
    );
    expect(await photoFiles()).toBe(before);
    expect(await mechanic.photosOf(orderId)).toEqual([]);
  });

  it('keeps a photographed checkpoint: the diagnostic is not taken back over it, as over an answered one', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    await (await as('mechanic')).addToCheckpoint(point.id, [upload('a.jpg', await cameraPhoto('jpeg'))]);
    expect((await gql.diagnostician(M.reopenDiagnostic, { o: orderId })).errors![0]!.message).toBe(
      'Des points de contrôle sont déjà renseignés : le diagnostic ne peut plus être rouvert.',
    );
    expect(await (await as('mechanic')).photosOf(orderId)).toHaveLength(1);
  });

  it('lets the mechanic add to a checkpoint but not the commercial; measures by the diagnostician only', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician, { measuresDone: true });
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const bytes = await cameraPhoto('jpeg');
    const commercial = await as('commercial');
    expect(await refusalOf(() => commercial.addToCheckpoint(point.id, [upload('a.jpg', bytes)]))).toBe('Accès refusé');
    expect(await (await as('mechanic')).addToCheckpoint(point.id, [upload('a.jpg', bytes)])).toBe(1);
    const measureId = ok(await gql.diagnostician(M.insertOrderMeasure, { o: orderId, m: { name: 'Pression principale', unit: 'bar' } }))
      .insertOrderMeasure as string;
    const mechanic = await as('mechanic');
    expect(await refusalOf(() => mechanic.addToMeasure(measureId, [upload('b.jpg', bytes)]))).toBe('Accès refusé');
    expect(await (await as('diagnostician')).addToMeasure(measureId, [upload('b.jpg', bytes)])).toBe(1);
    const photos = await (await as('commercial')).photosOf(orderId);
    expect(photos.map((p) => [p.checkpointId, p.measureId])).toEqual([
      [point.id, null],
      [null, measureId],
    ]);
  });

  it('refuses adding and deleting photos once the order is closed, then takes their bytes with a deleted photo and order', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const points = await checkpointsOf(gql.mechanic, orderId);
    const mechanic = await as('mechanic');
    await mechanic.addToCheckpoint(points[0].id, [upload('a.jpg', await cameraPhoto('jpeg')), upload('b.png', await cameraPhoto('png'))]);
    for (const p of points) await answerCheckpoint(gql.mechanic, p, { checkResult: 'ok' });
    ok(await gql.mechanic(M.closeRepairOrder, { id: orderId, c: 'Fini' }));
    const [first, second] = await mechanic.photosOf(orderId);
    expect(await refusalOf(mechanic.addToCheckpoint(points[0].id, [upload('c.jpg', await cameraPhoto('jpeg'))]))).toMatch(/clôturé/);
    expect(await refusalOf(mechanic.removeFromCheckpoint(first!.id))).toMatch(/clôturé/);
    expect(await mechanic.photosOf(orderId)).toHaveLength(2);
    ok(await gql.app_admin(M.reopenRepairOrder, { id: orderId, c: 'Une photo de trop' }));
    await mechanic.removeFromCheckpoint(first!.id);
    expect((await mechanic.photosOf(orderId)).map((p) => p.id)).toEqual([second!.id]);
    expect(await t.app.services.files.blobs.read(first!.fileId)).toBeNull();
    expect(await t.app.services.files.blobs.read(first!.thumbnailId!)).toBeNull();
    await t.app.services.forViewer(await viewerOf(t, demoEmails.diagnostician)).repairOrders.remove(orderId);
    for (const id of [second!.fileId, second!.thumbnailId!]) {
      expect(await t.app.services.files.blobs.read(id)).toBeNull();
      expect(await t.database.db.select().from(files).where(eq(files.id, id))).toEqual([]);
    }
    const events = await t.database.db.select().from(auditEvents).where(eq(auditEvents.entityId, first!.id)).orderBy(auditEvents.id);
    expect(events.map((e) => e.action)).toEqual(['created', 'deleted']);
  });

  it('takes a measure photos, thumbnails and ordinary files with it, deleted or answered no to measures taken', async () => {
    const diagnostician = await viewerOf(t, demoEmails.diagnostician);
    const services = t.app.services.forViewer(diagnostician);
    /** A measure with two photos and an ordinary file: every stored file id it holds. */
    const measureWithFiles = async (orderId: string) => {
      const measureId = ok(await gql.diagnostician(M.insertOrderMeasure, { o: orderId, m: { name: 'Pression principale', unit: 'bar' } }))
        .insertOrderMeasure as string;
      await services.orderPhotos.addToMeasure(measureId, [upload('a.jpg', await cameraPhoto('jpeg')), upload('b.png', await cameraPhoto('png'))]);
      const file = await t.app.services.files.save({ bucketId: 'measure', file: new File(['p;3,1'], 'releve.csv'), userId: diagnostician.id });
      await services.orderMeasures.attachFile(measureId, file.id, '');
      const photos = (await services.orderPhotos.photosOf(orderId)).filter((p) => p.measureId === measureId);
      expect(photos).toHaveLength(2);
      return { measureId, ids: [...photos.flatMap((p) => [p.fileId, p.thumbnailId!]), file.id] };
    };
    const gone = async (ids: string[]) => {
      for (const id of ids) {
        expect(await t.app.services.files.blobs.read(id)).toBeNull();
        expect(await t.database.db.select().from(files).where(eq(files.id, id))).toEqual([]);
      }
    };
    const deleted = await createOrderOnTheFloor(gql.diagnostician, { measuresDone: true });
    const one = await measureWithFiles(deleted.orderId);
    await services.orderMeasures.removeMeasure(one.measureId);
    await gone(one.ids);
    const answeredNo = await createOrderOnTheFloor(gql.diagnostician, { measuresDone: true });
    const other = await measureWithFiles(answeredNo.orderId);
    ok(await gql.diagnostician(M.setMeasuresDone, { o: answeredNo.orderId, d: false }));
    await gone(other.ids);
    expect(await services.orderPhotos.photosOf(answeredNo.orderId)).toEqual([]);
  });

  it('serves photos to every role that reads the order, and writes, replaces or deletes none through the storage API', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const jpeg = await cameraPhoto('jpeg');
    await (await as('mechanic')).addToCheckpoint(point.id, [upload('a.jpg', jpeg)]);
    const [photo] = await (await as('commercial')).photosOf(orderId);
    const tokens = await signInAll(t);
    const auth = (role: DemoRole) => ({ authorization: `Bearer ${tokens[role]}` });
    for (const role of Object.keys(demoEmails) as DemoRole[]) {
      const res = await fetch(`${t.url}/api/storage/files/${photo!.fileId}`, { headers: auth(role) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      await res.arrayBuffer();
    }
    // Nobody signed in, no signed link: refused.
    for (const id of [photo!.fileId, photo!.thumbnailId!]) expect((await fetch(`${t.url}/api/storage/files/${id}`)).status).toBe(401);
    const signed = await fetch(`${t.url}${t.app.services.files.signedPath(photo!.thumbnailId!)}`);
    expect(signed.status).toBe(200);
    expect((await sharp(Buffer.from(await signed.arrayBuffer())).metadata()).width).toBe(200);
    const body = () => {
      const form = new FormData();
      form.append('bucket-id', 'photo');
      form.append('file[]', new Blob([new Uint8Array(jpeg)]), 'brute.jpg');
      return form;
    };
    const url = `${t.url}/api/storage/files`;
    expect((await fetch(url, { method: 'POST', headers: auth('app_admin'), body: body() })).status).toBe(403);
    expect((await fetch(`${url}/${photo!.fileId}`, { method: 'PUT', headers: auth('app_admin'), body: body() })).status).toBe(403);
    expect((await fetch(`${url}/${photo!.fileId}`, { method: 'DELETE', headers: auth('app_admin') })).status).toBe(403);
    expect(await (await as('mechanic')).photosOf(orderId)).toHaveLength(1);
  });

  it('shows the photos of two closed demo orders, made as an upload makes them', async () => {
    const rows = await t.database.db
      .select({
        orderId: orderFiles.orderId,
        status: repairOrders.status,
        fileId: orderFiles.fileId,
        thumbnailId: orderFiles.thumbnailId,
        checkpointId: orderFiles.checkpointId,
      })
      .from(orderFiles)
      .innerJoin(repairOrders, eq(repairOrders.id, orderFiles.orderId))
      .where(and(eq(orderFiles.kind, 'photo'), eq(repairOrders.status, 'CLOSED')));
    expect(new Set(rows.map((r) => r.orderId)).size).toBe(2);
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.checkpointId).not.toBeNull();
      const meta = await sharp(await bytesOf(row.fileId)).metadata();
      expect(meta).toMatchObject({ format: 'jpeg', width: 1200, height: 900 });
      expect(meta.exif).toBeUndefined();
      expect((await sharp(await bytesOf(row.thumbnailId!)).metadata()).width).toBe(400);
    }
  });
});

describe('photos kept in an S3 bucket', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { env: await s3.env('s3') });
  });
  afterAll(() => t?.close());

  it('stores the photo and its thumbnail as objects of the bucket, without GPS, and removes both with the photo', async () => {
    const gql = graphqlAs(t, await signInAll(t));
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const mechanic = t.app.services.forViewer(await viewerOf(t, demoEmails.mechanic)).orderPhotos;
    await mechanic.addToCheckpoint(point.id, [upload('fuite.webp', await cameraPhoto('webp'))]);
    const [photo] = await mechanic.photosOf(orderId);
    const objects = () => readdirSync(s3.server!.dir, { recursive: true }).map(String);
    for (const id of [photo!.fileId, photo!.thumbnailId!]) {
      expect(objects().some((name) => name.includes(id))).toBe(true);
      const bytes = (await t.app.services.files.blobs.read(id))!;
      expect((await sharp(bytes).metadata()).exif).toBeUndefined();
      expect(carriesExif(bytes)).toBe(false);
    }
    await mechanic.removeFromCheckpoint(photo!.id);
    for (const id of [photo!.fileId, photo!.thumbnailId!]) expect(await t.app.services.files.blobs.read(id)).toBeNull();
  });
});

/** A JPEG segment (marker, then its length and data). */
const jpegSegment = (marker: number, data: Buffer) => {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xff00 | marker, 0);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
};
const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="Secret Atelier Cam"/></rdf:RDF></x:xmpmeta>';
const COMMENT = 'Garage Dupont 48.8566 2.3522';

/** Photos carrying every kind of metadata a camera or an editor writes, one per accepted format. */
async function photosWithMetadata(): Promise<[string, Buffer][]> {
  const base = () => sharp({ create: { width: 300, height: 200, channels: 3, background: '#2050c0' } });
  // JPEG: EXIF, XMP and the ICC profile from sharp; an IPTC block (APP13) and a comment (COM) by hand.
  const jpeg = await base()
    .withExif({ IFD0: { Make: 'Samsung' } })
    .withXmp(XMP)
    .withIccProfile('p3')
    .jpeg()
    .toBuffer();
  const iptc = jpegSegment(
    0xed,
    Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), Buffer.from('8BIM\x04\x04\0\0\0\0\0\x0e\x1c\x02\x78\0\x0aIPTC notes', 'latin1')]),
  );
  const jpegAll = Buffer.concat([jpeg.subarray(0, 2), iptc, jpegSegment(0xfe, Buffer.from(COMMENT, 'latin1')), jpeg.subarray(2)]);
  // PNG: the ICC profile (iCCP) from sharp; tEXt, iTXt and eXIf chunks by hand, before the image data.
  const png = await base().withIccProfile('p3').png().toBuffer();
  const exif = (await sharp(jpeg).metadata()).exif!.subarray(6);
  const afterHeader = 8 + 25;
  const pngAll = Buffer.concat([
    png.subarray(0, afterHeader),
    pngChunk('tEXt', Buffer.from(`Comment\0${COMMENT}`, 'latin1')),
    pngChunk('iTXt', Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${XMP}`, 'utf8')),
    pngChunk('eXIf', exif),
    png.subarray(afterHeader),
  ]);
  // WebP: EXIF, XMP and ICCP chunks from sharp.
  const webp = await base()
    .withExif({ IFD0: { Make: 'Samsung' } })
    .withXmp(XMP)
    .withIccProfile('p3')
    .webp()
    .toBuffer();
  return [
    ['exif-xmp-icc-iptc-com.jpg', jpegAll],
    ['texte-itxt-exif.png', pngAll],
    ['exif-xmp.webp', webp],
  ];
}

describe.each(['pglite', 'postgres'] as const)('photos kept, forgotten and told on %s (round 2)', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  const as = async (role: DemoRole) => t.app.services.forViewer(await viewerOf(t, demoEmails[role])).orderPhotos;
  const bytesOf = async (id: string) => t.app.services.files.blobs.read(id);

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  it('keeps no XMP, ICC profile, IPTC, comment, text chunk or EXIF of a JPEG, a PNG or a WebP', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const taken = await photosWithMetadata();
    // What goes in does carry them.
    expect(taken[0]![1].includes(COMMENT)).toBe(true);
    expect(taken[1]![1].includes('iCCP') && taken[1]![1].includes('tEXt') && taken[1]![1].includes('eXIf')).toBe(true);
    expect(taken[2]![1].includes('http://ns.adobe.com/xap') && carriesExif(taken[2]![1])).toBe(true);
    const mechanic = await as('mechanic');
    expect(
      await mechanic.addToCheckpoint(
        point.id,
        taken.map(([name, bytes]) => upload(name, bytes)),
      ),
    ).toBe(3);
    const photos = await mechanic.photosOf(orderId);
    expect(photos).toHaveLength(3);
    for (const id of photos.flatMap((p) => [p.fileId, p.thumbnailId!])) {
      const bytes = (await bytesOf(id))!;
      for (const mark of [
        'Exif',
        'EXIF',
        'eXIf',
        'http://ns.adobe.com/xap',
        'xmpmeta',
        'ICC_PROFILE',
        'iCCP',
        'tEXt',
        'iTXt',
        'Photoshop 3.0',
        '8BIM',
        COMMENT,
        'Samsung',
        'Secret',
      ]) {
        expect(bytes.includes(Buffer.from(mark, 'latin1')), `${mark} in a kept photo`).toBe(false);
      }
      expect((await sharp(bytes).metadata()).icc).toBeUndefined();
    }
  });

  it('refuses AVIF, GIF and TIFF in French, naming the types taken, and keeps nothing', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const mechanic = await as('mechanic');
    const image = () => sharp({ create: { width: 64, height: 48, channels: 3, background: '#208040' } });
    for (const [name, bytes] of [
      ['capture.avif', await image().avif().toBuffer()],
      ['anime.gif', await image().gif().toBuffer()],
      ['scan.tiff', await image().tiff().toBuffer()],
    ] as const) {
      expect(await refusalOf(mechanic.addToCheckpoint(point.id, [upload(name, bytes)]))).toBe(`« ${name} » n'est pas une photo : JPEG, PNG ou WebP seulement.`);
    }
    expect(await mechanic.photosOf(orderId)).toEqual([]);
  });

  it('names the checkpoint or the measure of a deleted photo in the order activity, as its addition', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician, { measuresDone: true });
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const measureId = ok(await gql.diagnostician(M.insertOrderMeasure, { o: orderId, m: { name: 'Pression principale', unit: 'bar' } }))
      .insertOrderMeasure as string;
    const diagnostician = await as('diagnostician');
    await diagnostician.addToCheckpoint(point.id, [upload('fuite.jpg', await cameraPhoto('jpeg'))]);
    await diagnostician.addToMeasure(measureId, [upload('manometre.png', await cameraPhoto('png'))]);
    const [ofPoint, ofMeasure] = await diagnostician.photosOf(orderId);
    await diagnostician.removeFromCheckpoint(ofPoint!.id);
    await diagnostician.removeFromMeasure(ofMeasure!.id);
    const mechanic = t.app.services.forViewer(await viewerOf(t, demoEmails.mechanic));
    const events = await mechanic.audit.list({ parentKind: 'repair_order', parentId: orderId, limit: 50, offset: 0 });
    const lines = auditCsv(events, { emails: false })
      .split('\r\n')
      .map((line) => line.split(';').slice(2, 4).join(';'))
      .filter((line) => line.includes('Fichier'));
    expect(lines).toEqual([
      'Suppression;Fichier Pression principale : manometre.jpg',
      `Suppression;Fichier ${point.name} : fuite.jpg`,
      'Création;Fichier Pression principale : manometre.jpg',
      `Création;Fichier ${point.name} : fuite.jpg`,
    ]);
  });

  it('reads only the measure photos for its page', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician, { measuresDone: true });
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const measure = async (name: string) =>
      ok(await gql.diagnostician(M.insertOrderMeasure, { o: orderId, m: { name, unit: 'bar' } })).insertOrderMeasure as string;
    const [first, second] = [await measure('Pression principale'), await measure('Pression de ligne')];
    const diagnostician = await as('diagnostician');
    await diagnostician.addToCheckpoint(point.id, [upload('point.jpg', await cameraPhoto('jpeg'))]);
    await diagnostician.addToMeasure(first, [upload('premiere.jpg', await cameraPhoto('jpeg'))]);
    await diagnostician.addToMeasure(second, [upload('seconde.jpg', await cameraPhoto('jpeg')), upload('encore.jpg', await cameraPhoto('jpeg'))]);
    const commercial = await as('commercial');
    expect((await commercial.photosOf(orderId, { measureId: second })).map((p) => p.name)).toEqual(['seconde.jpg', 'encore.jpg']);
    expect((await commercial.photosOf(orderId, { measureId: first })).map((p) => p.name)).toEqual(['premiere.jpg']);
    expect(await commercial.photosOf(orderId)).toHaveLength(4);
  });

  it('sweeps photo files no order links once older than the grace period, and keeps a linked photo and thumbnail', async () => {
    const store = t.app.services.files;
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    await (await as('mechanic')).addToCheckpoint(point.id, [upload('gardee.jpg', await cameraPhoto('jpeg'))]);
    const [linked] = await (await as('mechanic')).photosOf(orderId);
    // What a process killed between the commit and the link leaves: a photo and its thumbnail, kept, linked by nothing.
    const mechanic = await viewerOf(t, demoEmails.mechanic);
    const staged = [store.stage(await cameraPhoto('jpeg'), 'perdue.jpg'), store.stage(await cameraPhoto('jpeg'), 'miniature-perdue.jpg')];
    await store.commit(
      'photo',
      mechanic.id,
      staged.map((s) => ({ ...s, mimeType: 'image/jpeg' })),
    );
    for (const s of staged) rmSync(s.tmp, { force: true });
    const lost = staged.map((s) => s.id);
    const kept = [linked!.fileId, linked!.thumbnailId!];
    const rowsOf = async (ids: string[]) => (await t.database.db.select({ id: files.id }).from(files).where(inArray(files.id, ids))).length;
    // Within the grace period: an addition may still be linking them.
    await store.sweepOrphans();
    expect(await rowsOf(lost)).toBe(2);
    // Two hours later, both unlinked and linked.
    await t.database.db
      .update(files)
      .set({ createdAt: new Date(Date.now() - 2 * 60 * 60_000) })
      .where(inArray(files.id, [...lost, ...kept]));
    await store.sweepOrphans();
    expect(await rowsOf(lost)).toBe(0);
    for (const id of lost) expect(await bytesOf(id)).toBeNull();
    expect(await rowsOf(kept)).toBe(2);
    for (const id of kept) expect(await bytesOf(id)).not.toBeNull();
    expect(await (await as('commercial')).photosOf(orderId)).toHaveLength(1);
  });
});

describe('a photo sent again after its reply was lost (issue 32 round 2)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t?.close());

  it('keeps it once under the page key, and another pick under the same key is kept', async () => {
    const gql = graphqlAs(t, await signInAll(t));
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const mechanic = t.app.services.forViewer(await viewerOf(t, demoEmails.mechanic)).orderPhotos;
    const storedPhotos = async () => (await t.database.db.select({ id: files.id }).from(files).where(eq(files.bucketId, 'photo'))).length;
    const before = await storedPhotos();
    const pick = [upload('bride.jpg', await cameraPhoto('jpeg')), upload('joint.png', await cameraPhoto('png'))];
    const key = 'cle-0a1b2c3d-4e5f';
    expect(await mechanic.addToCheckpoint(point.id, pick, orderId, key)).toBe(2);
    // Sent again: answered as the first time, nothing more kept, not even the bytes.
    expect(await mechanic.addToCheckpoint(point.id, pick, orderId, key)).toBe(2);
    expect((await mechanic.photosOf(orderId)).map((p) => p.name)).toEqual(['bride.jpg', 'joint.jpg']);
    expect(await storedPhotos()).toBe(before + 4);
    // The same twice at once: one is kept.
    const again = [upload('carter.jpg', await cameraPhoto('jpeg', '#1e3a8a'))];
    expect(await Promise.all([0, 1].map(() => mechanic.addToCheckpoint(point.id, again, orderId, 'cle-simultanee')))).toEqual([1, 1]);
    // Another photo under a used key is another photo.
    expect(await mechanic.addToCheckpoint(point.id, [upload('vanne.jpg', await cameraPhoto('jpeg', '#047857'))], orderId, key)).toBe(1);
    expect((await mechanic.photosOf(orderId)).map((p) => p.name)).toEqual(['bride.jpg', 'joint.jpg', 'carter.jpg', 'vanne.jpg']);
    expect(await storedPhotos()).toBe(before + 8);
  });
});

describe('the photo forms posted to their page (issue 32 round 2)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
  });
  afterAll(() => t?.close());

  it('answers the upload script without the page, and a post over the photo cap with a French 413', async () => {
    const gql = graphqlAs(t, await signInAll(t));
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const b = browser(t.url);
    await b.signIn(demoEmails.mechanic);
    const action = `/repair-order/${orderId}?onglet=procedure&action=photos&id=${point.id}`;
    const post = async (name: string, bytes: Buffer, headers: Record<string, string> = {}) => {
      const form = new FormData();
      form.set('cle', `cle-${name}-0123456789`);
      form.append('photos', upload(name, bytes));
      return b.request(action, { method: 'POST', body: form, headers, redirect: 'manual' });
    };
    // The script's post: no page, where to open it; the photo kept once.
    const scripted = await post('bride.jpg', await cameraPhoto('jpeg'), { 'x-atelier-photos': '2' });
    expect(scripted.status).toBe(204);
    expect(scripted.headers.get('x-atelier-location')).toBe(`/repair-order/${orderId}?onglet=procedure#point-${point.id}`);
    expect(await scripted.text()).toBe('');
    // Refused, said as text naming the photo, for the form to say.
    const refused = await post('vanne.txt', Buffer.from('Pression 4,2 bar'), { 'x-atelier-photos': '0' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toBe("« vanne.txt » n'est pas une photo : JPEG, PNG ou WebP seulement.");
    // The header changes the answer only: what is kept is the same as without it.
    expect((await post('carter.jpg', await cameraPhoto('jpeg', '#1e3a8a'))).status).toBe(303);
    const photos = t.app.services.forViewer(await viewerOf(t, demoEmails.mechanic)).orderPhotos;
    expect((await photos.photosOf(orderId)).map((p) => p.name)).toEqual(['bride.jpg', 'carter.jpg']);
    // Over the photo posts' own cap (64 MB), the script's post is refused before it is read.
    const huge = await post('enorme.jpg', Buffer.alloc(65 * 1024 * 1024, 0xff), { 'x-atelier-photos': '0' });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain('Envoi trop volumineux : 64 Mo au plus par envoi ; envoyez moins de photos à la fois.');
  });
});

/** Two different JPEGs of one size (a COM segment pads the smaller), as an iPhone names them: image.jpg. */
async function twinSizedPhotos(): Promise<[Buffer, Buffer]> {
  const [a, b] = [await cameraPhoto('jpeg', '#b91c1c'), await cameraPhoto('jpeg', '#15803d')];
  const size = Math.max(a.length, b.length) + 8;
  const padded = (bytes: Buffer) => Buffer.concat([bytes.subarray(0, 2), jpegSegment(0xfe, Buffer.alloc(size - bytes.length - 4, 0x20)), bytes.subarray(2)]);
  return [padded(a), padded(b)];
}

describe.each(['pglite', 'postgres'] as const)('photos kept once, told apart by what they are, on %s (round 3)', (kind) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  const as = async (role: DemoRole) => t.app.services.forViewer(await viewerOf(t, demoEmails[role])).orderPhotos;
  const storedPhotos = async () => (await t.database.db.select({ id: files.id }).from(files).where(eq(files.bucketId, 'photo'))).length;

  beforeAll(async () => {
    t = await startTestApp(kind);
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  it('keeps two different photos both named image.jpg of one size under one key, and neither twice when picked again in reverse order', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const mechanic = await as('mechanic');
    const [red, green] = await twinSizedPhotos();
    expect(red.length).toBe(green.length);
    const before = await storedPhotos();
    const key = 'cle-iphone-0123456789';
    expect(await mechanic.addToCheckpoint(point.id, [upload('image.jpg', red)], orderId, key)).toBe(1);
    expect(await mechanic.addToCheckpoint(point.id, [upload('image.jpg', green)], orderId, key)).toBe(1);
    expect(await mechanic.addToCheckpoint(point.id, [upload('image.jpg', green), upload('image.jpg', red)], orderId, key)).toBe(2);
    // The same photo twice in one pick is kept once, and told as one.
    expect(await mechanic.addToCheckpoint(point.id, [upload('image.jpg', red), upload('copie.jpg', red)], orderId, 'cle-doublon-0123456789')).toBe(1);
    const photos = await mechanic.photosOf(orderId);
    expect(photos.map((p) => p.name)).toEqual(['image.jpg', 'image.jpg', 'image.jpg']);
    expect(await storedPhotos()).toBe(before + 6);
    const colours = await Promise.all(photos.slice(0, 2).map(async (p) => (await sharp((await t.app.services.files.blobs.read(p.fileId))!).stats()).dominant));
    expect(colours[0]!.r).toBeGreaterThan(colours[0]!.g);
    expect(colours[1]!.g).toBeGreaterThan(colours[1]!.r);
  });

  it('stores the same pick under the same key apart for another user and for another checkpoint', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [first] = await checkpointsOf(gql.mechanic, orderId);
    const other = await createOrderOnTheFloor(gql.diagnostician);
    const [second] = await checkpointsOf(gql.mechanic, other.orderId);
    const pick = [upload('bride.jpg', await cameraPhoto('jpeg'))];
    const key = 'cle-partagee-0123456789';
    expect(await (await as('mechanic')).addToCheckpoint(first.id, pick, orderId, key)).toBe(1);
    expect(await (await as('diagnostician')).addToCheckpoint(first.id, pick, orderId, key)).toBe(1);
    expect(await (await as('mechanic')).addToCheckpoint(second.id, pick, other.orderId, key)).toBe(1);
    const commercial = await as('commercial');
    const photos = [...(await commercial.photosOf(orderId)), ...(await commercial.photosOf(other.orderId))];
    expect(photos.map((p) => p.checkpointId)).toEqual([first.id, first.id, second.id]);
    expect(new Set(photos.map((p) => p.fileId)).size).toBe(3);
  });

  it('takes the same pick sent twice at once as one, and any other duplicate as a failure that keeps nothing', async () => {
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const mechanic = await as('mechanic');
    // The link key that names the same pick is the table primary key, named alike on both databases.
    const result = (await t.database.db.execute(
      sql`select conname as name from pg_constraint where conrelid = 'order_files'::regclass and contype = 'p'`,
    )) as unknown;
    // PGlite answers { rows }, postgres.js the rows themselves.
    const [{ name }] = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as [{ name: string }];
    expect(name).toBe('order_files_pkey');
    const once = [upload('carter.jpg', await cameraPhoto('jpeg', '#1e3a8a'))];
    expect(await Promise.all([0, 1].map(() => mechanic.addToCheckpoint(point.id, once, orderId, 'cle-simultanee-0123')))).toEqual([1, 1]);
    expect(await mechanic.photosOf(orderId)).toHaveLength(1);
    // Another unique index met while linking (here one made for the test) is not «already added».
    const before = await storedPhotos();
    await t.database.db.execute(sql.raw(`create unique index test_one_photo_per_order on order_files (repair_order_id) where repair_order_id = '${orderId}'`));
    try {
      const refused = await mechanic
        .addToCheckpoint(point.id, [upload('vanne.jpg', await cameraPhoto('jpeg', '#047857'))], orderId, 'cle-autre-0123456789')
        .then(
          () => null,
          (error: unknown) => pgConstraint(error),
        );
      expect(refused).toBe('test_one_photo_per_order');
    } finally {
      await t.database.db.execute(sql`drop index test_one_photo_per_order`);
    }
    expect((await mechanic.photosOf(orderId)).map((p) => p.name)).toEqual(['carter.jpg']);
    expect(await storedPhotos()).toBe(before);
  });
});

describe('a photo posted to the page by who may not add one (round 3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
  });
  afterAll(() => t?.close());

  it('refuses the commercial with the upload script header as without it, and keeps nothing', async () => {
    const gql = graphqlAs(t, await signInAll(t));
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const storedPhotos = async () => (await t.database.db.select({ id: files.id }).from(files).where(eq(files.bucketId, 'photo'))).length;
    const before = await storedPhotos();
    const b = browser(t.url);
    await b.signIn(demoEmails.commercial);
    const post = async (headers: Record<string, string>) => {
      const form = new FormData();
      form.set('cle', 'cle-commercial-0123456789');
      form.append('photos', upload('bride.jpg', await cameraPhoto('jpeg')));
      return b.request(`/repair-order/${orderId}?onglet=procedure&action=photos&id=${point.id}`, { method: 'POST', body: form, headers, redirect: 'manual' });
    };
    // Without the script: back at the checkpoint, the refusal said on the page.
    const page = await post({});
    expect(page.status).toBe(303);
    const shown = await (await b.request(page.headers.get('location')!)).text();
    expect(shown).toContain('Aucune photo ajoutée : Accès refusé');
    // With its header: refused as well, said as text.
    const scripted = await post({ 'x-atelier-photos': '0' });
    expect(scripted.status).toBe(403);
    expect(await scripted.text()).toContain('Accès refusé');
    expect(await storedPhotos()).toBe(before);
  });
});

describe.each(['pglite', 'postgres'] as const)('the unlinked photo sweep on %s (round 3)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(() => t?.close());

  it('leaves a photo younger than 15 minutes to the sweep even with no grace period, and takes it older', async () => {
    const store = t.app.services.files;
    const mechanic = await viewerOf(t, demoEmails.mechanic);
    const staged = store.stage(await cameraPhoto('jpeg'), 'perdue.jpg');
    await store.commit('photo', mechanic.id, [{ ...staged, mimeType: 'image/jpeg' }]);
    rmSync(staged.tmp, { force: true });
    const rowOf = async () => (await t.database.db.select({ id: files.id }).from(files).where(eq(files.id, staged.id))).length;
    const age = (minutes: number) =>
      t.database.db
        .update(files)
        .set({ createdAt: new Date(Date.now() - minutes * 60_000) })
        .where(eq(files.id, staged.id));
    await age(10);
    await store.sweepOrphans(0);
    expect(await rowOf()).toBe(1);
    await age(16);
    await store.sweepOrphans(0);
    expect(await rowOf()).toBe(0);
  });

  it('sweeps the stored bytes no row claims even when the photo sweep fails, and logs that failure', async () => {
    const store = t.app.services.files;
    const db = t.database.db;
    const orphan = crypto.randomUUID();
    const tmp = store.stage(Buffer.from('orphelin'), 'orphelin.pdf');
    await store.blobs.put(orphan, tmp.tmp);
    rmSync(tmp.tmp, { force: true });
    const transaction = db.transaction;
    db.transaction = () => Promise.reject(new Error('base injoignable'));
    try {
      await store.sweepOrphans(0);
    } finally {
      db.transaction = transaction;
    }
    expect(await store.blobs.size(orphan)).toBeNull();
    expect(t.logLines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'unlinked photo sweep failed', error: 'base injoignable' }));
  });
});

describe('a photo linked while the sweep runs, on postgres (round 3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres');
  });
  afterAll(() => t?.close());

  it('keeps an old unlinked photo whose link commits while the sweep runs', async () => {
    const gql = graphqlAs(t, await signInAll(t));
    const { orderId } = await createOrderOnTheFloor(gql.diagnostician);
    const [point] = await checkpointsOf(gql.mechanic, orderId);
    const store = t.app.services.files;
    const mechanic = await viewerOf(t, demoEmails.mechanic);
    const staged = [store.stage(await cameraPhoto('jpeg'), 'lente.jpg'), store.stage(await cameraPhoto('jpeg'), 'miniature-lente.jpg')];
    await store.commit(
      'photo',
      mechanic.id,
      staged.map((s) => ({ ...s, mimeType: 'image/jpeg' })),
    );
    for (const s of staged) rmSync(s.tmp, { force: true });
    const [fileId, thumbnailId] = staged.map((s) => s.id) as [string, string];
    // Kept two hours ago (an addition that stalled that long), linked only now.
    await t.database.db
      .update(files)
      .set({ createdAt: new Date(Date.now() - 2 * 60 * 60_000) })
      .where(inArray(files.id, [fileId, thumbnailId]));
    const linking = new pg.Client({ connectionString: t.config.databaseUrl });
    await linking.connect();
    try {
      await linking.query('begin');
      await linking.query(`insert into order_files (repair_order_id, kind, checkpoint_id, file_id, thumbnail_id) values ($1, 'photo', $2, $3, $4)`, [
        orderId,
        point.id,
        fileId,
        thumbnailId,
      ]);
      let swept = false;
      const sweep = store.sweepOrphans().finally(() => {
        swept = true;
      });
      // The sweep done, or waiting on the link's lock: then the link commits.
      const waiting = async () =>
        Number((await linking.query(`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`)).rows[0].n) >
        0;
      for (let i = 0; i < 100 && !swept && !(await waiting()); i++) await new Promise((r) => setTimeout(r, 50));
      await linking.query('commit');
      await sweep;
    } finally {
      await linking.end();
    }
    const photos = await t.app.services.forViewer(mechanic).orderPhotos.photosOf(orderId);
    expect(photos.map((p) => [p.fileId, p.thumbnailId])).toEqual([[fileId, thumbnailId]]);
    for (const id of [fileId, thumbnailId]) expect(await t.app.services.files.blobs.read(id)).not.toBeNull();
  });
});
