// The storage API's own changes to a stored file (decision 034): deleting one takes the dossier
// document or the order's file link with it (foreign keys cascade), replacing one changes what
// they hold. Called in the file row's transaction, before its change, with the request's viewer.
import { eq } from 'drizzle-orm';
import type { AuditChange } from '#lib/audit/audit.ts';
import { t } from '#lib/i18n.ts';
import type { Db } from '#server/db/client.ts';
import { files, gearboxDocuments, orderFiles } from '#server/db/schema/index.ts';
import { openOrder } from '#server/repair-orders/open-order.ts';
import { type AuditActor, record } from './record.ts';
import { gearboxModelRefOf, fieldLabel, orderOf } from './refs.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export type FileChange = { action: 'deleted' } | { action: 'changed'; name: string };

/**
 * Records `change` on what holds the file (a dossier's document, an order's file), if anything
 * does; refused (409) when it is a closed order's.
 */
export async function recordFileChange(tx: Tx, fileId: string, change: FileChange, actor: AuditActor): Promise<void> {
  // Locked: a concurrent deletion or replacement of the same file waits, and reads what this left.
  const [file] = await tx.select({ name: files.name }).from(files).where(eq(files.id, fileId)).for('update');
  if (!file) return;
  const holder = await holderOf(tx, fileId, file.name);
  if (!holder) return;
  const changes: AuditChange[] =
    change.action === 'changed'
      ? [
          ...(change.name !== file.name ? [{ field: fieldLabel('file'), before: file.name, after: change.name }] : []),
          { field: fieldLabel('fileContent'), before: '', after: t('audit.replaced') },
        ]
      : [];
  await record(tx, { action: change.action, ...holder, changes, actor });
}

/** The dossier document or the order file that holds a stored file, as the audit trail names it. */
async function holderOf(tx: Tx, fileId: string, fileName: string) {
  const [document] = await tx.select().from(gearboxDocuments).where(eq(gearboxDocuments.fileId, fileId));
  if (document) {
    return { entity: { kind: 'document' as const, id: document.id, label: document.title }, parent: await gearboxModelRefOf(tx, document.modelId) };
  }
  const [link] = await tx.select().from(orderFiles).where(eq(orderFiles.fileId, fileId));
  if (!link) return null;
  // A closed order's files are as closed as the rest of it: refused here as its services refuse them.
  await openOrder(tx, link.orderId);
  return { entity: { kind: 'order_file' as const, id: link.id, label: fileName }, parent: await orderOf(tx, link.orderId) };
}
