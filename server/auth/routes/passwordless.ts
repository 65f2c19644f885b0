// hasura-auth's passwordless sign-in routes (decision 030) over the passwordless service.
import { z } from 'zod';
import { E164 } from '#lib/auth/passwordless.ts';
import type { AuthService } from '#server/auth/service.ts';
import type { PasswordlessService } from '#server/auth/passwordless.ts';
import { authOptions, email, parse } from '#server/auth/inputs.ts';
import { callerOf, OK, post, whenEnabled, type RouteContext, type Routes } from './http.ts';

/** What hasura-auth's clients send as `options`; only `redirectTo` means something here. */
export const signInOptions = authOptions;

const phoneNumber = z.string().max(16).regex(E164);
const otp = z.string().min(1).max(64);

const bodies = {
  emailLink: z.strictObject({ email, options: signInOptions }),
  emailCode: z.strictObject({ email, options: signInOptions }),
  emailCodeVerify: z.strictObject({ email, otp }),
  sms: z.strictObject({ phoneNumber, options: signInOptions }),
  smsVerify: z.strictObject({ phoneNumber, otp }),
};

export function passwordlessRoutes({ passwordless, auth }: { passwordless: PasswordlessService; auth: AuthService }, context: RouteContext): Routes {
  const { methods } = auth;
  const caller = (req: Parameters<typeof callerOf>[0]) => callerOf(req, context);
  return {
    ...whenEnabled(methods.emailLink, {
      'POST /signin/passwordless/email': post(async (raw, req) => {
        const body = parse(bodies.emailLink, raw);
        await passwordless.sendSignInLink(body.email, body.options?.redirectTo, caller(req));
        return OK;
      }),
    }),
    ...whenEnabled(methods.emailOtp, {
      'POST /signin/otp/email': post(async (raw, req) => {
        const body = parse(bodies.emailCode, raw);
        await passwordless.sendEmailCode(body.email, caller(req));
        return OK;
      }),
      'POST /signin/otp/email/verify': post(async (raw, req) => {
        const body = parse(bodies.emailCodeVerify, raw);
        return passwordless.verifyEmailCode(body.email, body.otp, caller(req));
      }),
    }),
    ...whenEnabled(methods.sms, {
      'POST /signin/passwordless/sms': post(async (raw, req) => {
        const body = parse(bodies.sms, raw);
        await passwordless.sendSmsCode(body.phoneNumber, caller(req));
        return OK;
      }),
      'POST /signin/passwordless/sms/otp': post(async (raw, req) => {
        const body = parse(bodies.smsVerify, raw);
        return passwordless.verifySmsCode(body.phoneNumber, body.otp, caller(req));
      }),
    }),
  };
}
