// Step-up from a page (issue 18, item 7): a code of the authenticator app (or a recovery
// code), or a security key's answer to /api/auth/elevate/webauthn's options, elevates the page's
// sign-in for five minutes; the page then does its action again. No token is handed out.
import type { APIRoute } from 'astro';
import { z } from 'zod';
import { isServiceError } from '#lib/auth/errors.server.ts';
import { hasReason } from '#lib/errors.ts';
import { elevateWithKeyBody, securityKeyErrorResponse } from '#lib/auth/security-keys.server.ts';
import { t } from '#lib/i18n.ts';
import { json, jsonError, readBody, serviceErrorResponse } from '#lib/json-endpoint.server.ts';
import { secondFactorSchema } from '#lib/validation.ts';

const body = z.union([elevateWithKeyBody, secondFactorSchema]);

export const POST: APIRoute = async ({ request, locals }) => {
  const { services, session } = locals;
  if (!session) return jsonError(401, 'unauthenticated-user', 'User is not authenticated');
  const read = await readBody(request, body);
  if ('response' in read) return read.response;
  const caller = { ip: locals.clientAddress };
  if ('credential' in read.data) {
    try {
      await services.webauthn.proveKey(session, read.data, caller);
      return json(200, 'OK');
    } catch (error) {
      return securityKeyErrorResponse(error);
    }
  }
  try {
    await services.mfa.elevateTotp(session, read.data.code, caller);
    return json(200, 'OK');
  } catch (error) {
    if (isServiceError(error) && hasReason(error, 'invalid-totp')) {
      return jsonError(400, 'invalid-totp', t('security.codeWrong'), { fields: { code: t('security.codeWrong') } });
    }
    return serviceErrorResponse(error);
  }
};
