import { t } from '#lib/i18n.ts';

// PostgreSQL's error code of a failed query, wherever the driver put it (drizzle wraps the
// driver's error in `cause`; PGlite and pg name the field the same).
export function pgCode(error: unknown): string | undefined {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  return e?.cause?.code ?? e?.code;
}

/**
 * The constraint a failed query met (a unique index's name for 23505), wherever the driver put it:
 * PGlite and pg call it `constraint`, postgres.js `constraint_name`.
 */
export function pgConstraint(error: unknown): string | undefined {
  type Named = { constraint?: string; constraint_name?: string };
  const e = error as (Named & { cause?: Named }) | null;
  return e?.cause?.constraint ?? e?.cause?.constraint_name ?? e?.constraint ?? e?.constraint_name;
}

/**
 * What PostgreSQL refused because of the input (issue 14, item 8), said once for every edge
 * (GraphQL's errors, pages' forms): a data exception (class 22: a NUL, an impossible date, a
 * number out of range, a text too long) or a missing value is the caller's `invalid`; a duplicate or
 * a link gone, a `conflict`. Null for anything else: not the caller's, the server's own failure.
 */
export function databaseRefusal(error: unknown): { kind: 'invalid' | 'conflict'; message: string } | null {
  const code = pgCode(error);
  if (!code) return null;
  if (code === '22021') return { kind: 'invalid', message: t('refusals.nulCharacter') };
  if (code.startsWith('22') || code === '23502' || code === '23514') return { kind: 'invalid', message: t('errors.badValue') };
  if (code === '23505') return { kind: 'conflict', message: t('refusals.exists') };
  if (code === '23503') return { kind: 'conflict', message: t('refusals.linked') };
  return null;
}
