// hasura-auth's HTTP API (SPEC §7.1) at /api/auth, over the auth service.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendError, sendJson } from '#server/http/json.ts';
import type { Services } from '#server/services.ts';
import { DomainError } from '#server/errors.ts';
import { mfaRoutes } from './routes/mfa.ts';
import { oidcRoutes } from './routes/oidc.ts';
import { webauthnRoutes } from './routes/webauthn.ts';
import { authOptions, email, parse, password, redirectTo } from './inputs.ts';
import { bearer, callerOf, OK, post, queryOf, type RouteContext, type Routes } from './routes/http.ts';
import { anonymousRoutes } from './routes/anonymous.ts';
import { passwordlessRoutes } from './routes/passwordless.ts';

const options = authOptions;

const bodies = {
  signIn: z.strictObject({ email, password }),
  signUp: z.strictObject({ email, password, options }),
  token: z.strictObject({ refreshToken: z.string().min(1).max(512) }),
  signOut: z.strictObject({ refreshToken: z.string().max(512).optional(), all: z.boolean().optional() }),
  reset: z.strictObject({ email, options }),
  // currentPassword: our addition to hasura-auth's body, the proof a signed-in change needs.
  password: z.strictObject({ newPassword: password, ticket: z.string().max(512).optional(), currentPassword: password.optional() }),
  verification: z.strictObject({ email, options }),
  emailChange: z.strictObject({ newEmail: email, options }),
  verify: z.strictObject({ ticket: z.string().min(1).max(512), type: z.string().max(40).optional(), redirectTo }),
  createPat: z.strictObject({
    expiresAt: z.iso.datetime({ offset: true }).transform((value) => new Date(value)),
    metadata: z
      .record(z.string().max(64), z.union([z.string().max(500), z.number()]))
      .refine((metadata) => Object.keys(metadata).length <= 20, 'at most 20 entries')
      .optional(),
  }),
  elevate: z.strictObject({ password: z.string().min(1).max(256) }),
  signInPat: z.strictObject({ personalAccessToken: z.string().min(1).max(512) }),
};

export function createAuthRoutes(services: Services, context: RouteContext) {
  const { auth } = services;
  const caller = (req: IncomingMessage) => callerOf(req, context);

  const routes: Routes = {
    ...mfaRoutes(services, context),
    ...oidcRoutes(services, context),
    ...passwordlessRoutes(services, context),
    ...anonymousRoutes(services, context),
    ...webauthnRoutes(services, context),
    'POST /signin/email-password': post(async (raw, req) => {
      const body = parse(bodies.signIn, raw);
      return auth.signInEmailPassword(body.email, body.password, caller(req));
    }),
    'POST /signin/pat': post(async (raw, req) => {
      const body = parse(bodies.signInPat, raw);
      return { session: await auth.signInPersonalAccessToken(body.personalAccessToken, caller(req)), mfa: null };
    }),
    'POST /pat': post(async (raw, req) => {
      const body = parse(bodies.createPat, raw);
      const session = await auth.authenticate(bearer(req));
      return auth.createPersonalAccessToken(session, { expiresAt: body.expiresAt, metadata: body.metadata ?? {} }, caller(req));
    }),
    'POST /signup/email-password': post(async (raw, req) => {
      const body = parse(bodies.signUp, raw);
      return auth.signUpEmailPassword(
        {
          email: body.email,
          password: body.password,
          displayName: body.options?.displayName,
          locale: body.options?.locale,
          defaultRole: body.options?.defaultRole,
          redirectTo: body.options?.redirectTo,
        },
        caller(req),
      );
    }),
    'POST /token': post(async (raw, req) => {
      const body = parse(bodies.token, raw);
      return auth.refresh(body.refreshToken, caller(req));
    }),
    'POST /signout': post(async (raw, req) => {
      const body = parse(bodies.signOut, raw);
      const token = bearer(req);
      const userId = token ? (await auth.issuer.verify(token))?.userId : undefined;
      await auth.signOut({ refreshToken: body.refreshToken, all: body.all, userId });
      return OK;
    }),
    // Our addition to hasura-auth's step-up: the current password, for an account without a
    // second factor (decision 048); the answer is the renewed session, as /elevate/totp's.
    'POST /elevate/password': post(async (raw, req) => {
      const body = parse(bodies.elevate, raw);
      const session = await auth.authenticate(bearer(req));
      await auth.proveWithPassword(session, body.password, caller(req));
      return { session: await auth.renewSession(session) };
    }),
    'POST /user/password/reset': post(async (raw, req) => {
      const body = parse(bodies.reset, raw);
      await auth.requestPasswordReset(body.email, body.options?.redirectTo, caller(req));
      return OK;
    }),
    'POST /user/password': post(async (raw, req) => {
      const body = parse(bodies.password, raw);
      if (body.ticket) {
        await auth.changePassword({ newPassword: body.newPassword, ticket: body.ticket }, caller(req));
      } else {
        const session = await auth.authenticate(bearer(req));
        await auth.changePassword({ newPassword: body.newPassword, session, currentPassword: body.currentPassword }, caller(req));
      }
      return OK;
    }),
    'POST /user/email/send-verification-email': post(async (raw, req) => {
      const body = parse(bodies.verification, raw);
      await auth.sendVerificationEmail(body.email, body.options?.redirectTo, caller(req));
      return OK;
    }),
    'POST /user/email/change': post(async (raw, req) => {
      const body = parse(bodies.emailChange, raw);
      const session = await auth.authenticate(bearer(req));
      await auth.changeEmail(session.user.id, body.newEmail, body.options?.redirectTo, caller(req), session);
      return OK;
    }),
    'GET /user': async (req, res) => {
      const { user } = await auth.authenticate(bearer(req));
      sendJson(res, 200, await auth.getUser(user.id));
    },
    'GET /verify': async (req, res) => {
      const input = parse(bodies.verify, queryOf(req));
      const location = await auth.verify(input, caller(req));
      res.writeHead(302, { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
      res.end();
    },
  };

  /** Handles a request whose path starts with /api/auth; `subpath` is the rest. */
  return async function handleAuth(req: IncomingMessage, res: ServerResponse, subpath: string): Promise<void> {
    const route = routes[`${req.method} ${subpath}`];
    try {
      if (!route) {
        const known = Object.keys(routes).some((key) => key.endsWith(` ${subpath}`));
        req.resume();
        throw known
          ? new DomainError('not-allowed', 'method-not-allowed', 'Method not allowed')
          : new DomainError('not-found', 'route-not-found', 'Route not found');
      }
      await route(req, res);
    } catch (error) {
      if (error instanceof DomainError) return sendError(res, error);
      throw error;
    }
  };
}
