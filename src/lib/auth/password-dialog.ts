// The profile menu's password dialog, refused without a script: /set-password moves the refusal
// to the page the dialog was opened from, which shows the dialog open with its messages
// (decisions 042, 046). The passwords typed are never carried back.
import type { FieldErrors } from '#lib/validation.ts';

/** The cookie of the dialog's refusal, apart from the page's own form refusals (decision 039). */
export const PASSWORD_DIALOG_REFUSAL = 'atelier_refus_mdp';

export type PasswordDialogRefusal = { errors: FieldErrors; formError: string | null };
