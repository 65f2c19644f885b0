// The update-password dialog of the profile menu (SPEC §2.5, §5), with its strength bar.
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Modal, ModalActions } from '#components/Modal.tsx';
import { PasswordStrength } from '#components/PasswordStrength.tsx';
import { TextInput } from '#components/TextInput.tsx';
import { postJson } from '#lib/auth/api-client.ts';
import { t } from '#lib/i18n.ts';
import { showToast } from '#lib/toasts.ts';
import { useHydrated } from '#lib/use-hydrated.ts';
import { joinMessages, updatePasswordSchema } from '#lib/validation.ts';

type Values = { currentPassword: string; password: string; confirmation: string };

export default function UpdatePasswordDialog() {
  const [open, setOpen] = useState(false);
  const hydrated = useHydrated();
  const { register, handleSubmit, watch, reset, setError, formState } = useForm<Values>({
    resolver: zodResolver(updatePasswordSchema),
    defaultValues: { currentPassword: '', password: '', confirmation: '' },
    // Every broken rule, not the first one only.
    criteriaMode: 'all',
  });
  /** A field's error: all its rules at once, as the server-rendered forms say them. */
  const errorOf = (name: keyof Values) => {
    const error = formState.errors[name];
    if (!error) return undefined;
    const all = Object.values(error.types ?? {})
      .flatMap((m) => (Array.isArray(m) ? m : [m]))
      .filter((m): m is string => typeof m === 'string');
    return all.length ? joinMessages(all) : error.message;
  };
  const close = () => {
    setOpen(false);
    reset();
  };
  const submit = handleSubmit(async (values) => {
    const result = await postJson('/api/session/password', values);
    if (result.ok) {
      showToast({ type: 'success', message: t('success.passwordSaved') });
      close();
    } else if (result.error === 'invalid-current-password') {
      setError('currentPassword', { message: t('errors.currentPasswordWrong') }, { shouldFocus: true });
    } else {
      showToast({ type: 'error', message: t('errors.generic') });
    }
  });
  return (
    <>
      {/* Until the island runs (or without JavaScript), the password page does the same. */}
      {hydrated ? (
        <button type="button" className="btn btn-secondary min-h-8 px-3 py-1 text-sm" onClick={() => setOpen(true)}>
          {t('profile.update')}
        </button>
      ) : (
        <a className="btn btn-secondary min-h-8 px-3 py-1 text-sm" href="/set-password">
          {t('profile.update')}
        </a>
      )}
      {open ? (
        <Modal title={t('updatePassword.title')} onClose={close}>
          <form onSubmit={submit} noValidate className="flex flex-col gap-4">
            <TextInput
              label={t('updatePassword.currentPassword')}
              type="password"
              autoComplete="current-password"
              required
              error={errorOf('currentPassword')}
              {...register('currentPassword')}
            />
            <TextInput
              label={t('updatePassword.password')}
              type="password"
              autoComplete="new-password"
              required
              error={errorOf('password')}
              {...register('password')}
            />
            <PasswordStrength value={watch('password')} />
            <TextInput
              label={t('updatePassword.confirmation')}
              type="password"
              autoComplete="new-password"
              required
              error={errorOf('confirmation')}
              {...register('confirmation')}
            />
            <ModalActions cancelLabel={t('updatePassword.cancel')} onCancel={close} submitLabel={t('updatePassword.submit')} busy={formState.isSubmitting} />
          </form>
        </Modal>
      ) : null}
    </>
  );
}
