// The account changes the auth API makes (decision 034): the user acts on their own account,
// so they are the actor. The password is said to have changed, never what it is.
import { eq } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { t } from '#lib/i18n.ts';
import { record } from './record.ts';
import { fieldLabel, userChanges, userRef } from './refs.ts';

type Executor = Pick<Db, 'execute'>;

export async function recordPasswordChange(tx: Executor & Pick<Db, 'select'>, userId: string) {
  const [u] = await tx.select().from(users).where(eq(users.id, userId));
  if (!u) return;
  await record(tx, {
    action: 'changed',
    entity: userRef(u),
    actor: { id: userId },
    changes: [{ field: fieldLabel('password'), before: '', after: t('audit.passwordChanged') }],
  });
}

export async function recordEmailChange(tx: Executor, user: { id: string; displayName: string; email: string | null }, email: string) {
  await record(tx, {
    action: 'changed',
    entity: userRef(user),
    actor: { id: user.id },
    changes: [{ field: fieldLabel('email'), before: user.email ?? '', after: email }],
  });
}

/** An account made by its owner (self sign-up): they are its author. */
export async function recordSignUp(tx: Executor, user: { id: string; displayName: string; email: string | null; defaultRole: string; disabled: boolean }) {
  await record(tx, { action: 'created', entity: userRef(user), actor: { id: user.id }, changes: userChanges(null, user) });
}
