// The confirmation of a link's landing (decision 052): a `refreshToken` this browser did not
// ask for opens its session only through this same-origin form (the middleware's sameOrigin
// refuses a post from elsewhere), then lands where the link pointed, with the link's toast.
// Declined (`decline=1`, the form's other button), the link is ended: its address, left in the
// browser's history, opens nothing afterwards.
import type { APIRoute } from 'astro';
import { z } from 'zod';
import { readForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { clearSession, cookieOf, refreshOnce, setFlash, writeSession } from '#lib/auth/session.server.ts';
import { linkLandings } from '#lib/auth/link-landings.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { HOME, SIGN_IN } from '#lib/routes.ts';

// A field the form does not send reads as empty: the target is then HOME, the type none.
const schema = z.object({
  refreshToken: z.string().min(1).max(512),
  to: z
    .string()
    .max(2048)
    .transform((to) => to || HOME),
  type: z.string().max(40),
  decline: z.literal(['1', '']).transform((decline) => decline === '1'),
});

export const POST: APIRoute = async ({ cookies, locals, redirect, request }) => {
  // Read whole (a target over 2,048 characters is refused, never cut into another page).
  const input = await readForm({ request }, { fields: ['refreshToken', 'to', 'type', 'decline'], schema, max: 4096 });
  const expired = () => {
    setFlash(cookies, { type: 'error', message: t('errors.linkExpired') });
    return redirect(SIGN_IN, 303);
  };
  if (input.errors) return expired();
  if (input.data.decline) {
    await locals.services.auth.declineRefreshToken(input.data.refreshToken);
    setFlash(cookies, { type: 'success', message: t('success.linkDeclined') });
    return redirect(SIGN_IN, 303);
  }
  try {
    const session = await refreshOnce(locals.services, input.data.refreshToken, locals.clientAddress);
    await writeSession(cookies, locals.services, cookieOf(session));
  } catch {
    clearSession(cookies, locals.services);
    return expired();
  }
  const message = Object.hasOwn(linkLandings, input.data.type) ? linkLandings[input.data.type] : null;
  if (message) setFlash(cookies, { type: 'success', message });
  return redirect(safeRedirect(input.data.to, locals.services.config.publicUrl)?.path ?? HOME, 303);
};

// Opening a session is a state change: a plain link or a prefetch must not do it.
export const GET: APIRoute = ({ redirect }) => redirect(SIGN_IN, 302);
