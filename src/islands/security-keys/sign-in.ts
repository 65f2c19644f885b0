// The sign-in page's security key (decision 028), as a plain script: a button, and the browser's
// autofill offering the site's keys in the e-mail field (conditional mediation: the field's
// autocomplete ends with "webauthn", SPEC §5). Options come from the auth API; the key's answer
// goes to /sign-in/security-key, which writes the page session. No React on the sign-in page:
// this and @simplewebauthn/browser (fetched when a ceremony starts) are a few KiB.
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { t } from '#lib/i18n.ts';
import { browserHasWebAuthn, ceremonyMessage, loadWebAuthn, postJson, ServerRefusal } from './ceremony.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Wires one `[data-security-key-sign-in]` block; it stays hidden where the browser cannot. */
export function startSecurityKeySignIn(root: HTMLElement): void {
  if (!browserHasWebAuthn()) return;
  const button = root.querySelector('button')!;
  const label = root.querySelector<HTMLElement>('[data-label]')!;
  const alert = root.querySelector<HTMLElement>('[role="alert"]')!;
  const redirectTo = root.dataset.redirectTo || undefined;
  root.hidden = false;

  const showError = (message: string | null) => {
    alert.replaceChildren();
    if (!message) return;
    const text = document.createElement('p');
    text.className = 'alert-error';
    text.textContent = message;
    alert.append(text);
  };

  /** The key's answer to /sign-in/security-key, which writes the session; then where it says. */
  async function finish(credential: AuthenticationResponseJSON) {
    const { location } = await postJson<{ location: string }>('/sign-in/security-key', { credential, ...(redirectTo ? { redirectTo } : {}) });
    window.location.assign(location);
  }

  button.addEventListener('click', async () => {
    button.disabled = true;
    label.textContent = t('securityKeys.waiting');
    showError(null);
    try {
      const { startAuthentication } = await loadWebAuthn();
      // With the e-mail typed, that account's keys (also those that do not remember their account).
      const typed = document.querySelector<HTMLInputElement>("input[autocomplete$='webauthn']")?.value.trim() ?? '';
      const optionsJSON = await postJson<PublicKeyCredentialRequestOptionsJSON>('/api/auth/signin/webauthn', EMAIL.test(typed) ? { email: typed } : {});
      await finish(await startAuthentication({ optionsJSON }));
      // Busy until the next page shows.
    } catch (failure) {
      showError(ceremonyMessage(failure));
      button.disabled = false;
      label.textContent = t('securityKeys.signIn');
    }
  });

  // The autofill form: the browser offers the keys it knows as the e-mail field is focused.
  void (async () => {
    const conditional = await PublicKeyCredential.isConditionalMediationAvailable?.().catch(() => false);
    if (!conditional) return;
    const { startAuthentication } = await loadWebAuthn();
    const optionsJSON = await postJson<PublicKeyCredentialRequestOptionsJSON>('/api/auth/signin/webauthn', {});
    await finish(await startAuthentication({ optionsJSON, useBrowserAutofill: true }));
  })().catch((failure: unknown) => {
    // Set aside for the button, or nothing chosen: only a refused key is worth a word.
    if (failure instanceof ServerRefusal) showError(ceremonyMessage(failure));
  });
}
