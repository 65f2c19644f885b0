// A short-lived access token for the islands' API calls; the refresh token stays in the cookie.
// Minted here, not on every request: server pages call the services in process, as their viewer.
import type { APIRoute } from 'astro';
import { decodeJwt } from 'jose';
import { json, jsonError } from '#lib/json-endpoint.server.ts';

export const GET: APIRoute = async ({ locals }) => {
  const { session: open, services } = locals;
  if (!open) return jsonError(401, 'unauthenticated-user', 'User is not authenticated');
  const accessToken = await services.auth.accessTokenFor(open);
  const { exp } = decodeJwt(accessToken);
  return json(200, { accessToken, expiresAt: (exp ?? 0) * 1000 });
};
