// Reading and saving the repair order form of a page: what was typed is kept on failure, the
// API's refusals land next to their fields.
import type { ServerGraphQL } from '#lib/graphql.server.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { checkOrderForm, ORDER_FIELDS, readOrderForm, type RepairOrderInput } from './repair-orders.ts';
import { graphql, type ResultOf } from '#lib/graphql.ts';
import type { OrderFields } from './repair-orders.ts';

export type OrderDraft = { values: Record<string, string>; history: { mileage: string; intervention: string }[]; errors: Record<string, string> };

/** The API input of a checked form (absent optional values as null). */
const objectOf = (input: RepairOrderInput) => ({
  ...input,
  referentId: input.referentId ?? null,
  energy: input.energy ?? null,
  engineSize: input.engineSize ?? null,
  mileage: input.mileage ?? null,
  constructionYear: input.constructionYear ?? null,
});

/**
 * Saves the posted form (insert without `id`); answers the order's id, or the draft to show
 * again with the message above the form. `base`: the saved order's values, for a form that
 * posts only part of them; `fallback`: what a refusal the user cannot fix says.
 */
export async function saveOrderForm(
  api: ServerGraphQL,
  request: Request,
  { id, base, fallback }: { id?: string; base?: { part: 'general' | 'history'; order: OrderDraft }; fallback: string },
): Promise<{ id: string } | { draft: OrderDraft; formError: string | null }> {
  const form = readOrderForm(await request.formData());
  const posted = base
    ? base.part === 'history'
      ? { values: base.order.values, history: form.history }
      : { values: form.values, history: base.order.history }
    : form;
  const checked = checkOrderForm(posted);
  if (!checked.input) return { draft: { ...posted, errors: checked.errors }, formError: null };
  try {
    if (id) {
      await api.request(graphql(`mutation($id: uuid!, $o: repair_orders_input!) { updateRepairOrder(id: $id, object: $o) }`), {
        id,
        o: objectOf(checked.input),
      });
      return { id };
    }
    const { insertRepairOrder } = await api.request(graphql(`mutation($o: repair_orders_input!) { insertRepairOrder(object: $o) }`), {
      o: objectOf(checked.input),
    });
    return { id: insertRepairOrder };
  } catch (error) {
    const { errors, formError } = formFailureOf(error, { fallback });
    return { draft: { ...posted, errors: errors as Record<string, string> }, formError };
  }
}

/** The form's values of a saved order. */
export function orderValues(order: ResultOf<typeof OrderFields>): OrderDraft {
  const values = Object.fromEntries(
    ORDER_FIELDS.map((name) => {
      if (name === 'gearboxModelId') return [name, order.model.id];
      if (name === 'referentId') return [name, order.referent?.id ?? ''];
      if (name === 'interventions' || name === 'outageParts') return [name, order[name].join('\n')];
      const value = order[name as keyof typeof order];
      return [name, value === null || value === undefined ? '' : String(value)];
    }),
  );
  return { values, history: order.history.map((h) => ({ mileage: String(h.mileage), intervention: h.intervention })), errors: {} };
}
