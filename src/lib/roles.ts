// The four roles of SPEC §1, shared by the server and the pages.
import { fr } from '#lib/i18n/fr.ts';

export const roles = ['app_admin', 'diagnostician', 'mechanic', 'commercial'] as const;
export type Role = (typeof roles)[number];

export const roleLabels: Record<Role, string> = fr.roles;

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}
