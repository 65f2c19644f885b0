// The screen module of the workshop at a glance (`/overview`, issue 32, decision 089): the period
// its URL asks (`?du=&au=`, 12 weeks to today by default) and the figures, each read once.
import { z } from 'zod';
import { workshopToday } from '#lib/format.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { day, readQuery } from '#lib/page-query.ts';
import { overviewPeriod } from '#lib/repair-orders/overview.ts';

/** `/overview?du=&au=`: a day that does not exist is ignored (and said so), the default taken. */
export const querySchema = z.object({ du: day(), au: day() });

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** The outages' ranking: the models with the largest history, a few outages each. */
const RANKED_MODELS = 8;
const OUTAGES_PER_MODEL = 3;

export async function load(locals: App.Locals, query: ReturnType<typeof read>) {
  const { overview, gearboxModels, stock } = locals.services;
  const today = workshopToday();
  const { ignored, capped, ...period } = overviewPeriod(query.du, query.au, today);
  const [orders, outages, stockCounts, racks] = await withinBudget(
    locals,
    Promise.all([
      // A period given backwards counts nothing; the page says why (reversedRange).
      overview.orderFigures(period, today),
      gearboxModels.mostFrequentOutages({ models: RANKED_MODELS, perModel: OUTAGES_PER_MODEL }),
      stock.counts({}),
      stock.rackCounts(),
    ]),
  );
  const stockByModel = [...Map.groupBy(stockCounts, (c) => c.modelId).values()]
    .map((rows) => ({ modelId: rows[0]!.modelId, model: rows[0]!.model, n: rows.reduce((sum, r) => sum + r.n, 0) }))
    .sort((a, b) => b.n - a.n || a.model.localeCompare(b.model));
  return { today, period, ignored, capped, orders, outages, stockByModel, racks };
}
