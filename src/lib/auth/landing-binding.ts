// A session from a URL only ends a flow this browser started (issue 29, item 5; decision 052).
// - The identity provider's callback, reached only by the browser that started the round trip
//   (its `atelier_oidc` cookie), leaves LANDING_COOKIE with the hash of the token it lands with.
// - Asking for an e-mail link (sign-in link, password reset) leaves ASKED_COOKIE with a keyed
//   hash of the address: that account's link, opened in this browser, signs in at once.
// Any other `refreshToken` in a URL (a link opened on another device, or one someone else made)
// waits for the user to confirm, by a same-origin form, which account opens.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AstroCookies } from 'astro';

export const LANDING_COOKIE = 'atelier_landing';
/** Long enough for the redirect, short enough that it binds nothing else. */
export const LANDING_COOKIE_SECONDS = 120;

export const landingBindingOf = (refreshToken: string) => createHash('sha256').update(`landing:${refreshToken}`).digest('base64url');

export const ASKED_COOKIE = 'atelier_lien';
/** The longest-lived link a signed-out browser asks for: a password reset (1 h). */
const ASKED_SECONDS = 3600;
/** The last few addresses asked for from this browser (a shared terminal: several people). */
const ASKED_KEPT = 4;

const askedOf = (secret: string, email: string) => createHmac('sha256', secret).update(`asked:${email.trim().toLowerCase()}`).digest('base64url').slice(0, 22);

const askedIn = (cookies: AstroCookies) => (cookies.get(ASKED_COOKIE)?.value ?? '').split('.').filter(Boolean);

/** This browser asked for a link to `email`: its landing will not ask who is signing in. */
export function rememberLinkAsked(cookies: AstroCookies, secret: string, email: string): void {
  const value = askedOf(secret, email);
  const kept = [value, ...askedIn(cookies).filter((v) => v !== value)].slice(0, ASKED_KEPT);
  cookies.set(ASKED_COOKIE, kept.join('.'), { httpOnly: true, sameSite: 'lax', path: '/', maxAge: ASKED_SECONDS });
}

/** Whether this browser asked, within the hour, for a link to this account's address. */
export function linkAskedHere(cookies: AstroCookies, secret: string, email: string | null): boolean {
  if (!email) return false;
  const wanted = Buffer.from(askedOf(secret, email));
  return askedIn(cookies).some((v) => v.length === wanted.length && timingSafeEqual(Buffer.from(v), wanted));
}
