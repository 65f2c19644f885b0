import type { Role } from './roles.ts';

export type SessionUser = { id: string; displayName: string; email: string; role: Role; emailVerified: boolean };
