// Repair procedures of a gearbox model (SPEC §3): ordered steps and checkpoints.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { maxItems, optionalText, required } from '#lib/validation.ts';

export type Checkpoint = { id: string; position: number; name: string; description: string };
export type RepairProcedure = { id: string; name: string; description: string; steps: string[]; checkpoints: Checkpoint[]; outageCount: number };

export const MAX_STEPS = 60;
export const MAX_CHECKPOINTS = 40;

/** Steps typed one per line in a form, or sent as a list by the API. */
const steps = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(/\r?\n/) : v),
  z
    .array(z.string().trim().max(500, t('procedures.stepTooLong')))
    .transform((list) => list.filter(Boolean))
    .refine((list) => list.length > 0, t('validation.required'))
    .refine((list) => list.length <= MAX_STEPS, t('procedures.tooManySteps', { max: MAX_STEPS })),
);

const checkpoint = z.object({
  id: z.uuid().optional(),
  name: required().max(160, t('validation.maxLength', { max: 160 })),
  description: optionalText(1000),
});

/** One schema for the procedure form and the API. */
export const procedureSchema = z.object({
  name: required().max(120, t('validation.maxLength', { max: 120 })),
  description: optionalText(2000),
  steps,
  checkpoints: z.array(checkpoint).min(1, t('procedures.checkpointRequired')).max(MAX_CHECKPOINTS, maxItems(MAX_CHECKPOINTS)),
});
export type ProcedureInput = z.infer<typeof procedureSchema>;

/** The procedures of an outage, first to apply first. */
export const outageProceduresSchema = z.object({
  procedureIds: z
    .array(z.uuid())
    .max(50, maxItems(50))
    .refine((ids) => new Set(ids).size === ids.length, t('procedures.duplicate')),
});

export type ProcedureDraft = { name: string; description: string; steps: string; checkpoints: { id: string; name: string; description: string }[] };

/** What the procedure form posted, rows kept as typed; blank checkpoint rows are dropped. */
export function readProcedureForm(form: FormData): ProcedureDraft {
  const text = (name: string, max: number) => String(form.get(name) ?? '').slice(0, max);
  const ids = form.getAll('checkpointId').map(String);
  const names = form.getAll('checkpointName').map(String);
  const descriptions = form.getAll('checkpointDescription').map(String);
  const checkpoints = names
    .map((name, i) => ({ id: ids[i] ?? '', name: name.slice(0, 400), description: (descriptions[i] ?? '').slice(0, 2000) }))
    .filter((c) => c.name.trim() || c.description.trim())
    .slice(0, MAX_CHECKPOINTS);
  return { name: text('name', 400), description: text('description', 4000), steps: text('steps', 40_000), checkpoints };
}

/** The API input of a draft, with per-row errors keyed `checkpoints.{i}.name`. */
export function checkProcedureDraft(draft: ProcedureDraft): { input?: ProcedureInput; errors: Record<string, string> } {
  const parsed = procedureSchema.safeParse({ ...draft, checkpoints: draft.checkpoints.map(({ id, ...c }) => (id ? { id, ...c } : c)) });
  if (parsed.success) return { input: parsed.data, errors: {} };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) errors[issue.path.join('.')] ??= issue.message;
  return { errors };
}
