// The screen module of the message queue (`/users/messages`, decision 049, decision 065, admins by
// the route table): what it reads (the mail and SMS not sent yet) and its one post, «Renvoyer»,
// which sends one at once. No link, code or text leaves the queue: only who it is for and what.
import type { AstroGlobal } from 'astro';
import { redirectWithToast, setFlash } from '#lib/auth/session.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';

const SELF = '/users/messages';

/** «Renvoyer»: back to the queue with a toast, or with the reason it could not be sent again. */
export async function post(astro: AstroGlobal): Promise<Response> {
  const form = await astro.request.formData().catch(() => new FormData());
  const id = String(form.get('id') ?? '');
  const outcome = await astro.locals.services.auth.mailer.retry(id);
  if (outcome === 'retried') return redirectWithToast(astro, t('messageQueue.retried'), SELF);
  // A worker sent it between the page and the click: it has left, nothing to do.
  if (outcome === 'sent') return redirectWithToast(astro, t('messageQueue.justSent'), SELF);
  setFlash(astro.cookies, { type: 'error', message: outcome === 'sending' ? t('messageQueue.sendingNow') : t('messageQueue.cannotRetry') });
  return astro.redirect(SELF, 303);
}

/** The messages waiting, failed or leaving now, as the mailer keeps them. */
export async function load(locals: App.Locals) {
  return { messages: await withinBudget(locals, locals.services.auth.mailer.pending()) };
}
