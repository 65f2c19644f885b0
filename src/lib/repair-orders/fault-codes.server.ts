// The "can read fault codes" answer posted from the order's fault code tab or the diagnostic
// page: answering no while codes are recorded first asks (SPEC §4), then discards them.
import type { AstroGlobal } from 'astro';
import { submitAction, postedForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';

/** `back` is the tab's URL (with its query string); a refusal comes back as the message to show. */
export async function postFaultCodeReading(astro: AstroGlobal, order: { orderId: string; faultCodeCount: number }, back: string): Promise<Response | string> {
  const form = await postedForm(astro);
  const canRead = form.get('canRead') === 'true' ? true : form.get('canRead') === 'false' ? false : null;
  // Neither answer ticked: said, rather than a silent reload.
  if (canRead === null) return t('validation.chooseAnswer');
  if (canRead === false && order.faultCodeCount > 0 && form.get('confirm') !== '1') return astro.redirect(`${back}&confirmer-lecture=non`, 303);
  const result = await submitAction(
    astro,
    async () => {
      await astro.locals.services.faultCodes.setFaultCodeReading(order.orderId, canRead);
      return redirectWithToast(astro, t('faultCodes.flagSaved'), back);
    },
    { fallback: t('errors.repairOrderUpdate'), fields: [] },
  );
  return result instanceof Response ? result : result.formError!;
}
