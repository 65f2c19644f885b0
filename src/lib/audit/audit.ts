import { dayOf, formatDateTimeSeconds } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';

export const auditActions = ['created', 'changed', 'deleted', 'closed', 'reopened', 'moved', 'removed'] as const;
export type AuditAction = (typeof auditActions)[number];

export const auditKinds = [
  'repair_order',
  'order_measure',
  'order_curve',
  'order_file',
  'order_symptom',
  'order_fault_code',
  'order_checkpoint',
  'order_procedure',
  'gearbox_model',
  'outage',
  'procedure',
  'gearbox_measure',
  'document',
  'gearbox_code',
  'error_code',
  'stock_item',
  'user',
] as const;
export type AuditKind = (typeof auditKinds)[number];

/** One field's change, as a person reads it (never a secret). */
export type AuditChange = { field: string; before: string; after: string };

/** An event as the lists, the API and the CSV give it. */
export type AuditEventView = {
  id: number;
  at: Date | string;
  actorId: string | null;
  actorName: string;
  /** Given only to those who may manage users (null for the other roles). */
  actorEmail: string | null;
  action: string;
  entityKind: string;
  entityId: string;
  entityLabel: string;
  parentKind: string;
  parentId: string;
  parentLabel: string;
  changes: AuditChange[];
};

export const AUDIT_PAGE_SIZE = 50;
/** One CSV holds at most this many events, newest first. */
export const AUDIT_CSV_MAX = 10_000;

export const actionLabel = (action: string) => ((auditActions as readonly string[]).includes(action) ? t(`audit.actions.${action as AuditAction}`) : action);
export const kindLabel = (kind: string) => ((auditKinds as readonly string[]).includes(kind) ? t(`audit.kinds.${kind as AuditKind}`) : kind);

/**
 * Who did it: the name as it was, else the e-mail (when the viewer may read it), else the
 * system (seed, a script). An e-mail withheld cannot tell a nameless account from a deleted one.
 */
export const actorLabel = (e: Pick<AuditEventView, 'actorId' | 'actorName' | 'actorEmail'>) =>
  e.actorId ? e.actorName || e.actorEmail || t(e.actorEmail === null ? 'audit.unnamedUser' : 'audit.deletedUser') : t('audit.system');

/**
 * The word to put before a label: none when the label already starts with it, so an order reads
 * «OR-2026-0351», never «OR OR-2026-0351» (a number such as «AUD-12» still reads «OR AUD-12»).
 */
export function wordBefore(word: string, label: string): string {
  const next = label.charAt(word.length);
  const starts = label.slice(0, word.length).localeCompare(word, 'fr', { sensitivity: 'base' }) === 0 && !/[\p{L}\p{N}]/u.test(next);
  return label && starts ? '' : word;
}

/** A label after its word («Point de contrôle Démarrage en côte», «OR-2026-0601», «OR AUD-12»). */
export const withWord = (word: string, label: string) => [wordBefore(word, label), label].filter(Boolean).join(' ');

/** What an event was done to, or what it happened within, as one reads it. */
export const subjectLabel = (kind: string, label: string) => withWord(kindLabel(kind), label);

export const whatLabel = (e: Pick<AuditEventView, 'entityKind' | 'entityLabel'>) => subjectLabel(e.entityKind, e.entityLabel);

export const changeText = (c: AuditChange) => `${c.field} : ${c.before || '—'} → ${c.after || '—'}`;

/** A cell a spreadsheet must not run: = + - @ (and tab, CR) at its start are neutralised. */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[";\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * UTF-8 with a BOM, semicolons, CRLF: what French Excel opens without a wizard. The e-mail
 * column only for those who may read staff e-mails (`emails`).
 */
export function auditCsv(events: readonly AuditEventView[], options: { emails: boolean }): string {
  const email = (value: string) => (options.emails ? [value] : []);
  const header = [t('audit.date'), t('audit.who'), ...email(t('audit.email')), t('audit.action'), t('audit.what'), t('audit.within'), t('audit.changes')];
  const rows = events.map((e) => [
    formatDateTimeSeconds(e.at),
    actorLabel(e),
    ...email(e.actorEmail ?? ''),
    actionLabel(e.action),
    whatLabel(e),
    subjectLabel(e.parentKind, e.parentLabel),
    e.changes.map(changeText).join(' | '),
  ]);
  return `\uFEFF${[header, ...rows].map((row) => row.map(csvCell).join(';')).join('\r\n')}\r\n`;
}

/** The file's name: what it is about and the day, in characters every system accepts. */
export function auditFileName(subject: string, day: Date = new Date()): string {
  const slug =
    subject
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase()
      .slice(0, 60) || 'activite';
  return `activite-${slug}-${dayOf(day)}.csv`;
}
