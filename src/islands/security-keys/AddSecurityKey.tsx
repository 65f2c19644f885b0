// Adding a security key to one's account (decision 028): a name, then the browser's ceremony
// with /api/auth/user/webauthn/add's options (the account's keys excluded); the new key's answer
// goes to /profile/security/keys, which keeps it and flashes the success toast for the reload.
import { mdiKeyPlus } from '@mdi/js';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useEffect, useState, type SubmitEvent } from 'react';
import { Icon } from '#components/Icon.tsx';
import { TextInput } from '#components/TextInput.tsx';
import { hasReason } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import { useHydrated } from '#lib/use-hydrated.ts';
import { browserHasWebAuthn, ceremonyMessage, loadWebAuthn, pageAccessToken, postJson, ServerRefusal } from './ceremony.ts';

const MAX_NICKNAME = 80;

export function AddSecurityKey(props: { action: string }) {
  const hydrated = useHydrated();
  const [supported, setSupported] = useState(true);
  const [fieldError, setFieldError] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => setSupported(browserHasWebAuthn()), []);

  async function add(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    // Read from the form, not kept in state: what was typed before the island ran stays.
    const name = String(new FormData(event.currentTarget).get('nickname') ?? '').trim();
    if (!name) return setFieldError(t('validation.required'));
    if (name.length > MAX_NICKNAME) return setFieldError(t('securityKeys.errors.nickname'));
    setFieldError(undefined);
    setError(null);
    setBusy(true);
    try {
      const { startRegistration } = await loadWebAuthn();
      const optionsJSON = await postJson<PublicKeyCredentialCreationOptionsJSON>(
        '/api/auth/user/webauthn/add',
        {},
        { authorization: `Bearer ${await pageAccessToken()}` },
      );
      const credential = await startRegistration({ optionsJSON });
      const { location } = await postJson<{ location: string }>(props.action, { credential, nickname: name });
      window.location.assign(location);
    } catch (failure) {
      // The sign-in's proof lapsed meanwhile (decision 048): the page again, which asks it in place.
      if (failure instanceof ServerRefusal && hasReason(failure, 'elevated-claim-required')) {
        return window.location.assign(props.action.replace(/\/keys$/, ''));
      }
      setError(ceremonyMessage(failure));
      setBusy(false);
    }
  }

  if (!supported) return <p className="text-sm text-muted">{t('securityKeys.unsupported')}</p>;
  return (
    <form onSubmit={add} noValidate className="flex flex-col gap-3" aria-label={t('securityKeys.add')}>
      {error ? (
        <p className="alert-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <TextInput
          label={t('securityKeys.nickname')}
          name="nickname"
          required
          maxLength={MAX_NICKNAME}
          className="sm:w-80"
          error={fieldError}
          {...(fieldError ? {} : { 'aria-describedby': 'cle-nom-aide' })}
        />
        <button type="submit" className="btn btn-primary min-h-11 gap-2 sm:mt-6" disabled={!hydrated || busy}>
          <Icon path={mdiKeyPlus} className="shrink-0" />
          {busy ? t('securityKeys.adding') : t('securityKeys.add')}
        </button>
      </div>
      <p id="cle-nom-aide" className="text-sm text-muted">
        {t('securityKeys.nicknameHint')}
      </p>
    </form>
  );
}
