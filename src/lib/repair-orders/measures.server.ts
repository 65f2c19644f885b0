// The forms of the diagnostic's "measures and checks" tab: were measures taken (answering no
// asks first when measures would be lost), add one measure, add the dossier's measures.
import type { AstroGlobal } from 'astro';
import { diagnosticHref, type DiagnosticOrder, type DiagnosticPageQuery, type TabActionResult, type TabFailure } from './diagnostic-page.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { singular } from '#lib/plural.ts';
import { orderMeasureSchema } from './measures.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { fieldErrors } from '#lib/validation.ts';
import { graphql } from '#lib/graphql.ts';

export const MEASURE_ACTIONS = ['mesures-prises', 'mesure-ajout', 'mesures-dossier'] as const;
type MeasureAction = (typeof MEASURE_ACTIONS)[number];

const same = (a: string, b: string) => a.trim().toLocaleLowerCase('fr') === b.trim().toLocaleLowerCase('fr');

export async function postMeasuresAction(astro: AstroGlobal, order: DiagnosticOrder, query: Pick<DiagnosticPageQuery, 'action'>): Promise<TabActionResult> {
  const action = query.action as MeasureAction;
  const api = serverGraphQL(astro.locals);
  const tabHref = diagnosticHref(order.id, 'mesures');
  if (!action || !MEASURE_ACTIONS.includes(action)) return { status: 400, formError: t('errors.generic') };
  // A post without a body (a bare button) reads as an empty form, not a 500.
  const form = await astro.request.formData().catch(() => new FormData());
  let values: Record<string, string> = {};
  try {
    if (action === 'mesures-prises') {
      values = { done: String(form.get('done') ?? '') };
      const done = values.done === 'true' ? true : values.done === 'false' ? false : null;
      if (done === null) return { status: 400, form: action, values, errors: { done: t('validation.required') } };
      if (!done && form.get('confirm') !== '1') {
        const { repairOrder } = await api.request(graphql(`query($id: uuid!) { repairOrder(id: $id) { measures { id } } }`), { id: order.id });
        // What would be lost is said first (SPEC §4).
        if (repairOrder?.measures.length) return astro.redirect(diagnosticHref(order.id, 'mesures', '&confirmer-mesures=non'), 303);
      }
      await api.request(graphql(`mutation($o: uuid!, $d: Boolean!) { setMeasuresDone(repairOrderId: $o, done: $d) { discarded } }`), { o: order.id, d: done });
      return redirectWithToast(astro, t('orderMeasures.flagSaved'), tabHref);
    }
    if (action === 'mesure-ajout') {
      values = { name: String(form.get('name') ?? '').slice(0, 200), measuredValue: String(form.get('measuredValue') ?? '').slice(0, 40) };
      // A name of the dossier brings its description, unit and bounds, and the link to it.
      const { gearboxModel } = await api.request(
        graphql(`query($id: uuid!) { gearboxModel(id: $id) { measures { id name description unit minimum maximum } } }`),
        { id: order.model.id },
      );
      const known = gearboxModel?.measures.find((m) => same(m.name, values.name!));
      const parsed = orderMeasureSchema.safeParse(
        known
          ? {
              gearboxMeasureId: known.id,
              name: known.name,
              description: known.description,
              unit: known.unit,
              minimum: known.minimum ?? undefined,
              maximum: known.maximum ?? undefined,
              measuredValue: values.measuredValue,
            }
          : { name: values.name, measuredValue: values.measuredValue },
      );
      if (!parsed.success) return { status: 400, form: action, values, errors: fieldErrors(parsed.error) };
      const object = {
        ...parsed.data,
        minimum: parsed.data.minimum ?? null,
        maximum: parsed.data.maximum ?? null,
        measuredValue: parsed.data.measuredValue ?? null,
        checkResult: null,
      };
      await api.request(graphql(`mutation($o: uuid!, $m: order_measures_input!) { insertOrderMeasure(repairOrderId: $o, object: $m) }`), {
        o: order.id,
        m: object,
      });
      return redirectWithToast(astro, t('orderMeasures.added'), tabHref);
    }
    const { insertDossierMeasures: count } = await api.request(graphql(`mutation($o: uuid!) { insertDossierMeasures(repairOrderId: $o) }`), { o: order.id });
    return redirectWithToast(
      astro,
      count
        ? singular(count)
          ? t('orderMeasures.dossierAddedOne', { count })
          : t('orderMeasures.dossierAdded', { count })
        : t('orderMeasures.dossierNothing'),
      tabHref,
    );
  } catch (error) {
    const { errors, formError } = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), rename: { gearboxMeasureId: 'name' } });
    const failure: TabFailure = { status: 400, form: action, values };
    if (formError) failure.formError = formError;
    else failure.errors = errors;
    return failure;
  }
}
