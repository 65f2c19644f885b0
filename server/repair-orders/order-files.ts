// The files of an order's diagnostic (measure and curve files, imports): linking one the storage
// API stored; dropping them with what used them, then their bytes once that is committed. One
// place for measures, curves, imports and the order itself.
import { eq, inArray, type SQL } from 'drizzle-orm';
import { files, gearboxDocuments, orderFiles, repairOrders } from '#server/db/schema/index.ts';
import { pgCode } from '#server/db/errors.ts';
import type { FileStore } from '#server/storage/store.ts';
import type { Tx } from './open-order.ts';
import { conflict, invalid, notFound } from '#server/errors.ts';
import { record } from '#server/audit/record.ts';
import { orderOf } from '#server/audit/refs.ts';

type Link = typeof orderFiles.$inferInsert;
type StoredFile = typeof files.$inferSelect;

/**
 * Links a stored file to the order. It must exist, have passed the bucket its use requires
 * (`accepts`), and belong to nothing else: not a dossier's document (deleting the order's link
 * would delete it), not another link.
 */
export async function linkOrderFile(
  tx: Tx,
  values: Link,
  accepts: (file: StoredFile) => boolean,
  messages: { notFound: string; unsupported: string; taken: string; field: string },
) {
  const [file] = await tx.select().from(files).where(eq(files.id, values.fileId));
  if (!file) throw notFound(messages.notFound);
  const [dossier] = await tx.select({ id: gearboxDocuments.id }).from(gearboxDocuments).where(eq(gearboxDocuments.fileId, values.fileId));
  if (dossier) throw conflict('file-linked', messages.taken);
  if (!accepts(file)) throw invalid({ [messages.field]: messages.unsupported }, 'unsupported-format');
  const [row] = await tx
    .insert(orderFiles)
    .values({ ...values, comment: (values.comment ?? '').trim().slice(0, 1000) })
    .returning({ id: orderFiles.id })
    .catch((error: unknown) => {
      if (pgCode(error) === '23505') throw conflict('file-linked', messages.taken);
      throw error;
    });
  await tx.update(repairOrders).set({ updatedAt: new Date() }).where(eq(repairOrders.id, values.orderId));
  await record(tx, { action: 'created', entity: { kind: 'order_file', id: row!.id, label: file.name }, parent: await orderOf(tx, values.orderId) });
  return row!.id;
}

/** The stored files of the links `where` names: each file, and a photo's thumbnail (decision 088). */
export async function linkedFileIds(tx: Tx, where: SQL | undefined): Promise<string[]> {
  const rows = await tx.select({ fileId: orderFiles.fileId, thumbnailId: orderFiles.thumbnailId }).from(orderFiles).where(where);
  return rows.flatMap((r) => (r.thumbnailId ? [r.fileId, r.thumbnailId] : [r.fileId]));
}

/** The stored files' rows, in the transaction that drops what used them (their links go by cascade). */
export async function dropStoredRows(tx: Tx, fileIds: string[]) {
  if (fileIds.length) await tx.delete(files).where(inArray(files.id, fileIds));
}

/** Once that transaction has committed: the bytes (and the rows, should any be left). */
export async function removeStoredFiles(store: FileStore | undefined, fileIds: string[]) {
  for (const id of fileIds) await store?.remove(id);
}
