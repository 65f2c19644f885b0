// Name and e-mail of the profile menu, with the pencil that edits them (SPEC §2.5).
import { mdiPencil } from '@mdi/js';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Icon } from '#components/Icon.tsx';
import { TextInput } from '#components/TextInput.tsx';
import { apiErrorOf, graphqlRequest } from '#lib/graphql-client.ts';
import { t } from '#lib/i18n.ts';
import { showToast } from '#lib/toasts.ts';
import { useHydrated } from '#lib/use-hydrated.ts';
import { UPDATE_PROFILE } from '#lib/users/users.ts';
import { profileSchema } from '#lib/users/users.ts';

type Values = { displayName: string; email: string };

/** `profileHref`: the profile page, where the pencil leads until the island runs (or without JavaScript). */
export default function ProfileIdentity(props: Values & { id: string; newEmail: string | null; canEdit: boolean; profileHref: string }) {
  const [saved, setSaved] = useState<Values>({ displayName: props.displayName, email: props.email });
  const [editing, setEditing] = useState(false);
  const [pending, setPending] = useState<string | null>(props.newEmail);
  const hydrated = useHydrated();
  const { register, handleSubmit, reset, setError, formState } = useForm<Values>({ resolver: zodResolver(profileSchema), defaultValues: saved });

  const submit = handleSubmit(async (values) => {
    try {
      const { updateUser } = await graphqlRequest(UPDATE_PROFILE, { id: props.id, set: values });
      if (!updateUser) throw new Error('profile not found');
      const asked = values.email.toLowerCase() !== saved.email.toLowerCase();
      const next = { displayName: updateUser.displayName, email: updateUser.email };
      setSaved(next);
      setPending(updateUser.newEmail);
      reset(next);
      setEditing(false);
      for (const el of document.querySelectorAll('[data-profile-name]')) el.textContent = updateUser.displayName;
      // A new address takes effect from the link sent to it: say where to look.
      showToast({ type: 'success', message: asked ? t('success.emailChangeSent', { email: values.email }) : t('success.profileSaved') });
    } catch (error) {
      const { code, message } = apiErrorOf(error);
      if (code === 'conflict' && message === t('errors.emailTaken')) setError('email', { message: t('errors.emailTaken') });
      else showToast({ type: 'error', message: t('errors.generic') });
    }
  });

  if (editing) {
    return (
      <form onSubmit={submit} noValidate className="flex flex-col gap-3" aria-label={t('profile.edit')}>
        <TextInput label={t('profile.name')} required autoComplete="name" error={formState.errors.displayName?.message} {...register('displayName')} />
        <TextInput label={t('profile.email')} type="email" required autoComplete="email" error={formState.errors.email?.message} {...register('email')} />
        <div className="flex justify-end gap-2">
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => {
              reset(saved);
              setEditing(false);
            }}
          >
            {t('profile.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={formState.isSubmitting}>
            {t('profile.save')}
          </button>
        </div>
      </form>
    );
  }
  return (
    <div className="flex items-start justify-between gap-2">
      <dl className="grid grid-cols-[4.5rem_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-muted">{t('profile.name')}</dt>
        <dd className="font-semibold">{saved.displayName}</dd>
        <dt className="text-muted">{t('profile.email')}</dt>
        <dd>{saved.email}</dd>
        {pending ? <dd className="col-span-2 text-xs text-muted">{t('profile.pendingEmail', { email: pending })}</dd> : null}
      </dl>
      {props.canEdit && hydrated ? (
        <button
          type="button"
          className="rounded p-1 text-primary hover:bg-primary-soft"
          aria-label={t('profile.edit')}
          title={t('profile.edit')}
          onClick={() => setEditing(true)}
        >
          <Icon path={mdiPencil} />
        </button>
      ) : props.canEdit ? (
        <a className="rounded p-1 text-primary hover:bg-primary-soft" href={props.profileHref} aria-label={t('profile.edit')} title={t('profile.edit')}>
          <Icon path={mdiPencil} />
        </a>
      ) : null}
    </div>
  );
}
