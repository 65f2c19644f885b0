// The audit trail (issue 19, decision 034): who created, changed, deleted, closed or reopened
// what and when. Written in the transaction of the change; never updated nor deleted (a trigger
// refuses it). No foreign key: the actor and the entity may be deleted, their events stay.
import { bigint, index, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const audit = pgSchema('audit');

/** One field's change, as a person reads it (never a secret). */
export type AuditChange = { field: string; before: string; after: string };

export const auditEvents = audit.table(
  'events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    actorId: uuid('actor_id'),
    /** The actor's name and e-mail as they were: the account may be renamed or deleted later. */
    actorName: text('actor_name').notNull().default(''),
    actorEmail: text('actor_email').notNull().default(''),
    action: text('action').notNull(),
    entityKind: text('entity_kind').notNull(),
    entityId: uuid('entity_id').notNull(),
    entityLabel: text('entity_label').notNull(),
    /** The order, dossier, stock item or user the entity belongs to (itself for those). */
    parentKind: text('parent_kind').notNull(),
    parentId: uuid('parent_id').notNull(),
    parentLabel: text('parent_label').notNull(),
    changes: jsonb('changes').$type<AuditChange[]>().notNull().default([]),
  },
  (t) => [
    index('events_parent_idx').on(t.parentKind, t.parentId, t.at.desc(), t.id.desc()),
    index('events_entity_idx').on(t.entityKind, t.entityId, t.at.desc(), t.id.desc()),
    index('events_actor_idx').on(t.actorId, t.at.desc(), t.id.desc()),
  ],
);
