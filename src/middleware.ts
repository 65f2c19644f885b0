// Identity and the guard, as a sequence of small steps (ARCHITECTURE.md, STYLE.md).
import { defineMiddleware, sequence } from 'astro:middleware';
import { t } from './lib/i18n.ts';
import { isRole } from './lib/roles.ts';
import { endpoints, guardRedirect, matchRoute, SIGN_IN } from './lib/routes.ts';
import { clearSession, readSession, refreshOnce, sessionCookieName, setFlash, takeFlash, tokensOf, writeSession } from './lib/session.server.ts';
import { renderMessagePage } from './lib/message-page.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Headers of every answer; the CSP itself comes from Astro (security.csp), with its hashes. */
const securityHeaders = defineMiddleware(async (_context, next) => {
  const response = await next();
  const headers = response.headers;
  headers.set('X-Content-Type-Options', 'nosniff');
  headers.set('Referrer-Policy', 'same-origin');
  headers.set('X-Frame-Options', 'DENY');
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'private, no-store');
  return response;
});

/** State-changing requests must come from our own pages (forms and JSON alike). */
const sameOrigin = defineMiddleware((context, next) => {
  const { request, locals, url } = context;
  if (SAFE_METHODS.has(request.method)) return next();
  const origin = request.headers.get('origin');
  const fetchSite = request.headers.get('sec-fetch-site');
  const allowed = new Set([url.origin, new URL(locals.services.config.publicUrl).origin]);
  const fromUs = origin ? allowed.has(origin) : fetchSite === null || fetchSite === 'same-origin';
  if (fromUs) return next();
  return renderMessagePage({ status: 403, title: t('errors.generic'), text: t('errors.forbiddenRequest') });
});

/** Pages take form posts only: another body would fail to parse inside the page, a 500. */
const formBodies = defineMiddleware((context, next) => {
  const { request, url } = context;
  if (SAFE_METHODS.has(request.method) || url.pathname.startsWith('/api/') || endpoints.includes(url.pathname)) return next();
  if (/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(request.headers.get('content-type') ?? '')) return next();
  return renderMessagePage({ status: 415, title: t('errors.generic'), text: t('errors.formOnly') });
});

/**
 * The e-mail links land with `refreshToken`: exchange it for a session, then drop it from the
 * URL. A link that failed lands with `error` and `errorDescription`: say so in French.
 */
const autoSignIn = defineMiddleware(async (context, next) => {
  const { url, cookies, locals } = context;
  if (!SAFE_METHODS.has(context.request.method)) return next();
  const clean = new URL(url);
  if (url.searchParams.has('errorDescription')) {
    clean.searchParams.delete('error');
    clean.searchParams.delete('errorDescription');
    setFlash(cookies, { type: 'error', message: t('errors.linkExpired') });
    return context.redirect(clean.pathname + clean.search, 302);
  }
  const token = url.searchParams.get('refreshToken');
  if (!token) return next();
  clean.searchParams.delete('refreshToken');
  try {
    const session = await refreshOnce(locals.services, token, context.clientAddress);
    await writeSession(cookies, locals.services, tokensOf(session));
  } catch {
    clearSession(cookies, locals.services);
    setFlash(cookies, { type: 'error', message: t('errors.linkExpired') });
    return context.redirect(SIGN_IN, 302);
  }
  return context.redirect(clean.pathname + clean.search, 302);
});

/** Resolves the signed-in user from the cookie, refreshing the access token shortly before it expires. */
const session = defineMiddleware(async (context, next) => {
  const { cookies, locals } = context;
  const { services } = locals;
  locals.user = null;
  locals.accessToken = null;
  locals.flash = takeFlash(cookies);
  const tokens = await readSession(cookies, services);
  // A tampered, truncated or foreign cookie is dropped.
  if (!tokens && cookies.has(sessionCookieName(services))) clearSession(cookies, services);
  if (tokens) {
    const lifetime = services.config.accessTokenExpiresIn * 1000;
    // SPEC §9: refresh before expiry by the smaller of a constant and half the lifetime.
    const margin = Math.min(60_000, lifetime / 2);
    let current = tokens;
    const refresh = async () => {
      try {
        current = tokensOf(await refreshOnce(services, current.refreshToken, context.clientAddress));
        await writeSession(cookies, services, current);
        return await services.auth.issuer.verify(current.accessToken);
      } catch {
        return null;
      }
    };
    let claims = Date.now() < tokens.expiresAt - margin ? await services.auth.issuer.verify(tokens.accessToken) : null;
    claims ??= await refresh();
    let row = claims ? await services.auth.findUserById(claims.userId) : undefined;
    // An admin changed the role: a new token carries it, or the API would refuse the old one.
    if (row && claims && row.defaultRole !== claims.defaultRole) {
      claims = await refresh();
      row = claims ? row : undefined;
    }
    if (row && !row.disabled && isRole(row.defaultRole)) {
      locals.user = { id: row.id, displayName: row.displayName, email: row.email, role: row.defaultRole, emailVerified: row.emailVerified };
      locals.accessToken = current.accessToken;
    } else {
      clearSession(cookies, services);
    }
  }
  return next();
});

/** SPEC §2.2, from the route table. Endpoints check for themselves. */
const guard = defineMiddleware((context, next) => {
  const { pathname } = context.url;
  if (pathname.startsWith('/_') || endpoints.includes(pathname)) return next();
  const target = guardRedirect(pathname, context.locals.user?.role ?? null);
  if (!target) return next();
  // A toast flashed for this request is shown where the guard sends it.
  for (const toast of context.locals.flash) setFlash(context.cookies, toast);
  // A bookmarked page reached while signed out comes back after sign-in.
  if (target === SIGN_IN && matchRoute(pathname)) {
    return context.redirect(`${SIGN_IN}?redirectTo=${encodeURIComponent(pathname + context.url.search)}`, 302);
  }
  return context.redirect(target, 302);
});

export const onRequest = sequence(securityHeaders, sameOrigin, formBodies, autoSignIn, session, guard);
