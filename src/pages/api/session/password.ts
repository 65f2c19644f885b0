// The update-password dialog (SPEC §2.5): a new password for the signed-in user, who proves
// it is them with the current one; every other sign-in of the user then ends.
import type { APIRoute } from 'astro';
import { isServiceError } from '#lib/auth/errors.server.ts';
import { hasReason } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import { json, jsonError, readBody, serviceErrorResponse } from '#lib/json-endpoint.server.ts';
import { updatePasswordSchema } from '#lib/validation.ts';

export const POST: APIRoute = async ({ request, locals }) => {
  const { services, session } = locals;
  if (!session) return jsonError(401, 'unauthenticated-user', 'User is not authenticated');
  const body = await readBody(request, updatePasswordSchema);
  if ('response' in body) return body.response;
  try {
    await services.auth.changePassword({ newPassword: body.data.password, session, currentPassword: body.data.currentPassword }, { ip: locals.clientAddress });
    return json(200, 'OK');
  } catch (error) {
    if (isServiceError(error) && hasReason(error, 'invalid-current-password')) {
      return jsonError(400, 'invalid-current-password', t('errors.currentPasswordWrong'), { fields: { currentPassword: t('errors.currentPasswordWrong') } });
    }
    return serviceErrorResponse(error);
  }
};
