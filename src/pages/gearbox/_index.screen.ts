// The screen module of the new gearbox model form (`/gearbox`, SPEC §2.8, decision 065): what it
// reads (the models a new one may derive from) and its post, the model itself. The page has no
// query of its own.
import type { AstroGlobal } from 'astro';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { submitForm } from '#lib/forms.server.ts';
import { GEARBOX_FIELDS } from '#lib/gearboxes/form.server.ts';
import { gearboxModelSchema } from '#lib/gearboxes/gearboxes.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';

/** The creation: a redirect to the new dossier with its toast, or the form to show again (its status set). */
export function post(astro: AstroGlobal) {
  return submitForm(astro, { fields: GEARBOX_FIELDS, schema: gearboxModelSchema, max: 200, fallback: t('errors.gearboxCreate') }, async (input) => {
    const model = await astro.locals.services.gearboxModels.insert(input);
    return redirectWithToast(astro, t('gearboxes.created'), `/gearbox/${model.id}`);
  });
}

/** The models a new one may name as its parent (SPEC §3). */
export async function load(locals: App.Locals) {
  const models = await withinBudget(locals, locals.services.gearboxModels.catalogue());
  return { models };
}
