// Reading the gearbox model form of a page: what was typed (kept on failure) and what it means.
import { gearboxModelSchema, type GearboxModel, type GearboxModelInput } from './gearboxes.ts';
import { fieldErrors, type FieldErrors } from './validation.ts';

export const GEARBOX_FIELDS = ['model', 'type', 'constructorName', 'businessName', 'bvaId', 'doctorCode', 'startYear', 'endYear', 'gears', 'arrangement', 'propulsion', 'optionalPropulsion', 'parentId'] as const;

export const GEARBOX_SELECTION = `id ${GEARBOX_FIELDS.join(' ')}`;

export async function readGearboxForm(request: Request): Promise<{ values: Record<string, string>; input?: GearboxModelInput; errors: FieldErrors }> {
  const form = await request.formData().catch(() => new FormData());
  const values = Object.fromEntries(GEARBOX_FIELDS.map((name) => [name, String(form.get(name) ?? '').slice(0, 200)]));
  const parsed = gearboxModelSchema.safeParse(values);
  return parsed.success ? { values, input: parsed.data, errors: {} } : { values, errors: fieldErrors(parsed.error) };
}

/** The API input of a checked form (absent optional numbers as null). */
export function gearboxObject(input: GearboxModelInput) {
  return { ...input, endYear: input.endYear ?? null, gears: input.gears ?? null, parentId: input.parentId ?? null };
}

export function valuesOf(model: GearboxModel): Record<string, string> {
  return Object.fromEntries(GEARBOX_FIELDS.map((name) => [name, model[name] === null || model[name] === undefined ? '' : String(model[name])]));
}
