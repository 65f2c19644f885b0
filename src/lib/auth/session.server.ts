// The session cookie: the sign-in (grant) it belongs to, encrypted (JWE, dir + A256GCM) with
// SESSION_SECRET, HttpOnly. Every request checks that sign-in in the database and mints the
// short-lived access token of its in-process API calls (docs/decisions/013-sessions-end.md).
import { createHash } from 'node:crypto';
import type { AstroCookies } from 'astro';
import { decodeJwt, EncryptJWT, jwtDecrypt } from 'jose';
import type { Services } from '#server/services.ts';
import { FLASH_COOKIE, type FlashToast } from '#lib/toasts.ts';

type Session = Awaited<ReturnType<Services['auth']['refresh']>>;

/** What the cookie names: a sign-in of a user, never a token that works anywhere else. */
export type SessionCookie = { sessionId: string; userId: string };

const MAX_AGE = 30 * 86_400;
const keys = new Map<string, Uint8Array>();
const keyOf = (secret: string) => {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = createHash('sha256').update(`session-cookie:${secret}`).digest()));
  return key;
};

const isHttps = (services: Services) => services.config.publicUrl.startsWith('https:');

export function sessionCookieName(services: Services): string {
  return isHttps(services) ? '__Host-atelier_session' : 'atelier_session';
}

function cookieOptions(services: Services, maxAge: number) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: isHttps(services), maxAge };
}

/** The sign-in of a session the auth service opened (its access token carries `sid`). */
export function cookieOf(session: Session): SessionCookie {
  return { sessionId: String(decodeJwt(session.accessToken).sid), userId: session.user.id };
}

export async function writeSession(cookies: AstroCookies, services: Services, cookie: SessionCookie): Promise<void> {
  const value = await new EncryptJWT({ sid: cookie.sessionId, uid: cookie.userId })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt()
    .setExpirationTime(`${MAX_AGE}s`)
    .encrypt(keyOf(services.config.sessionSecret));
  cookies.set(sessionCookieName(services), value, cookieOptions(services, MAX_AGE));
}

export function clearSession(cookies: AstroCookies, services: Services): void {
  cookies.delete(sessionCookieName(services), { path: '/', secure: isHttps(services), httpOnly: true, sameSite: 'lax' });
}

/**
 * Cookies already opened, by key: decrypting one (AES-GCM through WebCrypto, then its claims) was
 * 8 % of a signed-in page's CPU, for the same cookie on every request. A cookie read again is
 * checked against the times it carries (jose's own rule: `exp` passed or `nbf` to come refuses
 * it), so the answer is the one decryption would give. Forged or broken cookies are not kept.
 */
const opened = new WeakMap<Uint8Array, Map<string, { cookie: SessionCookie; exp?: number; nbf?: number }>>();
const OPENED_MAX = 1000;

/** The sign-in of the cookie, or null for a missing, tampered, truncated, foreign or old one. */
export async function readSession(cookies: AstroCookies, services: Services): Promise<SessionCookie | null> {
  const value = cookies.get(sessionCookieName(services))?.value;
  if (!value || value.length > 4096) return null;
  const key = keyOf(services.config.sessionSecret);
  let known = opened.get(key);
  if (!known) opened.set(key, (known = new Map()));
  const seen = known.get(value);
  if (seen) {
    const now = Math.floor(Date.now() / 1000);
    if ((seen.exp === undefined || seen.exp > now) && (seen.nbf === undefined || seen.nbf <= now)) return seen.cookie;
    known.delete(value);
  }
  try {
    const { payload } = await jwtDecrypt(value, key, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    const { sid, uid } = payload as Record<string, unknown>;
    if (typeof sid !== 'string' || typeof uid !== 'string') return null;
    // Frozen: every request with this cookie is handed the same object.
    const cookie = Object.freeze({ sessionId: sid, userId: uid });
    // The oldest goes first when full: a workshop's browsers fit many times over.
    if (known.size >= OPENED_MAX) known.delete(known.keys().next().value!);
    known.set(value, { cookie, exp: payload.exp, nbf: payload.nbf });
    return cookie;
  } catch {
    return null;
  }
}

export function setFlash(cookies: AstroCookies, toast: FlashToast): void {
  cookies.set(FLASH_COOKIE, Buffer.from(JSON.stringify(toast)).toString('base64url'), {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    maxAge: 60,
  });
}

export function takeFlash(cookies: AstroCookies): FlashToast[] {
  const value = cookies.get(FLASH_COOKIE)?.value;
  if (!value) return [];
  cookies.delete(FLASH_COOKIE, { path: '/' });
  try {
    const toast = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as FlashToast;
    if ((toast.type === 'success' || toast.type === 'error') && typeof toast.message === 'string') {
      return [{ type: toast.type, message: toast.message.slice(0, 300), ...(toast.signedOut === true ? { signedOut: true as const } : {}) }];
    }
  } catch {
    // A mangled flash cookie is dropped.
  }
  return [];
}

const inFlight = new Map<string, Promise<Session>>();

/**
 * Exchanges the refresh token of an e-mail link once, however many requests of the same
 * browser arrive together with it: they share one rotation.
 */
export function refreshOnce(services: Services, refreshToken: string, ip: string): Promise<Session> {
  let pending = inFlight.get(refreshToken);
  if (!pending) {
    pending = services.auth.refresh(refreshToken, { ip });
    inFlight.set(refreshToken, pending);
    const forget = () => setTimeout(() => inFlight.delete(refreshToken), 5_000).unref?.();
    pending.then(forget, forget);
  }
  return pending;
}

/** After a successful form post: the success toast travels with the redirect (POST → 303 → GET). */
export function redirectWithToast(
  astro: { cookies: AstroCookies; redirect: (path: string, status?: 303) => Response },
  message: string,
  href: string,
): Response {
  setFlash(astro.cookies, { type: 'success', message });
  return astro.redirect(href, 303);
}
