// hasura-auth's anonymous sign-in and deanonymizing routes over the anonymous service.
import { z } from 'zod';
import type { Services } from '#server/services.ts';
import { createAnonymousService } from '#server/auth/anonymous.ts';
import { email, parse, password } from '#server/auth/inputs.ts';
import { signInOptions } from './passwordless.ts';
import { bearer, callerOf, OK, post, whenEnabled, type RouteContext, type Routes } from './http.ts';

const bodies = {
  signIn: z.strictObject({
    displayName: z.string().trim().min(1).max(120).optional(),
    locale: z.string().min(2).max(10).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  // hasura-auth's body; deanonymizing to a phone number is not offered (invalid-request).
  deanonymize: z.strictObject({
    signInMethod: z.enum(['email-password', 'passwordless']),
    connection: z.enum(['email']).optional(),
    email,
    password: password.optional(),
    options: signInOptions,
  }),
};

export function anonymousRoutes(services: Services, context: RouteContext): Routes {
  const anonymous = createAnonymousService(services.auth);
  const caller = (req: Parameters<typeof callerOf>[0]) => callerOf(req, context);
  return whenEnabled(services.auth.methods.anonymous, {
    'POST /signin/anonymous': post(async (raw, req) => {
      const body = parse(bodies.signIn, raw);
      return { session: await anonymous.signIn(body, caller(req)), mfa: null };
    }),
    'POST /user/deanonymize': post(async (raw, req) => {
      const session = await services.auth.authenticate(bearer(req));
      const body = parse(bodies.deanonymize, raw);
      await anonymous.deanonymize(
        session,
        {
          signInMethod: body.signInMethod,
          email: body.email,
          password: body.password,
          displayName: body.options?.displayName,
          locale: body.options?.locale,
          defaultRole: body.options?.defaultRole,
          allowedRoles: body.options?.allowedRoles,
          redirectTo: body.options?.redirectTo,
        },
        caller(req),
      );
      return OK;
    }),
  });
}
