// The security page's keys (decision 028): the add island posts the new key's answer here as
// JSON (kept, then a flashed toast for the reload); the section's rename and delete forms post
// here and come back to the page with their toast. Every change is the signed-in user's own key.
import type { APIRoute } from 'astro';
import { z } from 'zod';
import { isUuid } from '#lib/ids.ts';
import { isServiceError } from '#lib/auth/errors.server.ts';
import { hasReason } from '#lib/errors.ts';
import { addKeyBody, SECURITY_PAGE, securityKeyErrorResponse } from '#lib/auth/security-keys.server.ts';
import { redirectWithToast, setFlash } from '#lib/auth/session.server.ts';
import { readForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { json, jsonError, readBody } from '#lib/json-endpoint.server.ts';

/** The section's forms: the key, what to do with it, and for a rename its new name (whose bounds the service checks). */
const keyForm = z.object({ id: z.string().refine(isUuid), intent: z.enum(['delete', 'rename']), nickname: z.string() });

export const POST: APIRoute = async (context) => {
  const { request, locals, cookies, redirect } = context;
  const { services, session } = locals;
  const isJson = (request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json');
  if (!session) return isJson ? jsonError(401, 'unauthenticated-user', 'User is not authenticated') : redirect('/sign-in', 303);
  if (!services.auth.methods.webauthn) return isJson ? jsonError(409, 'disabled-endpoint', 'This endpoint is disabled') : redirect(SECURITY_PAGE, 303);

  if (isJson) {
    const body = await readBody(request, addKeyBody);
    if ('response' in body) return body.response;
    try {
      await services.webauthn.addSecurityKey(session, body.data, { ip: locals.clientAddress });
    } catch (error) {
      return securityKeyErrorResponse(error);
    }
    setFlash(cookies, { type: 'success', message: t('securityKeys.added') });
    return json(200, { location: SECURITY_PAGE });
  }

  const form = await readForm(context, { fields: ['id', 'intent', 'nickname'], schema: keyForm, max: 300 });
  if (form.errors) return redirect(SECURITY_PAGE, 303);
  const { id, intent, nickname } = form.data;
  try {
    if (intent === 'delete') {
      await services.webauthn.removeSecurityKey(session, id, { ip: locals.clientAddress });
      return redirectWithToast(context, t('securityKeys.deleted'), SECURITY_PAGE);
    }
    await services.webauthn.renameSecurityKey(session.user.id, id, nickname);
    return redirectWithToast(context, t('securityKeys.renamed'), SECURITY_PAGE);
  } catch (error) {
    if (!isServiceError(error)) throw error;
    if (hasReason(error, 'elevated-claim-required'))
      // Not proved (decision 048): the deletion again, which now asks the proof in place.
      return redirect(`${SECURITY_PAGE}?supprimer-cle=${id}`, 303);
    // A name out of bounds: the rename form again, with why; a key gone meanwhile: the list.
    const invalid = hasReason(error, 'invalid-request');
    setFlash(cookies, { type: 'error', message: invalid ? t('securityKeys.errors.nickname') : t('errors.notFoundText') });
    return redirect(invalid ? `${SECURITY_PAGE}?renommer-cle=${id}` : SECURITY_PAGE, 303);
  }
};
