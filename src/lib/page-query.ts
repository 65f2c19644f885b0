// One schema per page for its URL query (issue 14): each field falls back to its default when
// the value is missing or invalid, so a hand-edited or hostile URL shows the page, never a 500.
import { z } from 'zod';
import { workshopToday } from './format.ts';
import { t } from './i18n.ts';
import { isUuid } from './ids.ts';

/** Reads `params` (first value of each name) with `schema`; never throws. */
export function readQuery<S extends z.ZodType>(schema: S, params: URLSearchParams): z.output<S> {
  return schema.parse(firstValues(params));
}

const firstValues = (params: URLSearchParams) => Object.fromEntries([...new Set(params.keys())].map((name) => [name, params.get(name)]));

/** A text of at most `max` characters ('' when absent). */
export const text = (max: number) =>
  z
    .string()
    .transform((v) => v.slice(0, max))
    .catch('');

/** One of `values`, else null. */
export const choice = <T extends string>(values: readonly T[]) =>
  z
    .enum(values as [T, ...T[]])
    .nullable()
    .catch(null);

/** A page number between 1 and 99,999, else 1. */
export const page = () => z.coerce.number().int().min(1).max(99_999).catch(1);

/** A record id, lower-cased; fails on anything else (for a union). */
export const uuid = () =>
  z
    .string()
    .refine(isUuid)
    .transform((v) => v.toLowerCase());

/** A record id (lower-cased), else null. */
export const recordId = () => uuid().nullable().catch(null);

/** Day, month, year parted by one separator a keypad has: "5/3/2026", "05.03.26", "5-3-2026", "05 03 2026". */
const PARTED_DAY = /^(\d{1,2})([/.\- ])(\d{1,2})\2(\d{2}|\d{4})$/;

/**
 * A 2-digit year in the workshop's century window: from 80 years before this year to 19 after
 * ("26" → 2026, "45" → 2045, "99" → 1999), as most software reads one.
 */
function fullYear(year: string, today: string): string {
  if (year.length === 4) return year;
  const now = Number(today.slice(0, 4));
  const low = now - 80;
  const full = low - (low % 100) + Number(year);
  return String(full < low ? full + 100 : full);
}

/** The readings of a day typed with digits only: "26112026", "261126"; "5112026" = 5/11/2026. */
function packedReadings(digits: string): [string, string, string][] {
  switch (digits.length) {
    case 8:
      return [[digits.slice(0, 2), digits.slice(2, 4), digits.slice(4)]];
    case 7:
      return [
        [digits.slice(0, 1), digits.slice(1, 3), digits.slice(3)],
        [digits.slice(0, 2), digits.slice(2, 3), digits.slice(3)],
      ];
    case 6:
      return [[digits.slice(0, 2), digits.slice(2, 4), digits.slice(4)]];
    default:
      return [];
  }
}

/**
 * The one reader of a typed day (every date field, every date filter): day first, as the French
 * write it, with what a phone's or a tablet's number pad can type — "26/11/2026", "26.11.2026",
 * "26-11-2026", "26112026", "26/11/26", "261126" — or ISO "2026-11-26" (the API, the URL) → the
 * ISO day. A 2-digit year reads in the workshop's century window (`today`: the workshop's day);
 * digits that read as two real days ("1112026": 1/11 or 11/1) read as none. Anything it cannot
 * read comes back trimmed, as it is, for the schema to refuse.
 */
export function isoDay(text: string, today: string = workshopToday()): string {
  const typed = text.trim();
  const parted = PARTED_DAY.exec(typed);
  const readings: [string, string, string][] = parted ? [[parted[1]!, parted[3]!, parted[4]!]] : /^\d+$/.test(typed) ? packedReadings(typed) : [];
  const days = [...new Set(readings.map(([d, m, y]) => `${fullYear(y, today)}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`).filter(isRealDay))];
  return days.length === 1 ? days[0]! : typed;
}

/** YYYY-MM-DD naming a day that exists: 2026-02-31 and 2026-13-45 do not (never throws). */
export const isRealDay = (v: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/** A day a list or a period may name: one that exists, between 1900 and 2999 (a service checks it too). */
export const isListDay = (v: string) => isRealDay(v) && v >= '1900' && v < '3000';

/** A day that exists, between 1900 and 2999, else null; typed either way. */
export const day = () =>
  z
    .string()
    .transform((v) => isoDay(v))
    .refine(isListDay)
    .nullable()
    .catch(null);

/** An integer between `min` and `max`, else null. */
export const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max).nullable().catch(null);

/** One of `values`, else `fallback` (a tab, a view). */
export const option = <T extends string>(values: readonly T[], fallback: NoInfer<T>) => z.enum(values as [T, ...T[]]).catch(fallback);

/** Whether the name is in the query at all (`?supprimer`). */
export const flag = () =>
  z
    .string()
    .optional()
    .transform((v) => v !== undefined)
    .catch(false);

/** A rest path parameter: undefined when absent (a creation form), the id, or null when it is no id. */
export const optionalRecordId = () => uuid().optional().nullable().catch(null);

/** A typed entry, trimmed to `max` characters; undefined when absent (a search not yet made). */
export const entry = (max: number) =>
  z
    .string()
    .transform((v) => v.trim().slice(0, max))
    .optional()
    .catch('');

/**
 * `?lignes=` of a procedure form's "more rows" button: whether it was pressed (the post is shown
 * again, not saved) and how many empty checkpoint rows to show (3 unless a valid count is given).
 */
export const moreRows = (max: number) =>
  integer(1, max)
    .optional()
    .transform((n) => ({ moreRows: n !== undefined, extraRows: n ?? 3 }));

/** What every record page reads: the action a form posts, a deletion to confirm, the file whose deletion to confirm. */
export const recordPageFields = { action: text(40), supprimer: flag(), 'confirmer-fichier': recordId() };

/** The same, named as the page's code uses them. */
export const recordPageValues = (q: { action: string; supprimer: boolean; 'confirmer-fichier': string | null }) => ({
  action: q.action,
  confirmDelete: q.supprimer,
  confirmFile: q['confirmer-fichier'],
});

/** Reads a page's path parameters and URL query with its one schema; never throws. */
export function readPage<S extends z.ZodType>(schema: S, astro: { params: Record<string, string | undefined>; url: URL }): z.output<S> {
  return schema.parse({ ...firstValues(astro.url.searchParams), ...astro.params });
}

/** The list filters a URL may carry, by query name, as the notice names them («la date»). */
const FILTER_NAMES: Record<string, () => string> = {
  du: () => t('filters.names.du'),
  au: () => t('filters.names.au'),
  annee: () => t('filters.names.annee'),
  categorie: () => t('filters.names.categorie'),
  type: () => t('filters.names.type'),
  modele: () => t('filters.names.modele'),
  etat: () => t('filters.names.etat'),
  rayon: () => t('filters.names.rayon'),
  tri: () => t('filters.names.tri'),
  ordre: () => t('filters.names.ordre'),
  page: () => t('filters.names.page'),
  onglet: () => t('filters.names.onglet'),
  statut: () => t('filters.names.statut'),
  referent: () => t('filters.names.referent'),
  cloture_du: () => t('filters.names.cloture_du'),
  cloture_au: () => t('filters.names.cloture_au'),
  reouverture_du: () => t('filters.names.reouverture_du'),
  reouverture_au: () => t('filters.names.reouverture_au'),
  panne: () => t('filters.names.panne'),
};

/**
 * The filters of a list URL that `schema` drops (a day that does not exist, a year that is no
 * number, a category it does not know): the list still shows without them, and the page says
 * so above it («Filtre ignoré : la date « 32/13/2026 » n'est pas valide.»). A field counts when
 * its query name is a known filter and its schema falls back (`.catch`) on this value.
 * `filters` names a page's own filters (the activity's `action`), which mean something else elsewhere.
 */
export function ignoredFilters(schema: z.ZodType, params: URLSearchParams, filters: Record<string, () => string> = {}): string[] {
  const shape = shapeOf(schema);
  if (!shape) return [];
  const names = { ...FILTER_NAMES, ...filters };
  return Object.entries(shape).flatMap(([name, field]) => {
    const label = Object.hasOwn(names, name) ? names[name] : undefined;
    const value = params.get(name);
    if (!label || value === null || value.trim() === '' || !(field instanceof z.ZodCatch)) return [];
    return z.safeParse(field.unwrap(), value).success ? [] : [t('filters.ignored', { filter: label(), value: value.slice(0, 60) })];
  });
}

/**
 * What a filter field shows: the value the list applied, or, when the URL's value was ignored
 * (`ignoredFilters` says why), that value as typed, so it is corrected rather than typed again.
 */
export const filterShown = (applied: string | null, params: URLSearchParams, name: string): string => applied ?? (params.get(name) ?? '').slice(0, 60);

/**
 * A page number past a list's last page (a bookmark kept while the list shrank): the list shows its
 * last page, and says that the asked one is gone (not as a filter: a page is not one).
 */
export function pageBeyond(page: number, pages: number): string[] {
  if (page <= pages) return [];
  return [pages === 1 ? t('filters.pageBeyondOne', { page }) : t('filters.pageBeyond', { page, pages })];
}

/**
 * A period a list cannot match, its start after its end: the notice above the list says why it
 * is empty (the days as typed back, DD/MM/YYYY), none otherwise.
 */
export function reversedRange(from: string | null, to: string | null): string[] {
  return from && to && from > to ? [t('filters.reversed', { from: formatDay(from), to: formatDay(to) })] : [];
}

const formatDay = (iso: string) => iso.split('-').reverse().join('/');

/** The fields of an object schema, also when a `.transform` renames them. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPipe) return shapeOf(schema.in as z.ZodType);
  return null;
}
