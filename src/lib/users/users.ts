// The users screen's forms (SPEC §2.9, §9): the admin's posts and the user schema, shared by
// the page (on the server) and the island's add dialog. The list itself is user-list.ts.
import { isUuid } from '#lib/ids.ts';
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { roles } from '#lib/roles.ts';
import { email, required } from '#lib/validation.ts';

/** The admin's actions as the screen posts them without JavaScript (the island calls the API). */
export const userActions = ['ajouter', 'role', 'desactiver', 'activer', 'deconnecter', 'renvoyer', 'supprimer'] as const;
export const userActionSchema = z.object({
  action: z.enum(userActions),
  id: z.string().refine(isUuid).optional(),
  defaultRole: z.enum(roles).optional(),
});

/** A user, as every form and the API check it: each form picks its fields. */
export const userSchema = z.object({
  displayName: required().max(120, t('validation.maxLength', { max: 120 })),
  email: email(),
  defaultRole: z.enum(roles, { error: (issue) => (issue.input === undefined || issue.input === '' ? t('validation.required') : t('refusals.unknownRole')) }),
  disabled: z.boolean(),
});
export const addUserSchema = userSchema.pick({ displayName: true, email: true, defaultRole: true });
/** The profile menu's form: one's own name and e-mail. */
export const profileSchema = userSchema.pick({ displayName: true, email: true });
