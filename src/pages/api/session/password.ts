// The update-password dialog (SPEC §2.5): a new password for the signed-in user.
import type { APIRoute } from 'astro';
import { z } from 'zod';
import { json, jsonError, readBody, serviceErrorResponse } from '../../../lib/json-endpoint.ts';
import { password } from '../../../lib/validation.ts';

const schema = z.strictObject({ password: password() });

export const POST: APIRoute = async ({ request, locals, clientAddress }) => {
  const { user, services } = locals;
  if (!user) return jsonError(401, 'unauthenticated-user', 'User is not authenticated');
  const body = await readBody(request, schema);
  if ('response' in body) return body.response;
  try {
    await services.auth.changePassword({ newPassword: body.data.password, userId: user.id }, { ip: clientAddress });
    return json(200, 'OK');
  } catch (error) {
    return serviceErrorResponse(error);
  }
};
