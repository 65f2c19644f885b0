// The gearbox model form of a page (the new model's and the dossier's): its fields and a saved
// model's values.
import type { GearboxModel } from './gearboxes.ts';

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

export function valuesOf(model: GearboxModel): Record<string, string> {
  return Object.fromEntries(GEARBOX_FIELDS.map((name) => [name, model[name] === null || model[name] === undefined ? '' : String(model[name])]));
}
