// The screen module of a new repair order (`/repair-order`, SPEC §2.7, decision 065): what its URL
// may say (a dossier's model to start with), what its form picks from (the models, the
// referents) and its one post, the creation.
import type { AstroGlobal } from 'astro';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { workshopToday } from '#lib/format.ts';
import { modelPrefillSchema } from '#lib/gearboxes/gearboxes.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readQuery } from '#lib/page-query.ts';
import { type OrderDraft, saveOrderForm } from '#pages/repair-order/_order-form.ts';

/** `/repair-order?modele=`: a creation opened from a dossier starts with its model. */
export const querySchema = modelPrefillSchema;

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** Everything the new order page reads from its URL. */
type NewOrderQuery = ReturnType<typeof read>;

/** The creation (admins and diagnosticians): a redirect to the new order with its toast, or the form to show again. */
export async function post(astro: AstroGlobal): Promise<Response | { draft: OrderDraft; formError: string | null }> {
  const result = await saveOrderForm(astro.locals, astro.request, { fallback: t('errors.repairOrderCreate') });
  return 'orderId' in result ? redirectWithToast(astro, t('repairOrders.added'), `/repair-order/${result.orderId}`) : result;
}

/** What the form picks from, and its values before anything is typed: today, the viewer as referent, the URL's model. */
export async function load(locals: App.Locals, query: NewOrderQuery) {
  const { gearboxModels, repairOrders } = locals.services;
  const [models, referents] = await withinBudget(locals, Promise.all([gearboxModels.catalogue(), repairOrders.referents()]));
  const draft: OrderDraft = {
    values: { openedOn: workshopToday(), referentId: locals.user?.id ?? '', gearboxModelId: query.modelId },
    history: [],
    errors: {},
  };
  return { models, referents, draft };
}
