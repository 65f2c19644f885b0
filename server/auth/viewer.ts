// Who calls an API: `Authorization: Bearer`, checked against the account as it is now.
import { isRole, type Role } from '#lib/roles.ts';
import type { AuthService } from './service.ts';

export type Viewer = { id: string; role: Role; sessionId: string };
export type ViewerResult = { viewer: Viewer; error: null } | { viewer: null; error: 'none' | 'invalid' };

type HeaderSource = { get(name: string): string | null | undefined };

/**
 * `x-hasura-role` may pick a role among the token's allowed roles, nothing else. The token's
 * sign-in must still be open: signing out ends its access tokens at once, not at their expiry.
 */
export async function resolveViewer(headers: HeaderSource, services: { auth: AuthService }): Promise<ViewerResult> {
  const authorization = headers.get('authorization');
  if (!authorization) return { viewer: null, error: 'none' };
  const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  const claims = token ? await services.auth.issuer.verify(token) : null;
  if (!claims) return { viewer: null, error: 'invalid' };
  const user = (await services.auth.openSession(claims.sessionId, claims.userId))?.user;
  // An ended sign-in, a disabled account, or a role changed since the token was issued: the client refreshes.
  if (!user || user.defaultRole !== claims.defaultRole) return { viewer: null, error: 'invalid' };
  // An anonymous user (decision 030) holds a good token with no role of the application: signed out.
  if (!isRole(user.defaultRole)) return { viewer: null, error: 'none' };
  const requested = headers.get('x-hasura-role');
  if (requested && !claims.allowedRoles.includes(requested)) return { viewer: null, error: 'none' };
  return { viewer: { id: user.id, role: user.defaultRole, sessionId: claims.sessionId }, error: null };
}
