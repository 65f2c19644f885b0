// The users screen's dialogs (add a user, confirm a deletion, step-up): their own chunk, loaded
// when one opens, so the list hydrates without Headless UI, react-hook-form or zod.
// First: zod is told not to compile (CSP) before any schema module is evaluated.
import '#lib/zod-jitless.ts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Modal, ModalActions } from '#components/Modal.tsx';
import { TextInput } from '#components/TextInput.tsx';
import { hasCode, hasReason } from '#lib/errors.ts';
import { apiErrorOf, graphqlRequest } from '#lib/graphql-client.ts';
import { failureMessage, noReply, userNow } from './failure.ts';
import { dropAddDraft, keepAddDraft, readAddDraft } from './add-draft.ts';
import { t } from '#lib/i18n.ts';
import { roleLabels, roles, type Role } from '#lib/roles.ts';
import { showToast } from '#lib/toasts.ts';
import { DELETE_USER, INSERT_USER, type UserListItem } from '#lib/users/user-list.ts';
import { addUserSchema } from '#lib/users/users.ts';
import type { StepUpFactors } from '#lib/users/user-list.ts';

function failure(error: unknown) {
  showToast({ type: 'error', message: failureMessage(error) });
}

type AddValues = { displayName: string; email: string; defaultRole: Role };

export function AddUserDialog(props: { factors: StepUpFactors; onClose: () => void; returnFocus: () => HTMLElement | null }) {
  const [stepUp, setStepUp] = useState(false);
  // What a reload left typed in this tab comes back (walk31 F8).
  const [restored] = useState(readAddDraft);
  const { register, handleSubmit, setError, formState, watch } = useForm<AddValues>({
    resolver: zodResolver(addUserSchema),
    defaultValues: restored ?? { displayName: '', email: '', defaultRole: 'mechanic' },
  });
  const { displayName, email, defaultRole } = watch();
  useEffect(() => keepAddDraft({ displayName, email, defaultRole }), [displayName, email, defaultRole]);
  // Typed and not added yet: the page's leave guard asks before a reload or a link loses it.
  const unsaved = displayName.trim() !== '' || email.trim() !== '' || defaultRole !== 'mechanic';
  const close = () => {
    dropAddDraft();
    props.onClose();
  };
  const submit = handleSubmit(async (values) => {
    try {
      await graphqlRequest(INSERT_USER, { object: values });
      showToast({ type: 'success', message: t('users.added') });
      close();
    } catch (error) {
      if (needsStepUp(error)) return setStepUp(true);
      const refusal = apiErrorOf(error);
      if (hasCode(refusal, 'conflict') && hasReason(refusal, 'email-already-in-use')) setError('email', { message: t('errors.emailTaken') });
      else failure(error);
    }
  });
  if (stepUp) {
    return (
      <Modal title={t('security.stepUpTitle')} onClose={close} returnFocus={props.returnFocus}>
        <StepUpForm
          factors={props.factors}
          onDone={() => {
            setStepUp(false);
            void submit();
          }}
          onCancel={close}
        />
      </Modal>
    );
  }
  return (
    <Modal title={t('users.addTitle')} onClose={close} returnFocus={props.returnFocus}>
      <p className="mb-4 text-sm text-muted">{t('users.addHint')}</p>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4" data-guard={unsaved ? '' : undefined}>
        <TextInput label={t('users.name')} required autoComplete="off" error={formState.errors.displayName?.message} {...register('displayName')} />
        <TextInput label={t('users.email')} type="email" required error={formState.errors.email?.message} {...register('email')} />
        <div className="flex flex-col gap-1">
          <label htmlFor="nouveau-role" className="text-sm font-semibold">
            {t('users.role')}
          </label>
          <select id="nouveau-role" className="field-input" {...register('defaultRole')}>
            {roles.map((role) => (
              <option key={role} value={role}>
                {roleLabels[role]}
              </option>
            ))}
          </select>
        </div>
        <ModalActions cancelLabel={t('users.cancel')} onCancel={close} submitLabel={t('users.addSubmit')} busy={formState.isSubmitting} />
      </form>
    </Modal>
  );
}

/** Whether the API asks for a fresh proof of the second factor before the action. */
const needsStepUp = (error: unknown) => hasReason(apiErrorOf(error), 'elevated-claim-required');

/**
 * Step-up (issue 18, item 7): a code of the authenticator app, or a recovery code, proves the
 * user again; `onDone` then runs the action that was refused.
 */
function StepUpForm(props: { factors: StepUpFactors; onDone: () => void; onCancel: () => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: React.SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const res = await fetch('/api/session/elevate', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
      if (res.ok) return props.onDone();
      const body = (await res.json().catch(() => ({}))) as { fields?: { code?: string }; message?: string };
      setError(body.fields?.code ?? (res.status === 429 ? body.message : undefined) ?? t('errors.generic'));
    } catch (error) {
      setError(failureMessage(error));
    }
    setBusy(false);
  };
  const proveWithKey = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { elevateWithSecurityKey } = await import('#islands/security-keys/elevate.ts');
      await elevateWithSecurityKey();
      return props.onDone();
    } catch (failure) {
      const { ceremonyMessage } = await import('#islands/security-keys/ceremony.ts');
      setError(ceremonyMessage(failure));
    }
    setBusy(false);
  };
  if (!props.factors.totp) {
    return (
      <div className="flex flex-col gap-4">
        <p className="text-sm">{t('refusals.elevationRequired')}</p>
        {error ? (
          <p className="alert-error" role="alert">
            {error}
          </p>
        ) : null}
        <ModalActions
          cancelLabel={t('users.cancel')}
          onCancel={props.onCancel}
          submitLabel={t('securityKeys.stepUp')}
          busy={busy}
          onSubmit={() => void proveWithKey()}
        />
      </div>
    );
  }
  return (
    <form onSubmit={(event) => void submit(event)} noValidate className="flex flex-col gap-4">
      <p className="text-sm">{t('refusals.elevationRequired')}</p>
      {props.factors.securityKey ? (
        <button type="button" className="btn btn-secondary self-start" disabled={busy} onClick={() => void proveWithKey()}>
          {t('securityKeys.stepUp')}
        </button>
      ) : null}
      <TextInput
        label={t('security.code')}
        name="code"
        required
        autoFocus
        autoComplete="one-time-code"
        value={code}
        onChange={(event) => setCode(event.target.value)}
        error={error}
      />
      <ModalActions cancelLabel={t('users.cancel')} onCancel={props.onCancel} submitLabel={t('signIn.codeSubmit')} busy={busy} />
    </form>
  );
}

/** The step-up on its own, for an action of the list (a role changed). */
export function StepUpDialog(props: { factors: StepUpFactors; onDone: () => void; onClose: () => void; returnFocus: () => HTMLElement | null }) {
  return (
    <Modal title={t('security.stepUpTitle')} onClose={props.onClose} returnFocus={props.returnFocus}>
      <StepUpForm
        factors={props.factors}
        onDone={() => {
          props.onClose();
          props.onDone();
        }}
        onCancel={props.onClose}
      />
    </Modal>
  );
}

export function DeleteUserDialog(props: { factors: StepUpFactors; user: UserListItem; onClose: () => void; returnFocus: () => HTMLElement | null }) {
  const [busy, setBusy] = useState(false);
  const [stepUp, setStepUp] = useState(false);
  const deleted = () => {
    showToast({ type: 'success', message: t('users.deleted') });
    props.onClose();
  };
  const confirm = async () => {
    setBusy(true);
    try {
      await graphqlRequest(DELETE_USER, { id: props.user.id });
      deleted();
    } catch (error) {
      // Gone already (walk31 F11): a first try whose reply was lost, or another admin, deleted it.
      if (hasCode(apiErrorOf(error), 'not-found') || (noReply(error) && (await userNow(props.user.id)) === null)) return deleted();
      if (needsStepUp(error)) setStepUp(true);
      else failure(error);
      setBusy(false);
    }
  };
  if (stepUp) {
    return (
      <Modal title={t('security.stepUpTitle')} onClose={props.onClose} returnFocus={props.returnFocus} role="alertdialog">
        <StepUpForm
          factors={props.factors}
          onDone={() => {
            setStepUp(false);
            void confirm();
          }}
          onCancel={props.onClose}
        />
      </Modal>
    );
  }
  return (
    <Modal title={t('users.deleteTitle')} onClose={props.onClose} returnFocus={props.returnFocus} role="alertdialog">
      <p className="mb-4">{t('users.deleteText', { name: props.user.displayName })}</p>
      <ModalActions
        cancelLabel={t('users.cancel')}
        onCancel={props.onClose}
        submitLabel={t('users.deleteConfirm')}
        busy={busy}
        danger
        onSubmit={() => void confirm()}
      />
    </Modal>
  );
}
