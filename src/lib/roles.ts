// The four roles of SPEC §1, shared by the server and the pages.
import { t } from '#lib/i18n.ts';

export const roles = ['app_admin', 'diagnostician', 'mechanic', 'commercial'] as const;
export type Role = (typeof roles)[number];

// Each key written out: the browser build puts the message in its place (decision 025).
export const roleLabels: Record<Role, string> = {
  app_admin: t('roles.app_admin'),
  diagnostician: t('roles.diagnostician'),
  mechanic: t('roles.mechanic'),
  commercial: t('roles.commercial'),
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}
