// Decision 034: a dossier's activity as a CSV for French Excel, the same rows as the page (its
// action filter kept). Guarded by the route table like the page; an unknown dossier gets the
// page's French 404 at this same URL.
import type { APIRoute } from 'astro';
import * as screen from '#lib/audit/activity.screen.ts';

export const GET: APIRoute = async ({ params, url, locals, rewrite }) => {
  const { action } = screen.read(url.searchParams);
  return (await screen.csv(locals, 'dossier', params.modelId, action)) ?? rewrite(`/gearbox/${encodeURIComponent(params.modelId ?? '')}/activity`);
};
