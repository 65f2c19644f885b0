// The update-password dialog of the profile menu (SPEC §2.5, §5), with its strength bar.
import { Dialog, DialogPanel, DialogTitle } from '@headlessui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { PasswordStrength } from '../../components/PasswordStrength.tsx';
import { TextInput } from '../../components/TextInput.tsx';
import { postJson } from '../../lib/api-client.ts';
import { t } from '../../lib/i18n.ts';
import { showToast } from '../../lib/toasts.ts';
import { useHydrated } from '../../lib/use-hydrated.ts';
import { updatePasswordSchema } from '../../lib/validation.ts';

type Values = { password: string; confirmation: string };

export default function UpdatePasswordDialog() {
  const [open, setOpen] = useState(false);
  const hydrated = useHydrated();
  const { register, handleSubmit, watch, reset, formState } = useForm<Values>({
    resolver: zodResolver(updatePasswordSchema),
    defaultValues: { password: '', confirmation: '' },
  });
  const close = () => {
    setOpen(false);
    reset();
  };
  const submit = handleSubmit(async (values) => {
    const result = await postJson('/api/session/password', { password: values.password });
    if (result.ok) {
      showToast({ type: 'success', message: t('success.passwordSaved') });
      close();
    } else {
      showToast({ type: 'error', message: t('errors.generic') });
    }
  });
  return (
    <>
      <button type="button" className="btn btn-secondary min-h-8 px-3 py-1 text-sm" disabled={!hydrated} onClick={() => setOpen(true)}>
        {t('profile.update')}
      </button>
      {/* Rendered only while open: closed, Headless UI would still emit a styled hidden node. */}
      {open ? (
      <Dialog open onClose={close} className="relative z-50">
        <div className="fixed inset-0 bg-black/40" aria-hidden="true" />
        <div className="fixed inset-0 flex items-center justify-center p-4">
          <DialogPanel className="card w-full max-w-md">
            <DialogTitle className="mb-4 text-lg font-bold">{t('updatePassword.title')}</DialogTitle>
            <form onSubmit={submit} noValidate className="flex flex-col gap-4">
              <TextInput label={t('updatePassword.password')} type="password" autoComplete="new-password" required error={formState.errors.password?.message} {...register('password')} />
              <PasswordStrength value={watch('password')} />
              <TextInput label={t('updatePassword.confirmation')} type="password" autoComplete="new-password" required error={formState.errors.confirmation?.message} {...register('confirmation')} />
              <div className="flex justify-end gap-2">
                <button type="button" className="btn btn-secondary" onClick={close}>
                  {t('updatePassword.cancel')}
                </button>
                <button type="submit" className="btn btn-primary" disabled={formState.isSubmitting}>
                  {t('updatePassword.submit')}
                </button>
              </div>
            </form>
          </DialogPanel>
        </div>
      </Dialog>
      ) : null}
    </>
  );
}
