// A closed order is a record (decision 043): what it showed when it was closed stays as it was,
// whatever the base or the dossier become. Closing takes the names it shows (base items, the
// dossier's error codes and outages) into `repair_orders.closed_names`; its readers prefer them
// to the live ones; reopening drops them, and the order follows the base and the dossier again.
// Procedures and checkpoints need none of this: they are copied at validation (diagnostic.ts).
import { type AnyColumn, sql } from 'drizzle-orm';
import type { alias } from 'drizzle-orm/pg-core';
import type { Db } from '#server/db/client.ts';
import { type baseItems, type ClosedNames, repairOrders } from '#server/db/schema/index.ts';

type Executor = Pick<Db, 'execute'>;

/**
 * The names order `r` shows now, as `ClosedNames` JSON: its symptoms and conditions, its chosen
 * outages' components and types (base items), its error codes, its outages' descriptions and its
 * gearbox model's name and constructor (decision 045).
 * Migration 0020 holds a copy of it for the orders closed before it.
 */
const NAMES_OF_R = sql.raw(`jsonb_build_object(
  'base', coalesce((select jsonb_object_agg(b.id::text, b.name) from base_items b where b.id in (
    select s.symptom_id from order_symptoms s where s.repair_order_id = r.id
    union select x.id from (
      select action_id as id, repair_order_id from order_symptoms union all select other_condition_id, repair_order_id from order_symptoms
      union all select action_id, repair_order_id from order_fault_codes union all select other_condition_id, repair_order_id from order_fault_codes
    ) x where x.repair_order_id = r.id and x.id is not null
    union select o.component_id from order_outages oo join outages o on o.id = oo.outage_id where oo.repair_order_id = r.id
    union select o.outage_type_id from order_outages oo join outages o on o.id = oo.outage_id where oo.repair_order_id = r.id
  )), '{}'::jsonb),
  'errorCodes', coalesce((select jsonb_object_agg(e.id::text, jsonb_build_object('code', e.code, 'description', e.description)) from error_codes e where e.id in (
    select f.error_code_id from order_fault_codes f where f.repair_order_id = r.id
    union select s.error_code_id from order_symptoms s where s.repair_order_id = r.id and s.error_code_id is not null
  )), '{}'::jsonb),
  'outages', coalesce((select jsonb_object_agg(o.id::text, jsonb_build_object('description', o.description))
    from order_outages oo join outages o on o.id = oo.outage_id where oo.repair_order_id = r.id), '{}'::jsonb),
  'model', (select jsonb_build_object('model', m.model, 'constructorName', m.constructor_name) from gearbox_models m where m.id = r.gearbox_model_id)
)`);

/** Closing: the order keeps the names it shows today. */
export async function keepClosedNames(tx: Executor, orderId: string) {
  await tx.execute(sql`update repair_orders r set closed_names = ${NAMES_OF_R} where r.id = ${orderId}`);
}

/**
 * Every closed order that has not kept its names yet keeps them (the demo's, seeded closed); one
 * closed before the model was kept keeps its model's names of today.
 */
export async function keepAllClosedNames(tx: Executor) {
  await tx.execute(sql`update repair_orders r set closed_names = ${NAMES_OF_R} where r.status = 'CLOSED' and r.closed_names is null`);
  await tx.execute(
    sql.raw(`update repair_orders r set closed_names = r.closed_names || jsonb_build_object('model', jsonb_build_object('model', m.model, 'constructorName', m.constructor_name))
    from gearbox_models m where m.id = r.gearbox_model_id and r.status = 'CLOSED' and not r.closed_names ? 'model'`),
  );
}

/** The gearbox model's name and constructor as the order shows them, the models' table joined to the order. */
export const shownModel = (model: { model: AnyColumn; constructorName: AnyColumn }) => ({
  model: sql<string>`coalesce(${repairOrders.closedNames}->'model'->>'model', ${model.model})`,
  constructorName: sql<string>`coalesce(${repairOrders.closedNames}->'model'->>'constructorName', ${model.constructorName})`,
});

/** A base item's name as the order shows it; `item` is the base's table (or an alias) joined to the order. */
export const shownName = (item: typeof baseItems | ReturnType<typeof alias<typeof baseItems, string>>) =>
  sql<string>`coalesce(${repairOrders.closedNames}->'base'->>(${item.id}::text), ${item.name}, '')`;

/** An error code as the order shows it, the dossier's table joined to the order. */
export const shownCode = (code: { id: AnyColumn; code: AnyColumn; description: AnyColumn }) => ({
  code: sql<string>`coalesce(${repairOrders.closedNames}->'errorCodes'->(${code.id}::text)->>'code', ${code.code})`,
  description: sql<string>`coalesce(${repairOrders.closedNames}->'errorCodes'->(${code.id}::text)->>'description', ${code.description})`,
});

/** A chosen outage as a closed order shows it: its description and its base names as they were. */
export function shownOutage<O extends { id: string; description: string; component: { id: string; name: string }; outageType: { id: string; name: string } }>(
  outage: O,
  names: ClosedNames | null,
): O {
  if (!names) return outage;
  return {
    ...outage,
    description: names.outages[outage.id]?.description ?? outage.description,
    component: { ...outage.component, name: names.base[outage.component.id] ?? outage.component.name },
    outageType: { ...outage.outageType, name: names.base[outage.outageType.id] ?? outage.outageType.name },
  };
}
