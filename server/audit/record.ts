// Writing the audit trail (decision 034): one insert per change, in the caller's transaction,
// so a change that rolls back leaves no event and an event that fails rolls the change back.
// The actor is the viewer of the GraphQL operation running (set once per operation by
// `runAs`), so the services record without threading a user through every signature.
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { AuditAction, AuditChange, AuditKind } from '#lib/audit/audit.ts';
import { formatDateTimeSeconds, formatNumber } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import type { Db } from '#server/db/client.ts';

export type AuditActor = { id: string } | null;
const actors = new AsyncLocalStorage<AuditActor>();

/** Runs `fn` with `actor` as the author of whatever it records. */
export const runAs = <T>(actor: AuditActor, fn: () => T): T => actors.run(actor, fn);
export const currentActor = (): AuditActor => actors.getStore() ?? null;

export type AuditRef = { kind: AuditKind; id: string; label: string };

export type AuditEventInput = {
  action: AuditAction;
  entity: AuditRef;
  /** The order, dossier, stock item or user it belongs to; itself when absent. */
  parent?: AuditRef;
  changes?: AuditChange[];
  /** Only where no GraphQL operation runs (the auth API): the account acting. */
  actor?: AuditActor;
};

type Executor = Pick<Db, 'execute'>;

/** Records one event in `tx`; the actor's name and e-mail are copied as they are now. */
export async function record(tx: Executor, event: AuditEventInput): Promise<void> {
  const actorId = event.actor !== undefined ? (event.actor?.id ?? null) : (currentActor()?.id ?? null);
  const parent = event.parent ?? event.entity;
  await tx.execute(sql`insert into audit.events
    (actor_id, actor_name, actor_email, action, entity_kind, entity_id, entity_label, parent_kind, parent_id, parent_label, changes)
    values (
      ${actorId}::uuid,
      coalesce((select display_name from auth.users where id = ${actorId}::uuid), ''),
      coalesce((select email from auth.users where id = ${actorId}::uuid), ''),
      ${event.action}, ${event.entity.kind}, ${event.entity.id}::uuid, ${event.entity.label},
      ${parent.kind}, ${parent.id}::uuid, ${parent.label},
      ${JSON.stringify(event.changes ?? [])}::jsonb
    )`);
}

const MAX_VALUE = 300;

/** A value as a person reads it: dates on the workshop's clock, Oui/Non, French numbers, lists joined. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? t('audit.yes') : t('audit.no');
  if (typeof value === 'number') return formatNumber(value);
  if (value instanceof Date) return formatDateTimeSeconds(value);
  if (Array.isArray(value)) return value.map(show).filter(Boolean).join(', ');
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
}

/** A field: its French label and how to read it from a row (already readable, or shown by `show`). */
export type Field<T> = readonly [label: string, read: (row: T) => unknown];

/**
 * The fields that differ between `before` and `after`, readable; with no `before` (a creation),
 * the fields that have a value. Secrets are never given a field.
 */
export function changesOf<T>(before: T | null | undefined, after: T, fields: readonly Field<T>[]): AuditChange[] {
  const changes: AuditChange[] = [];
  for (const [field, read] of fields) {
    const b = before ? show(read(before)) : '';
    const a = show(read(after));
    if (a !== b) changes.push({ field, before: b, after: a });
  }
  return changes;
}
