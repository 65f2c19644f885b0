// Who calls an API: `Authorization: Bearer`, checked against the account as it is now.
import { isRole, type Role } from '../../src/lib/roles.ts';
import type { Services } from '../app.ts';

export type Viewer = { id: string; role: Role };
export type ViewerResult = { viewer: Viewer; error: null } | { viewer: null; error: 'none' | 'invalid' };

type HeaderSource = { get(name: string): string | null | undefined };

/** `x-hasura-role` may pick a role among the token's allowed roles, nothing else. */
export async function resolveViewer(headers: HeaderSource, services: Pick<Services, 'auth' | 'users'>): Promise<ViewerResult> {
  const authorization = headers.get('authorization');
  if (!authorization) return { viewer: null, error: 'none' };
  const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  const claims = token ? await services.auth.issuer.verify(token) : null;
  if (!claims) return { viewer: null, error: 'invalid' };
  const user = await services.users.get(claims.userId);
  // A disabled account, or a role changed since the token was issued: the client refreshes.
  if (!user || user.disabled || user.defaultRole !== claims.defaultRole || !isRole(user.defaultRole)) {
    return { viewer: null, error: 'invalid' };
  }
  const requested = headers.get('x-hasura-role');
  if (requested && !claims.allowedRoles.includes(requested)) return { viewer: null, error: 'none' };
  return { viewer: { id: user.id, role: user.defaultRole }, error: null };
}
