// The post of a fault code's or a symptom's page: `?action=supprimer` deletes the record (only
// one that exists), anything else saves the form; a redirect with its toast, or the form again.
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { type FormState, submitAction, submitForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import type { ConditionsInput } from './conditions.ts';

type RecordPage = { existing: { id: string } | null; backHref: string; form: FormState };

export async function postConditionsRecord<S extends z.ZodType<ConditionsInput>, const N extends string>(
  astro: AstroGlobal,
  page: RecordPage,
  action: string | null | undefined,
  record: {
    fields: readonly N[];
    schema: S;
    remove: (id: string) => Promise<unknown>;
    /** Saves the record (`id` null for a new one); the condition fields as the API stores them. */
    save: (id: string | null, object: z.output<S> & { temporality: ConditionsInput['temporality'] | null }) => Promise<unknown>;
    deleted: string;
    saved: string;
  },
): Promise<Response | (FormState & { status: number })> {
  const { existing, backHref } = page;
  const fallback = t('errors.repairOrderUpdate');
  const result =
    action === 'supprimer' && existing
      ? await submitAction(
          astro,
          async () => {
            await record.remove(existing.id);
            return redirectWithToast(astro, record.deleted, backHref);
          },
          { fallback },
        )
      : await submitForm(astro, { fields: record.fields, schema: record.schema, max: 1200, fallback }, async (data) => {
          await record.save(existing?.id ?? null, { ...data, temporality: data.temporality ?? null });
          return redirectWithToast(astro, record.saved, backHref);
        });
  if (result instanceof Response) return result;
  return {
    status: 400,
    values: 'values' in result ? result.values : page.form.values,
    errors: result.errors,
    formError: result.formError ?? page.form.formError,
  };
}
