import { pageBeyond } from './page-query.ts';

// A page's reads get the time GraphQL gives an operation (issue 17, decision 061): on a busy
// server the tablet is told to wait a moment (503, the middleware's page) instead of hanging.

// Thrown by the pages' copy of this module, and by the services' (the report PDF's queue, decision
// 080), which Astro's build does not share: the brand, in the global symbol registry, makes
// `instanceof` true across both (as DomainError's).
const BRAND = Symbol.for('atelier-bva.page-out-of-time');

/** A page's reads ran out of their time budget, or its PDF would wait past it: the busy page (503). */
export class PageOutOfTime extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
  readonly [BRAND] = true;
}

/** `work`, or PageOutOfTime once the budget of `services.config.timeBudgetMs` is spent. */
export function withinBudget<T>(locals: App.Locals, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PageOutOfTime('page reads out of time')), locals.services.config.timeBudgetMs);
  });
  // What ends after the deadline is dropped, its failure too: nobody waits for it any more.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The page of a list to show: the asked one, or the last when a bookmark asks past the end (the
 * list shrank since), read again only then; `ignoredPage` says so above the list (decision 065).
 */
export async function lastPageIfBeyond<T>(
  locals: App.Locals,
  list: { asked: number; size: number; total: number; rows: T[]; rowsOf: (page: number) => Promise<T[]> },
) {
  const pages = Math.max(1, Math.ceil(list.total / list.size));
  const page = Math.min(list.asked, pages);
  const rows = list.total && page < list.asked ? await withinBudget(locals, list.rowsOf(page)) : list.rows;
  // An empty list says it has nothing for this search: a page number has no meaning there (walk15 F12).
  return { page, pages, rows, ignoredPage: list.total ? pageBeyond(list.asked, pages) : [] };
}
