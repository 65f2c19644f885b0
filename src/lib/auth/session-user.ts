import type { Role } from '#lib/roles.ts';

/** `newEmail`: an address asked for and not confirmed yet. */
export type SessionUser = { id: string; displayName: string; email: string | null; newEmail: string | null; role: Role; emailVerified: boolean };
