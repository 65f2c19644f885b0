// Ending sign-ins: shared by the auth service (sign-out everywhere, password change) and the
// users service (disabling an account), inside their own transactions.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { grants } from '#server/db/schema/index.ts';

/** Revokes every open grant of a user but `except`; pages, bearer tokens and sockets follow. */
export async function endSessions(db: Pick<Db, 'update'>, userId: string, except?: string): Promise<void> {
  await db
    .update(grants)
    .set({ revokedAt: new Date() })
    .where(and(eq(grants.userId, userId), isNull(grants.revokedAt), except ? sql`${grants.id} <> ${except}` : undefined));
}
