// The repair order form of the order's screens (the new order, the order's general data and
// history): what was typed is kept on failure, the service's refusals land next to their fields.
import { formFailureOf } from '#lib/forms.server.ts';
import { checkOrderForm, ORDER_FIELDS, readOrderForm } from '#lib/repair-orders/repair-orders.ts';

export type OrderDraft = { values: Record<string, string>; history: { mileage: string; intervention: string }[]; errors: Record<string, string> };

/** A saved order as the service reads it. */
type SavedOrder = NonNullable<Awaited<ReturnType<App.Locals['services']['repairOrders']['get']>>>;

/**
 * Saves the posted form (a new order without `orderId`); answers the order's id, or the draft to
 * show again with the message above the form. `base`: the saved order's values, for a form that
 * posts only part of them; `fallback`: what a refusal the user cannot fix says.
 */
export async function saveOrderForm(
  locals: App.Locals,
  request: Request,
  { orderId, base, fallback }: { orderId?: string; base?: { part: 'general' | 'history'; order: OrderDraft }; fallback: string },
): Promise<{ orderId: string } | { draft: OrderDraft; formError: string | null }> {
  const form = readOrderForm(await request.formData());
  const posted = base
    ? base.part === 'history'
      ? { values: base.order.values, history: form.history }
      : { values: form.values, history: base.order.history }
    : form;
  const checked = checkOrderForm(posted);
  if (!checked.input) return { draft: { ...posted, errors: checked.errors }, formError: null };
  try {
    const { repairOrders } = locals.services;
    return { orderId: orderId ? await repairOrders.update(orderId, checked.input) : await repairOrders.insert(checked.input) };
  } catch (error) {
    const { errors, formError } = formFailureOf(error, { fallback });
    return { draft: { ...posted, errors: errors as Record<string, string> }, formError };
  }
}

/** The form's values of a saved order. */
export function orderValues(order: SavedOrder): OrderDraft {
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
