// Every write to an order's diagnostic starts here: the order locked for the transaction (two
// people writing at once apply one after the other), an unknown one not found, a closed one refused.
import { eq } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { repairOrders } from '#server/db/schema/index.ts';
import { conflict, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export const CLOSED = t('refusals.orderClosed');

export async function openOrder(tx: Tx, id: string) {
  const [order] = await tx.select().from(repairOrders).where(eq(repairOrders.id, id)).for('update');
  if (!order) throw notFound(t('errors.repairOrderLoad'));
  if (order.status === 'CLOSED') throw conflict('closed', CLOSED);
  return order;
}
