// Photos of an order's checkpoints and measures (issue 32, decision 088): taken on the tablet,
// made on the server before anything is kept (turned upright, at most 2048 px, every metadata
// dropped, JPEG) with a 400 px thumbnail; both stored files of the `photo` bucket, linked through
// `order_files` (kind 'photo'). A closed order's photos are read-only.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import { PHOTO_BUCKET } from '#lib/storage/files.ts';
import { joinRefusals, MAX_PHOTOS_PER_POST, PHOTOS_FIELD } from '#lib/repair-orders/photos.ts';
import type { Db } from '#server/db/client.ts';
import { files, orderCheckpoints, orderFiles, orderMeasures, repairOrders } from '#server/db/schema/index.ts';
import { cleanName, FILE_ID, type FileStore } from '#server/storage/store.ts';
import { loadSharp } from '#server/storage/sharp.ts';
import { openOrder } from './open-order.ts';
import { dropStoredRows, removeStoredFiles } from './order-files.ts';
import { DomainError, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { record } from '#server/audit/record.ts';
import { orderRef } from '#server/audit/refs.ts';
import { pgCode, pgConstraint } from '#server/db/errors.ts';

export type OrderPhotosService = ReturnType<typeof createOrderPhotosService>;

export const PHOTO_KIND = 'photo';
/** The long side of a kept photo: a tablet's screen and an A4 page, with room to zoom. */
export const PHOTO_SIDE = 2048;
export const THUMBNAIL_SIDE = 400;
/** 64 million pixels: a 50 Mpx phone sensor passes, a decompression bomb does not. */
export const MAX_PIXELS = 64_000_000;
export { MAX_PHOTOS_PER_POST };

const ACCEPTED = new Set(['image/jpeg', 'image/png', 'image/webp']);
const HEIC = new Set(['image/heic', 'image/heif', 'image/heic-sequence', 'image/heif-sequence']);

/** An upload: its name and bytes (a posted File, or bytes a test or the demo hands over). */
export type PhotoUpload = { name: string; size: number; arrayBuffer: () => Promise<ArrayBuffer> };

export type OrderPhoto = {
  id: string;
  checkpointId: string | null;
  measureId: string | null;
  fileId: string;
  thumbnailId: string | null;
  name: string;
  createdAt: Date;
};

/** One photo made at a time in the process: a 2-core terminal keeps a core for the rest. */
let queue: Promise<unknown> = Promise.resolve();
const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
  const run = queue.then(work, work);
  queue = run.catch(() => {});
  return run;
};

/**
 * The photo and thumbnail made from what was taken, or a refusal naming the file. Sniffed from
 * the bytes, never from the name or the declared type.
 */
export async function makePhoto(name: string, bytes: Buffer, maxBytes: number): Promise<{ photo: Buffer; thumbnail: Buffer }> {
  const mb = Math.round(maxBytes / 1024 / 1024);
  const refused = (key: 'orderPhotos.notPhoto' | 'orderPhotos.heic' | 'orderPhotos.tooLarge' | 'orderPhotos.tooManyPixels' | 'orderPhotos.corrupt') =>
    invalid({ [PHOTOS_FIELD]: t(key, { name, mb, megapixels: MAX_PIXELS / 1_000_000 }) }, 'unsupported-format');
  // The one size check of a photo, for every way one comes in.
  if (bytes.length > maxBytes) throw refused('orderPhotos.tooLarge');
  const type = await fileTypeFromBuffer(bytes);
  if (type && HEIC.has(type.mime)) throw refused('orderPhotos.heic');
  if (!type || !ACCEPTED.has(type.mime)) throw refused('orderPhotos.notPhoto');
  const sharp = await loadSharp();
  return oneAtATime(async () => {
    try {
      // No metadata is kept: sharp writes none unless asked (withMetadata/keepExif), so EXIF, GPS
      // and XMP go; colours are converted to sRGB and the profile dropped.
      const photo = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
        .rotate()
        .resize({ width: PHOTO_SIDE, height: PHOTO_SIDE, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .toColourspace('srgb')
        .jpeg({ quality: 82, chromaSubsampling: '4:2:0' })
        .toBuffer();
      const thumbnail = await sharp(photo)
        .resize({ width: THUMBNAIL_SIDE, height: THUMBNAIL_SIDE, fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality: 72 })
        .toBuffer();
      return { photo, thumbnail };
    } catch (error) {
      throw refused(/pixel limit/i.test(String((error as Error)?.message)) ? 'orderPhotos.tooManyPixels' : 'orderPhotos.corrupt');
    }
  });
}

/** The primary key of `order_files`, on PGlite and PostgreSQL alike: what a link sent twice at once meets. */
const LINK_KEY = 'order_files_pkey';
/**
 * A photo's link id made from the page's key (decision 088): the same pick posted again (its reply
 * lost) names the same rows, so it is stored once. Made with who posts and where, so a key cannot
 * name another's photo; with a hash of the photo's bytes, so another photo under the same key (an
 * iPhone names every capture image.jpg), or the same ones in another order, are told apart by what they are.
 */
const linkIdOf = (parts: (string | number)[]) => {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A photo as the activity names it, added or deleted: «checkpoint (or measure) : name». */
const photoLabel = (of: string | undefined, name: string) => [of, name].filter(Boolean).join(' : ');

/** The kept photo's name: what was taken, as a JPEG. */
const jpegName = (name: string) => `${cleanName(name).replace(/\.[^.]*$/, '') || 'photo'}.jpg`;

export function createOrderPhotosService(deps: { db: Db; files?: FileStore }) {
  const { db } = deps;

  const selection = {
    id: orderFiles.id,
    checkpointId: orderFiles.checkpointId,
    measureId: orderFiles.measureId,
    fileId: orderFiles.fileId,
    thumbnailId: orderFiles.thumbnailId,
    name: files.name,
    createdAt: orderFiles.createdAt,
  };
  const photos = (where: SQL) =>
    db
      .select(selection)
      .from(orderFiles)
      .innerJoin(files, eq(files.id, orderFiles.fileId))
      .where(and(eq(orderFiles.kind, PHOTO_KIND), where))
      .orderBy(asc(orderFiles.createdAt), asc(orderFiles.id));

  /**
   * Makes every upload first (one refused refuses the post, nothing kept), stores them, then links
   * them in one transaction that checks the order is still open; refused there, the stored files go.
   * `key`: the page's for this pick; a photo already linked under it is not kept again.
   */
  async function add(
    viewer: Viewer,
    uploads: PhotoUpload[],
    target: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<{ orderId: string; checkpointId?: string; measureId?: string; label: string }>,
    key?: string,
  ) {
    const store = deps.files;
    if (!store) throw invalid({ [PHOTOS_FIELD]: t('orderPhotos.noStore') });
    const maxBytes = store.maxBytes.photo;
    const taken = uploads.filter((u) => u.size > 0 || u.name);
    if (taken.length === 0) throw invalid({ [PHOTOS_FIELD]: t('orderPhotos.none') });
    if (taken.length > MAX_PHOTOS_PER_POST) throw invalid({ [PHOTOS_FIELD]: t('orderPhotos.tooMany', { max: MAX_PHOTOS_PER_POST }) });
    // The order open and the target found before the work, so a closed order costs no processing.
    const found = await db.transaction(target);
    const where = found.checkpointId ?? found.measureId ?? '';
    // One photo's bytes in memory at a time: read here for their hash, again below to be made.
    const linkIds: (string | undefined)[] = [];
    for (const u of taken) linkIds.push(key ? linkIdOf([viewer.id, where, key, sha256(Buffer.from(await u.arrayBuffer()))]) : undefined);
    const linkedAlready = async (ids: string[]) =>
      new Set((await db.select({ id: orderFiles.id }).from(orderFiles).where(inArray(orderFiles.id, ids))).map((r) => r.id));
    const keyed = [...new Set(linkIds.filter((id) => id !== undefined))];
    const known = key ? await linkedAlready(keyed) : new Set<string>();
    // The photos this pick holds: the same one picked twice is one photo, told as one.
    const count = key ? keyed.length : taken.length;
    // Sent again (the reply was lost): answered as the first time, nothing made or kept twice.
    if (key && known.size === keyed.length) return count;
    const made: { name: string; photo: Buffer; thumbnail: Buffer; linkId: string | undefined }[] = [];
    const refused: string[] = [];
    for (const [i, upload] of taken.entries()) {
      const linkId = linkIds[i];
      // Linked already, or the same photo picked twice in this post: kept once.
      if (linkId && (known.has(linkId) || made.some((m) => m.linkId === linkId))) continue;
      const name = cleanName(upload.name);
      try {
        made.push({ name: jpegName(name), linkId, ...(await makePhoto(name, Buffer.from(await upload.arrayBuffer()), maxBytes)) });
      } catch (error) {
        const said = error instanceof DomainError ? error.details.fields?.[PHOTOS_FIELD] : undefined;
        if (!said) throw error;
        refused.push(said);
      }
    }
    // Every photo refused is named at once: fixed one by one, the post would be refused again.
    if (refused.length) throw invalid({ [PHOTOS_FIELD]: joinRefusals(refused) }, 'unsupported-format');
    store.assertRoom(made.reduce((sum, m) => sum + m.photo.length + m.thumbnail.length, 0));
    const checked = made.flatMap((m) =>
      [
        { bytes: m.photo, name: m.name },
        { bytes: m.thumbnail, name: `miniature-${m.name}` },
      ].map(({ bytes, name }) => ({ ...store.stage(bytes, name), mimeType: 'image/jpeg' })),
    );
    try {
      await store.commit(PHOTO_BUCKET, viewer.id, checked);
    } finally {
      for (const c of checked) rmSync(c.tmp, { force: true });
    }
    const ids = checked.map((c) => c.id);
    try {
      return await db.transaction(async (tx) => {
        const { orderId, checkpointId, measureId, label } = await target(tx);
        const order = await openOrder(tx, orderId);
        const now = Date.now();
        const rows = await tx
          .insert(orderFiles)
          .values(
            made.map((m, i) => ({
              ...(m.linkId ? { id: m.linkId } : {}),
              orderId,
              kind: PHOTO_KIND,
              checkpointId: checkpointId ?? null,
              measureId: measureId ?? null,
              fileId: ids[2 * i]!,
              thumbnailId: ids[2 * i + 1]!,
              // In the order taken: one transaction's rows would otherwise share their time.
              createdAt: new Date(now + i),
            })),
          )
          .returning({ id: orderFiles.id });
        await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, orderId));
        for (const [i, row] of rows.entries())
          await record(tx, { action: 'created', entity: { kind: 'order_file', id: row.id, label: photoLabel(label, made[i]!.name) }, parent: orderRef(order) });
        return count;
      });
    } catch (error) {
      for (const id of ids) await store.remove(id).catch(() => {});
      // The same pick sent twice at once: the first one linked it, this one keeps nothing. Only
      // the link's own key says so, and only once every photo of the post is linked.
      if (key && pgCode(error) === '23505' && pgConstraint(error) === LINK_KEY && (await linkedAlready(keyed)).size === keyed.length) return count;
      throw error;
    }
  }

  /** Removes one photo of the kind `belongs` accepts; its file and thumbnail go, rows then bytes. Answers its link. */
  async function remove(id: string, orderId: string | undefined, belongs: (link: typeof orderFiles.$inferSelect) => boolean) {
    // A malformed id names no photo (the database would refuse it as a uuid).
    if (!FILE_ID.test(id)) throw notFound(t('orderPhotos.notFound'));
    const { link, fileIds } = await db.transaction(async (tx) => {
      const [link] = await tx
        .select()
        .from(orderFiles)
        .where(and(eq(orderFiles.id, id), eq(orderFiles.kind, PHOTO_KIND)));
      if (!link || !belongs(link) || (orderId !== undefined && link.orderId !== orderId)) throw notFound(t('orderPhotos.notFound'));
      const order = await openOrder(tx, link.orderId);
      const [file] = await tx.select({ name: files.name }).from(files).where(eq(files.id, link.fileId));
      // Labelled as its addition was: «checkpoint : name» (or the measure's).
      const [owner] = link.checkpointId
        ? await tx.select({ name: orderCheckpoints.name }).from(orderCheckpoints).where(eq(orderCheckpoints.id, link.checkpointId))
        : await tx.select({ name: orderMeasures.name }).from(orderMeasures).where(eq(orderMeasures.id, link.measureId!));
      await record(tx, { action: 'deleted', entity: { kind: 'order_file', id, label: photoLabel(owner?.name, file?.name ?? '') }, parent: orderRef(order) });
      const ids = [link.fileId, ...(link.thumbnailId ? [link.thumbnailId] : [])];
      await dropStoredRows(tx, ids);
      return { link, fileIds: ids };
    });
    await removeStoredFiles(deps.files, fileIds);
    return link;
  }

  const checkpointTarget = (checkpointId: string, orderId?: string) => async (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => {
    if (!FILE_ID.test(checkpointId)) throw notFound(t('refusals.checkpointNotFound'));
    const [c] = await tx
      .select({ orderId: orderCheckpoints.orderId, name: orderCheckpoints.name })
      .from(orderCheckpoints)
      .where(eq(orderCheckpoints.id, checkpointId));
    if (!c || (orderId !== undefined && c.orderId !== orderId)) throw notFound(t('refusals.checkpointNotFound'));
    await openOrder(tx, c.orderId);
    return { orderId: c.orderId, checkpointId, label: c.name };
  };
  const measureTarget = (measureId: string, orderId?: string) => async (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => {
    if (!FILE_ID.test(measureId)) throw notFound(t('refusals.measureNotFound'));
    const [m] = await tx.select({ orderId: orderMeasures.orderId, name: orderMeasures.name }).from(orderMeasures).where(eq(orderMeasures.id, measureId));
    if (!m || (orderId !== undefined && m.orderId !== orderId)) throw notFound(t('refusals.measureNotFound'));
    await openOrder(tx, m.orderId);
    return { orderId: m.orderId, measureId, label: m.name };
  };

  return {
    /** The order's photos, oldest first, checkpoints' and measures' alike; `measureId`: that measure's only (its page). */
    photosOf: (_viewer: Viewer, orderId: string, only: { measureId?: string } = {}): Promise<OrderPhoto[]> =>
      photos(
        only.measureId === undefined
          ? eq(orderFiles.orderId, orderId)
          : (and(eq(orderFiles.orderId, orderId), eq(orderFiles.measureId, only.measureId)) as SQL),
      ),

    /** `orderId`: the order the caller shows; a checkpoint of another order is not found. */
    /** `key`: the page's key for the pick (PHOTO_KEY_FIELD): the same pick sent again is kept once. */
    addToCheckpoint: (viewer: Viewer, checkpointId: string, uploads: PhotoUpload[], orderId?: string, key?: string) =>
      add(viewer, uploads, checkpointTarget(checkpointId, orderId), key),
    addToMeasure: (viewer: Viewer, measureId: string, uploads: PhotoUpload[], orderId?: string, key?: string) =>
      add(viewer, uploads, measureTarget(measureId, orderId), key),
    /** `orderId`: the order the caller shows; another order's photo is not found. */
    /** Answers the photo's checkpoint, where the page lands after. */
    removeFromCheckpoint: async (_viewer: Viewer, id: string, orderId?: string) =>
      (await remove(id, orderId, (link) => link.checkpointId !== null)).checkpointId!,
    removeFromMeasure: async (_viewer: Viewer, id: string, orderId?: string) => (await remove(id, orderId, (link) => link.measureId !== null)).id,
  };
}

/** Who may call what (decision 061): checkpoints' photos by who follows the procedures, measures' by who manages orders. */
export const orderPhotosPermissions = {
  photosOf: 'signedIn',
  addToCheckpoint: 'followProcedures',
  addToMeasure: 'manageOrders',
  removeFromCheckpoint: 'followProcedures',
  removeFromMeasure: 'manageOrders',
} as const satisfies PermissionTable<OrderPhotosService>;
