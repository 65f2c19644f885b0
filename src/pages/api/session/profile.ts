// The profile menu's save (SPEC §2.5): name and e-mail of the signed-in user.
import type { APIRoute } from 'astro';
import { json, jsonError, readBody, serviceErrorResponse } from '../../../lib/json-endpoint.ts';
import { profileSchema } from '../../../lib/validation.ts';

export const POST: APIRoute = async ({ request, locals }) => {
  const { user, services } = locals;
  if (!user) return jsonError(401, 'unauthenticated-user', 'User is not authenticated');
  const body = await readBody(request, profileSchema.strict());
  if ('response' in body) return body.response;
  try {
    const row = await services.users.updateProfile({ id: user.id, role: user.role }, body.data);
    return json(200, { displayName: row.displayName, email: row.email });
  } catch (error) {
    return serviceErrorResponse(error);
  }
};
