// Step-up for the islands (issue 18, item 7): a code of the authenticator app, or a recovery
// code, elevates the page's sign-in for five minutes; the island then tries its action again.
import type { APIRoute } from 'astro';
import { isServiceError } from '#lib/auth/errors.ts';
import { t } from '#lib/i18n.ts';
import { json, jsonError, readBody, serviceErrorResponse } from '#lib/json-endpoint.ts';
import { secondFactorSchema } from '#lib/validation.ts';

export const POST: APIRoute = async ({ request, locals }) => {
  const { services, session } = locals;
  if (!session) return jsonError(401, 'unauthenticated-user', 'User is not authenticated');
  const body = await readBody(request, secondFactorSchema);
  if ('response' in body) return body.response;
  try {
    await services.mfa.elevateTotp(session, body.data.code, { ip: locals.clientAddress });
    return json(200, 'OK');
  } catch (error) {
    if (isServiceError(error) && error.reason === 'invalid-totp') {
      return jsonError(400, 'invalid-totp', t('security.codeWrong'), { fields: { code: t('security.codeWrong') } });
    }
    return serviceErrorResponse(error);
  }
};
