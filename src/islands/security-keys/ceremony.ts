// What the security-key islands share (decision 028): @simplewebauthn/browser, fetched only when a
// ceremony starts (its own chunk, not in the page's first download), a JSON post, and the French
// message of what the browser refused (SPEC §8's named errors).
import { hasReason } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';

export const loadWebAuthn = () => import('@simplewebauthn/browser');

/** The page's WebAuthn, as the browser exposes it: false on old browsers and insecure origins. */
export const browserHasWebAuthn = () => typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';

/** The short-lived access token of this page's session, for the auth API. */
export async function pageAccessToken(): Promise<string> {
  const res = await fetch('/api/session/token', { credentials: 'same-origin', cache: 'no-store' });
  if (res.status === 401) {
    window.location.assign('/sign-in');
    throw new Error('signed out');
  }
  if (!res.ok) throw new Error(`Response not successful: Received status code ${res.status}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** POSTs JSON to our own origin; the parsed answer, or an error carrying the server's message. */
export async function postJson<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as { message?: string; error?: string };
  if (!res.ok) throw new ServerRefusal(answer.error ?? 'unknown', res.status, answer.message);
  return answer as T;
}

/** A refusal of the server, with the French message our own endpoints give. */
export class ServerRefusal extends Error {
  readonly reason: string;
  readonly status: number;
  readonly french: string | undefined;
  constructor(reason: string, status: number, french?: string) {
    super(reason);
    this.reason = reason;
    this.status = status;
    this.french = french;
  }
}

/** The French message of a failed ceremony: the browser's named errors, then the server's. */
export function ceremonyMessage(error: unknown): string {
  if (error instanceof ServerRefusal) {
    if (error.french) return error.french;
    if (hasReason(error, 'webauthn-authenticator-previously-registered')) return t('securityKeys.errors.previouslyRegistered');
    return t('errors.generic');
  }
  const code = (error as { code?: string } | null)?.code;
  switch (code) {
    case 'ERROR_CEREMONY_ABORTED':
      return t('securityKeys.errors.aborted');
    case 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED':
      return t('securityKeys.errors.previouslyRegistered');
    case 'ERROR_INVALID_DOMAIN':
      return t('securityKeys.errors.invalidDomain');
    case 'ERROR_INVALID_RP_ID':
      return t('securityKeys.errors.invalidRpId');
  }
  // The user closed the browser's window, or its time ran out (NotAllowedError).
  if (error instanceof Error && error.name === 'NotAllowedError') return t('securityKeys.errors.aborted');
  return t('errors.generic');
}
