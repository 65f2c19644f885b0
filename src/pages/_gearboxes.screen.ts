// The screen module of the gearbox dossier list (`/gearboxes`, SPEC §2.8, decision 065): what its
// URL may say and what it reads (one page of models, their count and the models to filter on).
import { z } from 'zod';
import { GEARBOXES_PAGE_SIZE, type GearboxType, gearboxTypes } from '#lib/gearboxes/gearboxes.ts';
import { lastPageIfBeyond, withinBudget } from '#lib/page-budget.ts';
import { choice, integer, page, readQuery, recordId, text } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';

/** `/gearboxes?recherche=&type=&modele=&annee=&page=`, as the list reads it. */
export const querySchema = z
  .object({ recherche: text(120), type: choice(gearboxTypes), modele: recordId(), annee: integer(1950, 2100), page: page() })
  .transform((q) => ({ search: q.recherche, type: q.type as GearboxType | null, modelId: q.modele, year: q.annee, page: q.page }));

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** Everything the list reads from its URL. */
type GearboxesPageQuery = ReturnType<typeof read>;

/** One page of the models the URL's search and filters select, their count and the models to filter on. */
export async function load(locals: App.Locals, query: GearboxesPageQuery) {
  const { gearboxModels } = locals.services;
  const filter = { search: query.search, type: query.type, year: query.year, modelId: query.modelId };
  const pageOf = (page: number) => gearboxModels.page({ ...filter, limit: GEARBOXES_PAGE_SIZE, offset: (page - 1) * GEARBOXES_PAGE_SIZE });
  // The page and its count in one read; the filter's models from the catalogue (decision 076).
  const [{ rows, total }, filterModels] = await withinBudget(locals, Promise.all([pageOf(query.page), gearboxModels.catalogue()]));
  const {
    page,
    pages,
    rows: models,
    ignoredPage,
  } = await lastPageIfBeyond(locals, { asked: query.page, size: GEARBOXES_PAGE_SIZE, total, rows, rowsOf: async (asked) => (await pageOf(asked)).rows });
  return { manage: can(locals.user?.role, 'manageGearboxModels'), models, filterModels, total, page, pages, ignoredPage };
}
