// Decision 034: a user's activity (admins only, by the route table and the API) as a CSV for French Excel, the same rows as the page (its
// action filter kept). Guarded like the page; an unknown user gets the
// page's French 404 at this same URL.
import type { APIRoute } from 'astro';
import * as screen from '#lib/audit/activity.screen.ts';

export const GET: APIRoute = async ({ params, url, locals, rewrite }) => {
  const { action } = screen.read(url.searchParams);
  return (await screen.csv(locals, 'user', params.userId, action)) ?? rewrite(`/users/${encodeURIComponent(params.userId ?? '')}/activity`);
};
