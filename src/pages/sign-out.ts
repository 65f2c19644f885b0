// The profile menu's sign-out form: ends this sign-in (or, with `all`, every sign-in of the
// user, on every device), then back to /sign-in (which goes on to `?redirectTo=` when given).
import type { APIRoute } from 'astro';
import { z } from 'zod';
import { readForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { clearSession, readSession, setFlash } from '#lib/auth/session.server.ts';
import { safeRedirect } from '#lib/redirects.ts';

/** The sign-out form: `all=1` ends every sign-in of the user; anything else, this one. */
const schema = z.object({ all: z.literal('1').optional().catch(undefined) });

export const POST: APIRoute = async ({ cookies, locals, redirect, request, url }) => {
  const form = await readForm({ request }, { fields: ['all'], schema });
  const all = form.data?.all === '1' && !!locals.user;
  const session = await readSession(cookies, locals.services);
  if (session) await locals.services.auth.signOut({ sessionId: session.sessionId, all, userId: session.userId }).catch(() => undefined);
  clearSession(cookies, locals.services);
  setFlash(cookies, { type: 'success', message: all ? t('success.signedOutEverywhere') : t('success.signedOut'), signedOut: true });
  // «Se reconnecter» of a form that asks a new sign-in (decision 048) comes back to it.
  const back = safeRedirect(url.searchParams.get('redirectTo'), locals.services.config.publicUrl)?.path;
  return redirect(back ? `/sign-in?redirectTo=${encodeURIComponent(back)}` : '/sign-in', 303);
};

// Signing out is a state change: a plain link or a prefetch must not do it.
export const GET: APIRoute = ({ redirect, locals }) => redirect(locals.user ? '/repair-orders' : '/sign-in', 302);
