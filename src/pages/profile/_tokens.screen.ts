// The screen module of the personal access tokens (`/profile/tokens`, issue 18 item 4, decisions
// 048, 065): what its URL may say (the revocation to confirm), what it reads (the proof a new token
// waits for, the account's tokens) and its posts: a token made (shown once) or revoked, through the
// auth service bound to the sign-in.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { isServiceError, signInErrorMessage } from '#lib/auth/errors.server.ts';
import { proofAskOf, proveFromForm } from '#lib/auth/proof.server.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { hasReason } from '#lib/errors.ts';
import { checkForm, postedForm, postOrShowRefusal, readRefusal, redirectRefusal } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readQuery } from '#lib/page-query.ts';
import { personalAccessTokenSchema, type FieldErrors } from '#lib/validation.ts';

/** `/profile/tokens?revoquer=<id>`: the revocation awaiting its confirmation. */
export const querySchema = z.object({ revoquer: z.string().max(64).nullable().catch(null) });

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

type TokensQuery = ReturnType<typeof read>;

const DAY = 86_400_000;
const TOKENS_PAGE = '/profile/tokens';

/** The token just made, shown this once: carried by the creation's 303 in its own sealed cookie,
 * read once, so a reload neither posts again (a second token) nor shows it again. */
type Created = { name: string; token: string };
const CREATED_COOKIE = 'atelier_jeton_cree';

/** What the creation form shows (what was typed, its messages), whether the sign-in has just proved itself, and the token just made. */
export type TokensPosted = { values: { name: string; days: string }; errors: FieldErrors; formError: string | null; proved: boolean; created: Created | null };

/**
 * The page's posts: a revocation (a redirect with its toast) or a creation (a redirect that shows
 * the token once); a refused creation moves to the page's own address, whose GET shows it again
 * with the name and lifetime typed, never the password (decisions 039, 087): a reload sends
 * nothing again. On a GET, what a refused post left, and the token just made. The page that shows
 * a token is never cached.
 */
export async function post(astro: AstroGlobal, _query: TokensQuery): Promise<Response | TokensPosted> {
  astro.response.headers.set('Cache-Control', 'no-store');
  const enabled = astro.locals.services.auth.methods.personalAccessTokens;
  const blank: TokensPosted = { values: { name: '', days: '90' }, errors: {}, formError: null, proved: false, created: null };
  if (!enabled) return blank;
  const created = astro.request.method === 'GET' ? await readRefusal<Created>(astro, CREATED_COOKIE, { once: true }) : null;
  const shown = await postOrShowRefusal<TokensPosted>(astro, () => createOrRevoke(astro));
  return shown instanceof Response ? shown : { ...blank, ...shown, created };
}

/** A revocation or a creation: a redirect, or the refusal to show again (what was typed but the password, the messages). */
async function createOrRevoke(astro: AstroGlobal): Promise<Response | TokensPosted> {
  const { services, session } = astro.locals;
  const state: TokensPosted = { values: { name: '', days: '90' }, errors: {}, formError: null, proved: false, created: null };
  const caller = { ip: astro.locals.clientAddress };
  const form = await postedForm(astro);
  const revoke = form.get('revoke');
  if (typeof revoke === 'string') {
    await services.auth.revokePersonalAccessToken(session!.user.id, revoke, caller);
    return redirectWithToast(astro, t('tokens.revokedToast'), TOKENS_PAGE);
  }
  // A lifetime not posted at all is the default one, 90 days.
  const parsed = checkForm(form, {
    fields: ['name', 'days'],
    schema: personalAccessTokenSchema,
    max: 200,
    input: (typed, posted) => (posted.has('days') ? typed : { ...typed, days: '90' }),
  });
  state.values = { name: parsed.values.name, days: form.has('days') ? parsed.values.days : '90' };
  if (parsed.errors) state.errors = parsed.errors;
  else {
    try {
      const refused = await proveFromForm(services, session!, form, caller);
      if (refused) {
        state.errors = refused.errors;
        state.formError = refused.formError;
      } else {
        state.proved = true;
        const expiresAt = new Date(Date.now() + parsed.data.days * DAY);
        const { personalAccessToken } = await services.auth.createPersonalAccessToken(session!, { expiresAt, metadata: { name: parsed.data.name } }, caller);
        const shown = await redirectRefusal(astro, { name: parsed.data.name, token: personalAccessToken } satisfies Created, TOKENS_PAGE, CREATED_COOKIE);
        if (shown) return shown;
      }
    } catch (error) {
      const refusal = isServiceError(error) ? error : null;
      if (hasReason(refusal, 'elevated-claim-required')) state.formError = t('refusals.elevationRequired');
      else state.formError = hasReason(refusal, 'too-many-requests') ? signInErrorMessage(error) : t('errors.generic');
    }
  }
  return state;
}

/**
 * What the page shows: tokens on or off, the proof a new token waits for (decision 048: the current
 * password or the app's code in this form; a security key alone proves itself on /profile/confirm),
 * the account's tokens and the one whose revocation is to confirm.
 */
export async function load(locals: App.Locals, query: TokensQuery, posted: TokensPosted) {
  const { services, session } = locals;
  const enabled = services.auth.methods.personalAccessTokens;
  const [ask, tokens] = enabled
    ? await withinBudget(locals, Promise.all([posted.proved ? null : proofAskOf(services, session!), services.auth.listPersonalAccessTokens(session!.user.id)]))
    : [null, []];
  return { enabled, ask, tokens, confirming: tokens.find((row) => row.id === query.revoquer && !row.revokedAt) };
}
