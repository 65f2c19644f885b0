// The screen module of the redirect validation screen (`/jump?to=`, SPEC §2.6, decision 065):
// what its URL may say and its one post, the "not a robot" check. It only ever continues to a
// page of this application (a same-origin path).
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { readQuery } from '#lib/page-query.ts';
import { safeRedirect } from '#lib/redirects.ts';

/** `/jump?to=`: the page to continue to, checked by `safeRedirect`. */
export const querySchema = z.object({ to: z.string().nullable().catch(null) });

/** The path to continue to, or null when the URL names none of this application's pages. */
export const read = (params: URLSearchParams, publicUrl: string) => safeRedirect(readQuery(querySchema, params).to, publicUrl)?.path ?? null;

/** The check posted: on to the page (303), or the message to show beside the unticked box (400). */
export async function post(astro: AstroGlobal, target: string): Promise<Response | { checkError: string }> {
  const form = await astro.request.formData().catch(() => new FormData());
  if (form.get('robot') === 'on') return astro.redirect(target, 303);
  astro.response.status = 400;
  return { checkError: t('jump.robotRequired') };
}
