// Step-up with a security key from a page (issue 18, item 7): the options of the auth API's
// /elevate/webauthn ceremony, and the key's answer to /api/session/elevate, which elevates the
// page's own sign-in in process (no refresh token reaches the page's scripts).
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { loadWebAuthn, pageAccessToken, postJson } from './ceremony.ts';

export async function elevateWithSecurityKey(): Promise<void> {
  const headers = { authorization: `Bearer ${await pageAccessToken()}` };
  const { startAuthentication } = await loadWebAuthn();
  const optionsJSON = await postJson<PublicKeyCredentialRequestOptionsJSON>('/api/auth/elevate/webauthn', {}, headers);
  await postJson('/api/session/elevate', { credential: await startAuthentication({ optionsJSON }) });
}
