// Identity and the guard, as a sequence of small steps (ARCHITECTURE.md, STYLE.md).
import { defineMiddleware, sequence } from 'astro:middleware';
import type { RefusalReason } from '#lib/errors.ts';
import { DomainError } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { formatWait } from '#lib/format.ts';
import { isRole } from '#lib/roles.ts';
import { endpoints, guardRedirect, HOME, matchRoute, SIGN_IN } from '#lib/routes.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { PHOTO_UPLOAD_HEADER } from '#lib/repair-orders/photo-upload.ts';
import { photoPostMaxBytes } from '#lib/repair-orders/photos.ts';
import { tooBigMessage } from '#lib/repair-orders/photos.server.ts';
import { clearSession, cookieOf, readSession, refreshOnce, sessionCookieName, setFlash, takeFlash, writeSession } from '#lib/auth/session.server.ts';
import { renderContinuePage, renderMessagePage } from '#lib/message-page.ts';
import { landingErrorMessage } from '#lib/auth/landing-errors.ts';
import { LANDING_COOKIE, landingBindingOf, linkAskedHere } from '#lib/auth/landing-binding.ts';
import { linkLandings } from '#lib/auth/link-landings.ts';
import { PASSWORD_DIALOG_REFUSAL, type PasswordDialogRefusal } from '#lib/auth/password-dialog.ts';
import { leaveRefusal, leaveUnread, readRefusal } from '#lib/forms.server.ts';
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_SECONDS } from '#lib/unavailable.ts';
import { PageOutOfTime } from '#lib/page-budget.ts';

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

/**
 * A URL whose path or query holds a NUL or does not decode (lone `%`, broken UTF-8) is refused
 * with a French 400: no page reads it, PostgreSQL would refuse it deeper down as a 500.
 */
const wellFormedUrl = defineMiddleware((context, next) => {
  const raw = context.url.pathname + context.url.search;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    decoded = '\u0000';
  }
  if (!decoded.includes('\u0000')) return next();
  return renderMessagePage({ status: 400, title: t('errors.generic'), text: t('errors.badAddress') });
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

/** A form without files; a form with files carries at most the largest file a bucket takes. */
const MAX_FORM_BYTES = 1024 * 1024;
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/** The pages whose photo forms answer a post over the cap themselves: an order's procedure tab and a measure's page. */
const PHOTO_FORM_PAGES = /^\/repair-order\/[^/]+(\/measure\/[^/]+)?\/?$/;

/**
 * Pages take form posts only (another body would fail to parse inside the page, a 500), of a
 * declared size within their limit (a size they must declare), refused before they are read.
 */
const formBodies = defineMiddleware((context, next) => {
  const { request, url, locals } = context;
  if (SAFE_METHODS.has(request.method) || url.pathname.startsWith('/api/') || endpoints.includes(url.pathname)) return next();
  const type = request.headers.get('content-type') ?? '';
  const multipart = /^multipart\/form-data\b/i.test(type);
  if (!multipart && !/^application\/x-www-form-urlencoded\b/i.test(type)) {
    return renderMessagePage({ status: 415, title: t('errors.generic'), text: t('errors.formOnly') });
  }
  const max = multipart ? Math.max(...Object.values(locals.services.config.storageMaxBytes)) + FORM_OVERHEAD_BYTES : MAX_FORM_BYTES;
  // Without a declared length (a chunked body), the limits below could not be checked before reading.
  if (!request.headers.has('content-length')) {
    return renderMessagePage({ status: 411, title: t('errors.generic'), text: t('errors.formLengthRequired') });
  }
  const declared = Number(request.headers.get('content-length'));
  // A photo post has its own cap (decision 088): read whole in memory, it need not reach the largest bucket's.
  const photoMaxBytes = locals.services.config.storageMaxBytes.photo;
  if (multipart && url.searchParams.get('action') === 'photos' && PHOTO_FORM_PAGES.test(url.pathname) && declared > photoPostMaxBytes(photoMaxBytes)) {
    if (request.headers.has(PHOTO_UPLOAD_HEADER)) return renderMessagePage({ status: 413, title: t('errors.generic'), text: tooBigMessage(photoMaxBytes) });
    // A form's post: its page says so beside the field, as any refusal (decision 039), its body left unread.
    leaveUnread(request);
    return next();
  }
  if (declared > max) {
    return renderMessagePage({ status: 413, title: t('errors.generic'), text: t('errors.formTooLarge', { size: Math.round(max / 1024 / 1024) }) });
  }
  return next();
});

const keepsLinkType = (url: URL) => url.pathname === '/set-password' && url.searchParams.get('type') === 'passwordReset';

/**
 * The e-mail links and identity providers land with `refreshToken`. It opens a session only as
 * the end of a flow this browser started (decision 052): the provider's callback left the
 * binding cookie; otherwise (an e-mail link, or a link someone else made) the page names the
 * account and a same-origin form confirms it (`/sign-in/continue`). Then the token leaves the
 * URL. A failure lands with `error` and `errorDescription`: say so in French. A link's `type` is
 * dropped too, and said as a toast when it changed something (decision 046).
 */
const autoSignIn = defineMiddleware(async (context, next) => {
  const { url, cookies, locals } = context;
  if (!SAFE_METHODS.has(context.request.method)) return next();
  const clean = new URL(url);
  // The same URL without what the link added, if it is one of ours (`//evil.example/?error=…` is not).
  const landing = () => safeRedirect(clean.pathname + clean.search, locals.services.config.publicUrl)?.path ?? HOME;
  const type = url.searchParams.get('type') ?? '';
  const linkType = Object.hasOwn(linkLandings, type) && !keepsLinkType(url);
  if (linkType) clean.searchParams.delete('type');
  if (url.searchParams.has('errorDescription')) {
    const message = landingErrorMessage(url.searchParams.get('error'));
    clean.searchParams.delete('error');
    clean.searchParams.delete('errorDescription');
    setFlash(cookies, { type: 'error', message });
    return context.redirect(landing(), 302);
  }
  const token = url.searchParams.get('refreshToken');
  const done = (toast: boolean) => {
    const message = linkType && toast ? linkLandings[type] : null;
    if (message) setFlash(cookies, { type: 'success', message });
    return context.redirect(landing(), 302);
  };
  // Without a token: a user with TOTP, sent to the sign-in's code step (no toast yet), then from
  // it to the link's page (decision 030).
  if (!token) return linkType ? done(url.pathname !== SIGN_IN) : next();
  clean.searchParams.delete('refreshToken');
  const bound = cookies.get(LANDING_COOKIE)?.value === landingBindingOf(token);
  if (cookies.has(LANDING_COOKIE)) cookies.delete(LANDING_COOKIE, { path: '/' });
  if (!bound) {
    const account = await locals.services.auth.whoseRefreshToken(token);
    if (!account) {
      setFlash(cookies, { type: 'error', message: t('errors.linkExpired') });
      return context.redirect(SIGN_IN, 302);
    }
    // Signed in here as the link's account already (an e-mail change confirmed), or this browser
    // asked for that account's link: the flow ends where it began.
    const current = await readSession(cookies, locals.services);
    if (current?.userId !== account.id && !linkAskedHere(cookies, locals.services.config.sessionSecret, account.email))
      return renderContinuePage({
        name: account.displayName,
        email: account.email,
        refreshToken: token,
        to: landing(),
        type: linkType ? type : '',
        done: linkType ? (linkLandings[type] ?? null) : null,
      });
  }
  try {
    const session = await refreshOnce(locals.services, token, locals.clientAddress);
    await writeSession(cookies, locals.services, cookieOf(session));
  } catch {
    clearSession(cookies, locals.services);
    setFlash(cookies, { type: 'error', message: t('errors.linkExpired') });
    return context.redirect(SIGN_IN, 302);
  }
  return done(true);
});

/** SPEC §4: 5 s × 2^(attempts − 1) between retries, up to the fifth attempt's delay. */
const RETRY_COOKIE = 'atelier_retry';
const MAX_RETRY_ATTEMPTS = 5;

/**
 * The sign-in could not be checked (the database is away): the session is kept, and the page
 * asks to be loaded again after SPEC §4's back-off. Only an ended sign-in signs out.
 */
function retryLater(context: Parameters<Parameters<typeof defineMiddleware>[0]>[0], error: unknown): Response {
  const attempts = Math.min(MAX_RETRY_ATTEMPTS, (Number(context.cookies.get(RETRY_COOKIE)?.value) || 0) + 1);
  context.cookies.set(RETRY_COOKIE, String(attempts), { httpOnly: true, sameSite: 'lax', path: '/', maxAge: 600 });
  const seconds = 5 * 2 ** (attempts - 1);
  // The database away (decision 036) is said as such: the whole service waits, not the session.
  const message = isDatabaseUnavailable(error)
    ? { status: 503, title: t('errors.unavailableTitle'), text: t('errors.unavailable', { wait: formatWait(seconds, 'exact') }), retryAfter: seconds }
    : {
        status: 503,
        title: t('errors.sessionUnavailableTitle'),
        text: t('errors.sessionUnavailable', { wait: formatWait(seconds, 'exact') }),
        retryAfter: seconds,
      };
  if (context.url.pathname.startsWith('/api/')) {
    return new Response(JSON.stringify({ status: 503, error: 'session-unavailable' satisfies RefusalReason, message: message.text }), {
      status: 503,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': String(seconds) },
    });
  }
  return renderMessagePage(message);
}

/**
 * Resolves the signed-in user from the cookie. Every request checks that its sign-in is still
 * open (one query, with the account), so a sign-out, a disabled account or an admin's "sign
 * out everywhere" ends it at once; the page's API calls run as this account as it is now (a
 * changed role included), with no second look-up.
 */
const session = defineMiddleware(async (context, next) => {
  const { cookies, locals } = context;
  const { services } = locals;
  // Signed out until the cookie says otherwise: the domain services refuse everything.
  locals.services = services.forViewer(null);
  locals.user = null;
  locals.session = null;
  // A page a photo upload's XHR is led to (answered without the page, only a redirect of the
  // session's leads there) is not shown: a toast waits for the page the script opens next (decision 088).
  locals.flash = context.request.headers.get(PHOTO_UPLOAD_HEADER) ? [] : takeFlash(cookies);
  locals.passwordDialog = null;
  // A refused post waits only for the page that showed it (decision 064), signed in or out.
  leaveRefusal(context);
  const cookie = await readSession(cookies, services);
  const signedOut = () => {
    clearSession(cookies, services);
    return next();
  };
  // A tampered, truncated, foreign or old cookie is dropped.
  if (!cookie) return cookies.has(sessionCookieName(services)) ? signedOut() : next();
  let open;
  try {
    open = await services.auth.openSession(cookie.sessionId, cookie.userId);
  } catch (error) {
    return retryLater(context, error);
  }
  const row = open?.user;
  const role = row?.defaultRole;
  if (!open || !row || !isRole(role)) return signedOut();
  if (cookies.has(RETRY_COOKIE)) cookies.delete(RETRY_COOKIE, { path: '/' });
  locals.user = { id: row.id, displayName: row.displayName, email: row.email, newEmail: row.newEmail, role, emailVerified: row.emailVerified };
  locals.session = open;
  locals.services = services.forViewer({ id: row.id, role, sessionId: open.sessionId });
  locals.passwordDialog = await readRefusal<PasswordDialogRefusal>(context, PASSWORD_DIALOG_REFUSAL, { once: true });
  return next();
});

/** Seconds after which a page the API could not prepare in time loads again by itself. */
const BUSY_RETRY_SECONDS = 5;

/**
 * A page whose reads or API call ran out of their time budget (a busy server: issue 17's load runs) says so
 * in French with 503 and Retry-After, instead of Astro's empty 500. Other failures keep Astro's
 * log line and reach the 500 page.
 */
const pageTimeouts = defineMiddleware(async (_context, next) => {
  try {
    return await next();
  } catch (error) {
    if (!(error instanceof PageOutOfTime)) throw error;
    const seconds = BUSY_RETRY_SECONDS;
    return renderMessagePage({
      status: 503,
      title: t('errors.busyTitle'),
      text: t('errors.busy', { wait: formatWait(seconds, 'exact') }),
      retryAfter: seconds,
    });
  }
});

/**
 * The database cannot be reached (decision 036): every page says so in French with 503 and
 * Retry-After, and loads again by itself; never a 500. Pages work again once it is back.
 */
const databaseAway = defineMiddleware(async (_context, next) => {
  try {
    return await next();
  } catch (error) {
    // A service's own 'unavailable' (an identity provider away, a secret sealed elsewhere) reads the same.
    if (!(error instanceof DomainError && error.kind === 'unavailable') && !isDatabaseUnavailable(error)) throw error;
    const seconds = UNAVAILABLE_RETRY_SECONDS;
    return renderMessagePage({
      status: 503,
      title: t('errors.unavailableTitle'),
      text: t('errors.unavailable', { wait: formatWait(seconds, 'exact') }),
      retryAfter: seconds,
    });
  }
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

export const onRequest = sequence(securityHeaders, wellFormedUrl, sameOrigin, formBodies, databaseAway, autoSignIn, session, guard, pageTimeouts);
