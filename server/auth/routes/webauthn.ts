// hasura-auth's security-key routes over the WebAuthn service.
import type { IncomingMessage } from 'node:http';
import type { AuthService } from '#server/auth/service.ts';
import { webauthnBodies, type WebauthnService } from '#server/auth/webauthn.ts';
import { parse } from '#server/auth/inputs.ts';
import { bearer, callerOf, post, whenEnabled, type RouteContext, type Routes } from './http.ts';

/** hasura-auth's security-key routes, answering disabled-endpoint while the method is off. */
export function webauthnRoutes(services: { auth: AuthService; webauthn: WebauthnService }, context: RouteContext): Routes {
  const { auth, webauthn } = services;
  const caller = (req: IncomingMessage) => callerOf(req, context);
  return whenEnabled(auth.methods.webauthn, {
    'POST /signup/webauthn': post(async (raw, req) => webauthn.signUpOptions(parse(webauthnBodies.signUp, raw), caller(req))),
    'POST /signup/webauthn/verify': post(async (raw, req) => webauthn.signUp(parse(webauthnBodies.signUpVerify, raw), caller(req))),
    'POST /signin/webauthn': post(async (raw, req) => webauthn.signInOptions(parse(webauthnBodies.signIn, raw).email, caller(req))),
    'POST /signin/webauthn/verify': post(async (raw, req) => ({
      session: await webauthn.signIn(parse(webauthnBodies.signInVerify, raw), caller(req)),
      mfa: null,
    })),
    'POST /user/webauthn/add': post(async (raw, req) => {
      parse(webauthnBodies.add, raw);
      const session = await auth.authenticate(bearer(req));
      return webauthn.addOptions(session, caller(req));
    }),
    'POST /user/webauthn/verify': post(async (raw, req) => {
      const body = parse(webauthnBodies.addVerify, raw);
      return webauthn.addSecurityKey(await auth.authenticate(bearer(req)), body, caller(req));
    }),
    'POST /elevate/webauthn': post(async (raw, req) => {
      const { email } = parse(webauthnBodies.elevate, raw);
      return webauthn.elevateOptions(await auth.authenticate(bearer(req)), email, caller(req));
    }),
    'POST /elevate/webauthn/verify': post(async (raw, req) => {
      const body = parse(webauthnBodies.elevateVerify, raw);
      return { session: await webauthn.elevate(await auth.authenticate(bearer(req)), body, caller(req)), mfa: null };
    }),
  });
}
