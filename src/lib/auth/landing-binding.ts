// A session from a URL only ends a flow this browser started (issue 29, item 5; decision 052).
// The identity provider's callback, reached only by the browser that started the round trip
// (its `atelier_oidc` cookie), leaves this cookie with the hash of the token it lands with: the
// landing then signs in at once. Any other `refreshToken` in a URL (an e-mail link, or a link
// someone else made) waits for the user to confirm, by a same-origin form, which account opens.
import { createHash } from 'node:crypto';

export const LANDING_COOKIE = 'atelier_landing';
/** Long enough for the redirect, short enough that it binds nothing else. */
export const LANDING_COOKIE_SECONDS = 120;

export const landingBindingOf = (refreshToken: string) => createHash('sha256').update(`landing:${refreshToken}`).digest('base64url');
