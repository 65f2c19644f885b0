// The appearance conditions of a fault code read or a symptom, as the services write and read
// them (decision 043): the operating phase and the other condition are conditions of the base,
// found by name (in any case) and kept by id, so that a condition in use cannot be deleted and
// a name the base does not hold is refused, as a symptom's or a component's is.
import { and, eq, sql } from 'drizzle-orm';
import { acceleratorLoads, bvaModes, type ConditionsInput, conditionValues, gears, listValueOf } from '#lib/repair-orders/conditions.ts';
import { t } from '#lib/i18n.ts';
import type { Db } from '#server/db/client.ts';
import { baseItems } from '#server/db/schema/index.ts';
import { invalid } from '#server/errors.ts';

type Executor = Pick<Db, 'select'>;
const NOT_IN_BASE = t('errors.itemUnknown');

/** The base's condition of that name: null for none given, undefined when the base has none of that name. */
async function baseConditionOf(tx: Executor, name: string) {
  if (!name) return null;
  const [item] = await tx
    .select({ id: baseItems.id, name: baseItems.name })
    .from(baseItems)
    .where(and(eq(baseItems.kind, 'condition'), sql`lower(${baseItems.name}) = lower(${name})`));
  return item;
}

/**
 * The columns to write for `input` and the conditions as named (for the audit trail). Every
 * value is checked (the closed lists' and the base's conditions) and every refusal reported at
 * once, each on its field, with the caller's own (`misses`: a symptom, an error code), so that a
 * save with several made-up values is refused once, not once per value (decision 045).
 */
export async function resolveConditions(tx: Executor, input: ConditionsInput, misses: Record<string, string> = {}) {
  const action = await baseConditionOf(tx, input.action);
  const other = await baseConditionOf(tx, input.otherCondition);
  const listed = {
    acceleratorLoad: listValueOf(acceleratorLoads, input.acceleratorLoad),
    bvaMode: listValueOf(bvaModes, input.bvaMode),
    gear: listValueOf(gears, input.gear),
  };
  const refused: Record<string, string> = { ...misses };
  for (const [field, value] of Object.entries(listed)) if (value === undefined) refused[`object.${field}`] = NOT_IN_BASE;
  if (action === undefined) refused['object.action'] = NOT_IN_BASE;
  if (other === undefined) refused['object.otherCondition'] = NOT_IN_BASE;
  if (Object.keys(refused).length) throw invalid(refused);
  const values = { ...input, acceleratorLoad: listed.acceleratorLoad!, bvaMode: listed.bvaMode!, gear: listed.gear! };
  return {
    columns: conditionValues(values, { actionId: action?.id ?? null, otherConditionId: other?.id ?? null }),
    named: { ...namedOf(values), action: action?.name ?? '', otherCondition: other?.name ?? '' },
  };
}

const namedOf = (input: ConditionsInput) => ({
  temporality: input.temporality ?? null,
  acceleratorLoad: input.acceleratorLoad,
  bvaMode: input.bvaMode,
  gear: input.gear,
  comment: input.comment,
});

/** The conditions of a saved row, named as the base names them now (the audit trail's "before"). */
export async function namedConditions(
  tx: Executor,
  row: {
    temporality: string | null;
    acceleratorLoad: string;
    bvaMode: string;
    gear: string;
    actionId: string | null;
    otherConditionId: string | null;
    comment: string;
  },
) {
  const nameOf = async (id: string | null) =>
    id ? ((await tx.select({ name: baseItems.name }).from(baseItems).where(eq(baseItems.id, id)))[0]?.name ?? '') : '';
  return {
    temporality: row.temporality,
    acceleratorLoad: row.acceleratorLoad,
    bvaMode: row.bvaMode,
    gear: row.gear,
    action: await nameOf(row.actionId),
    otherCondition: await nameOf(row.otherConditionId),
    comment: row.comment,
  };
}
