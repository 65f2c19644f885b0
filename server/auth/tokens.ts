// Access tokens: HS256 JWTs carrying the Hasura claims of ARCHITECTURE.md.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';

export const CLAIMS = 'https://hasura.io/jwt/claims';

export type AccessClaims = {
  userId: string;
  defaultRole: string;
  allowedRoles: string[];
  isAnonymous: boolean;
  /** The sign-in (grant) the token belongs to: every API checks it is still open. */
  sessionId: string;
  /** A proof of the second factor within ELEVATION_MS: hasura-auth's `x-hasura-auth-elevated`. */
  elevated?: boolean;
};

export type TokenIssuer = {
  sign(claims: AccessClaims): Promise<string>;
  /** Returns the claims, or null for a forged, expired or malformed token. */
  verify(token: string): Promise<AccessClaims | null>;
  expiresIn: number;
};

export function createTokenIssuer(options: { secret: string; issuer: string; audience: string; expiresIn: number }): TokenIssuer {
  const key = new TextEncoder().encode(options.secret);
  return {
    expiresIn: options.expiresIn,
    sign: (c) =>
      new SignJWT({
        [CLAIMS]: {
          'x-hasura-allowed-roles': c.allowedRoles,
          'x-hasura-default-role': c.defaultRole,
          'x-hasura-user-id': c.userId,
          'x-hasura-user-is-anonymous': String(c.isAnonymous),
          ...(c.elevated ? { 'x-hasura-auth-elevated': c.userId } : {}),
        },
        // OpenID's `sid`: the grant, so that ending a sign-in ends its tokens at once.
        sid: c.sessionId,
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(c.userId)
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setIssuedAt()
        .setExpirationTime(`${options.expiresIn}s`)
        .sign(key),
    verify: async (token) => {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: options.issuer,
          audience: options.audience,
          requiredClaims: ['exp', 'sub', 'sid'],
        });
        const claims = payload[CLAIMS] as Record<string, unknown> | undefined;
        const userId = claims?.['x-hasura-user-id'];
        const defaultRole = claims?.['x-hasura-default-role'];
        const allowedRoles = claims?.['x-hasura-allowed-roles'];
        if (typeof userId !== 'string' || userId !== payload.sub || typeof defaultRole !== 'string') return null;
        if (!Array.isArray(allowedRoles) || !allowedRoles.every((r) => typeof r === 'string')) return null;
        if (typeof payload.sid !== 'string') return null;
        return {
          sessionId: payload.sid,
          userId,
          defaultRole,
          allowedRoles: allowedRoles as string[],
          isAnonymous: claims?.['x-hasura-user-is-anonymous'] === 'true',
          elevated: claims?.['x-hasura-auth-elevated'] === userId,
        };
      } catch (error) {
        if (error instanceof errors.JOSEError || error instanceof TypeError) return null;
        throw error;
      }
    },
  };
}

/** 256 bits of randomness, URL-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/**
 * The token that replaces `token` on rotation. Derived, not drawn, so that requests that
 * present the same old token during the grace window get the same new one without the
 * database ever holding a usable token.
 */
export function successorToken(secret: string, token: string): string {
  return createHmac('sha256', secret).update(`refresh-rotation:${token}`).digest('base64url');
}
