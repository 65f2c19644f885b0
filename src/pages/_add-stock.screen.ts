// The screen module of the stock's add page (`/add-stock`, SPEC §2.9, decision 065): what its URL
// may say (a model to start from), what it reads (the models with their codes, the racks in use)
// and its one post, one or several identical boxes put on a rack and level.
import type { AstroGlobal } from 'astro';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { submitForm } from '#lib/forms.server.ts';
import { modelPrefillSchema } from '#lib/gearboxes/gearboxes.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readQuery } from '#lib/page-query.ts';
import { singular } from '#lib/plural.ts';
import { addStockSchema, stockHref } from '#lib/stock/stock.ts';

/** `/add-stock?modele=`: the model the form starts on (the stock's or a dossier's link). */
export const querySchema = modelPrefillSchema;

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** The form's fields, in its order. */
const FIELDS = ['gearboxModelId', 'code', 'condition', 'rack', 'level', 'addedOn', 'quantity', 'comment'] as const;

/** The add form's post: a redirect with its toast, or what was typed and what is wrong. */
export function post(astro: AstroGlobal) {
  return submitForm(astro, { fields: FIELDS, schema: addStockSchema, max: 1000 }, async (object) => {
    const ids = await astro.locals.services.stock.insert(object);
    // One box opens at its page; several show the list where they went.
    return redirectWithToast(
      astro,
      singular(ids.length) ? t('stock.addedOne', { count: ids.length }) : t('stock.added', { count: ids.length }),
      ids.length === 1 ? stockHref({ item: ids[0] }) : stockHref({ modelId: object.gearboxModelId, rack: object.rack }),
    );
  });
}

/** The models, each with its doctor codes and their gearbox codes (the code list), and the racks in use. */
export async function load(locals: App.Locals) {
  const { gearboxModels, stock } = locals.services;
  const [models, racks] = await withinBudget(
    locals,
    Promise.all([
      gearboxModels
        .list({ limit: 100, offset: 0 })
        .then((rows) => Promise.all(rows.map(async (m) => ({ id: m.id, model: m.model, doctorCodes: await gearboxModels.codesOf(m.id) })))),
      stock.racks(),
    ]),
  );
  return { models, racks };
}
