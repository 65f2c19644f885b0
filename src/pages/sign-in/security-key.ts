// The end of a sign-in with a security key (decision 028): the sign-in page's island ran the
// ceremony with /api/auth/signin/webauthn's options; the key's answer is checked here, in
// process, and the page session written, as the password form does. Answers where to go.
import type { APIRoute } from 'astro';
import { cookieOf, writeSession } from '#lib/auth/session.server.ts';
import { securityKeyErrorResponse, signInWithKeyBody } from '#lib/auth/security-keys.server.ts';
import { json, jsonError, readBody } from '#lib/json-endpoint.server.ts';
import { safeRedirect } from '#lib/redirects.ts';
import { HOME } from '#lib/routes.ts';

export const POST: APIRoute = async ({ request, locals, cookies }) => {
  const { services } = locals;
  if (!services.auth.methods.webauthn) return jsonError(409, 'disabled-endpoint', 'This endpoint is disabled');
  const body = await readBody(request, signInWithKeyBody);
  if ('response' in body) return body.response;
  try {
    const session = await services.webauthn.signIn({ credential: body.data.credential }, { ip: locals.clientAddress });
    await writeSession(cookies, services, cookieOf(session));
    return json(200, { location: safeRedirect(body.data.redirectTo, services.config.publicUrl)?.path ?? HOME });
  } catch (error) {
    return securityKeyErrorResponse(error);
  }
};
