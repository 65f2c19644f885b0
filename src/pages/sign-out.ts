// The profile menu's sign-out form: ends this sign-in, then back to /sign-in.
import type { APIRoute } from 'astro';
import { t } from '../lib/i18n.ts';
import { clearSession, readSession, setFlash } from '../lib/session.server.ts';

export const POST: APIRoute = async ({ cookies, locals, redirect }) => {
  const tokens = await readSession(cookies, locals.services);
  if (tokens) await locals.services.auth.signOut({ refreshToken: tokens.refreshToken }).catch(() => undefined);
  clearSession(cookies, locals.services);
  setFlash(cookies, { type: 'success', message: t('success.signedOut') });
  return redirect('/sign-in', 303);
};

// Signing out is a state change: a plain link or a prefetch must not do it.
export const GET: APIRoute = ({ redirect, locals }) => redirect(locals.user ? '/repair-orders' : '/sign-in', 302);
