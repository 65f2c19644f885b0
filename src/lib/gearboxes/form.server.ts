// The gearbox model form of a page: its fields, the API input of what was checked, and a saved
// model's values.
import type { GearboxModel, GearboxModelInput } from './gearboxes.ts';

export const GEARBOX_FIELDS = [
  'model',
  'type',
  'constructorName',
  'businessName',
  'bvaId',
  'doctorCode',
  'startYear',
  'endYear',
  'gears',
  'arrangement',
  'propulsion',
  'optionalPropulsion',
  'parentId',
] as const;

/** The API input of a checked form (absent optional numbers as null). */
export function gearboxObject(input: GearboxModelInput) {
  return { ...input, endYear: input.endYear ?? null, gears: input.gears ?? null, parentId: input.parentId ?? null };
}

export function valuesOf(model: GearboxModel): Record<string, string> {
  return Object.fromEntries(GEARBOX_FIELDS.map((name) => [name, model[name] === null || model[name] === undefined ? '' : String(model[name])]));
}
