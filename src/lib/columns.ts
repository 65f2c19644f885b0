// Priority columns of the lists (issue 28, decision 040). A list's box is a CSS container; a
// lower-priority column gives way when the box is narrower than its tier, and what it showed
// comes back as a second line of a key cell (and its header as a second line of the key header),
// so a tablet sees every key column without scrolling sideways and loses nothing.
// Tailwind reads these class names from this file; keep them literal.

/**
 * `tablet`: under a 64rem (1,024 px) box, a tablet held either way (990 px at 1024×768);
 * `portrait`: under a 56rem (896 px) box, an upright tablet (734 px at 768×1024).
 */
export type Fold = 'tablet' | 'portrait';

/** On a column's header and cells: hidden under its tier. */
export const foldedColumn: Record<Fold, string> = { tablet: '@max-5xl:hidden', portrait: '@max-4xl:hidden' };

/** On the line that carries a folded column's content into a key cell: shown under its tier only. */
export const foldedLine: Record<Fold, string> = { tablet: 'hidden @max-5xl:block', portrait: 'hidden @max-4xl:block' };

/** The same, for a part of a line (`Automatique · ZF`). */
export const foldedPart: Record<Fold, string> = { tablet: 'hidden @max-5xl:inline', portrait: 'hidden @max-4xl:inline' };

/** A list's box: the container the tiers measure, scrolling only as a last resort. */
export const listBox = '@container relative overflow-x-auto rounded-[8px] border border-line bg-surface';

/** A list's table: on an upright tablet its cells keep 8 px a side instead of 16, which gives a
 * six-column list about 100 px back. */
export const listTable = 'w-full text-left text-sm @max-4xl:[&_td]:px-2 @max-4xl:[&_th]:px-2';

/** A status or condition chip in a list: one line, however narrow its column. */
export const badge = 'inline-block rounded-full px-2 py-0.5 text-xs font-semibold whitespace-nowrap';
