// The repair order form of the order's screens (the new order, the order's general data and
// history): what was typed is kept on failure, the service's refusals land next to their fields.
import { hasReason } from '#lib/errors.ts';
import { formFailureOf, postedForm } from '#lib/forms.server.ts';
import { checkOrderForm, ORDER_FIELDS, readOrderForm } from '#lib/repair-orders/repair-orders.ts';

export type OrderDraft = {
  values: Record<string, string>;
  history: { mileage: string; intervention: string }[];
  errors: Record<string, string>;
  /** The saved order's form: the version of its part it was filled over (a colleague's save meanwhile refuses it). */
  version?: string;
};

import type { OrderPart } from '#server/repair-orders/service.ts';

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
  const data = await postedForm({ request });
  const form = readOrderForm(data);
  const version = String(data.get('version') ?? '').slice(0, 64);
  const posted = base
    ? base.part === 'history'
      ? { values: base.order.values, history: form.history, version }
      : { values: form.values, history: base.order.history, version }
    : form;
  const checked = checkOrderForm(posted);
  if (!checked.input) return { draft: { ...posted, errors: checked.errors }, formError: null };
  try {
    const { repairOrders } = locals.services;
    return {
      orderId: orderId ? await repairOrders.update(orderId, checked.input, base && { part: base.part, version }) : await repairOrders.insert(checked.input),
    };
  } catch (error) {
    const failure = formFailureOf(error, { fallback });
    // Saved meanwhile by a colleague: what was typed stays, over the version now saved, so that
    // saving again, once checked, applies it.
    const over = hasReason(failure, 'stale') ? base?.order.version : base && version;
    return { draft: { ...posted, errors: failure.errors as Record<string, string>, version: over }, formError: failure.formError };
  }
}

/** The form's values of a saved order, and the version of the part its form saves. */
export function orderValues(order: SavedOrder, part: OrderPart): OrderDraft {
  const values = Object.fromEntries(
    ORDER_FIELDS.map((name) => {
      if (name === 'gearboxModelId') return [name, order.model.id];
      if (name === 'referentId') return [name, order.referent?.id ?? ''];
      if (name === 'interventions' || name === 'outageParts') return [name, order[name].join('\n')];
      const value = order[name as keyof typeof order];
      return [name, value === null || value === undefined ? '' : String(value)];
    }),
  );
  return {
    values,
    history: order.history.map((h) => ({ mileage: String(h.mileage), intervention: h.intervention })),
    errors: {},
    version: order.versions[part],
  };
}
