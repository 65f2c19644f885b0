// A short-lived access token for the islands' API calls; the refresh token stays in the cookie.
import type { APIRoute } from 'astro';
import { decodeJwt } from 'jose';
import { json, jsonError } from '#lib/json-endpoint.ts';

export const GET: APIRoute = ({ locals }) => {
  if (!locals.user || !locals.accessToken) return jsonError(401, 'unauthenticated-user', 'User is not authenticated');
  const { exp } = decodeJwt(locals.accessToken);
  return json(200, { accessToken: locals.accessToken, expiresAt: (exp ?? 0) * 1000 });
};
