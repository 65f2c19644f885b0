// Step-up with a security key from a page (issue 18, item 7): the page's own sign-in is
// elevated through the auth API's /elevate/webauthn ceremony, with the access token the page
// hands its islands.
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { loadWebAuthn, pageAccessToken, postJson } from './ceremony.ts';

export async function elevateWithSecurityKey(): Promise<void> {
  const headers = { authorization: `Bearer ${await pageAccessToken()}` };
  const { startAuthentication } = await loadWebAuthn();
  const optionsJSON = await postJson<PublicKeyCredentialRequestOptionsJSON>('/api/auth/elevate/webauthn', {}, headers);
  await postJson('/api/auth/elevate/webauthn/verify', { credential: await startAuthentication({ optionsJSON }) }, headers);
}
