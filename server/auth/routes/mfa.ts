// hasura-auth's TOTP routes over the MFA service.
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { sendJson } from '#server/http/json.ts';
import type { AuthService } from '#server/auth/service.ts';
import type { MfaService } from '#server/auth/mfa.ts';
import { parse } from '#server/auth/inputs.ts';
import { bearer, callerOf, post, whenEnabled, type RouteContext, type Routes } from './http.ts';

const code = z.string().trim().min(1).max(32);
const bodies = {
  signIn: z.strictObject({ ticket: z.string().max(128).optional(), otp: code }),
  userMfa: z.strictObject({ code, activeMfaType: z.enum(['totp', '']) }),
  elevate: z.strictObject({ otp: code }),
};

export function mfaRoutes({ auth, mfa }: { auth: AuthService; mfa: MfaService }, context: RouteContext): Routes {
  const caller = (req: IncomingMessage) => callerOf(req, context);
  return whenEnabled(auth.methods.totp, {
    'GET /mfa/totp/generate': async (req, res) => {
      const session = await auth.authenticate(bearer(req));
      sendJson(res, 200, await mfa.generateTotp(session));
    },
    'POST /user/mfa': post(async (raw, req) => {
      const body = parse(bodies.userMfa, raw);
      const session = await auth.authenticate(bearer(req));
      if (body.activeMfaType === 'totp') return mfa.activateTotp(session, body.code, caller(req));
      await mfa.deactivateTotp(session, body.code, caller(req));
      return 'OK';
    }),
    'POST /signin/mfa/totp': post(async (raw, req) => {
      const body = parse(bodies.signIn, raw);
      return { session: await mfa.signInTotp(body.ticket, body.otp, caller(req)), mfa: null };
    }),
    'POST /elevate/totp': post(async (raw, req) => {
      const body = parse(bodies.elevate, raw);
      const session = await auth.authenticate(bearer(req));
      await mfa.elevateTotp(session, body.otp, caller(req));
      return { session: await auth.renewSession(session) };
    }),
  });
}
