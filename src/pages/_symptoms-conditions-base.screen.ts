// The screen module of the symptoms and conditions base (`/symptoms-conditions-base`, SPEC §2.9,
// decision 065): what its URL may say, what it reads (one tab's items, searched) and its posts,
// which only those who manage the base make: add, rename, delete after confirmation.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { baseHref, baseItemSchema, baseTabs } from '#lib/base/base.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { readQuery, recordId, text } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { fieldErrors } from '#lib/validation.ts';

/** `/symptoms-conditions-base?onglet=&recherche=&renommer=&supprimer=`: the tab, the search, an item to rename or delete. */
export const querySchema = z
  .object({ onglet: text(40), recherche: text(120), renommer: recordId(), supprimer: recordId() })
  .transform((q) => ({ tab: baseTabs.find((tab) => tab.slug === q.onglet) ?? baseTabs[0]!, search: q.recherche, renameId: q.renommer, deleteId: q.supprimer }));

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** Everything the page reads from its URL. */
type BasePageQuery = ReturnType<typeof read>;

/** A post that did not go through: what the user typed and what went wrong, form by form. */
export type BasePostFailure = {
  status: number;
  draft: string;
  draftError: string | null;
  renameDraft: string;
  renameError: string | null;
  actionError: string | null;
};

/** Carries out the posted `intent` (create, rename, delete): a redirect with its toast, or what to show again; null when the viewer may not manage the base. */
export async function post(astro: AstroGlobal, query: Pick<BasePageQuery, 'tab' | 'search'>): Promise<Response | BasePostFailure | null> {
  if (!can(astro.locals.user?.role, 'manageBase')) return null;
  const { base } = astro.locals.services;
  const failure: BasePostFailure = { status: 400, draft: '', draftError: null, renameDraft: '', renameError: null, actionError: null };
  const form = await astro.request.formData().catch(() => new FormData());
  const intent = String(form.get('intent') ?? '');
  const id = String(form.get('id') ?? '');
  const name = String(form.get('name') ?? '').slice(0, 300);
  const parsed = baseItemSchema.safeParse({ name });
  try {
    if (intent === 'create') {
      failure.draft = name;
      if (!parsed.success) failure.draftError = fieldErrors(parsed.error).name ?? null;
      else {
        await base.insert(query.tab.kind, parsed.data.name);
        return redirectWithToast(astro, t('base.added'), baseHref(query));
      }
    } else if (intent === 'rename' && isUuid(id)) {
      failure.renameDraft = name;
      if (!parsed.success) failure.renameError = fieldErrors(parsed.error).name ?? null;
      else {
        await base.rename(id, parsed.data.name);
        return redirectWithToast(astro, t('base.renamed'), baseHref(query));
      }
    } else if (intent === 'delete' && isUuid(id)) {
      await base.remove(id);
      return redirectWithToast(astro, t('base.deleted'), baseHref(query));
    }
  } catch (error) {
    const text = formFailureOf(error, { fields: [] }).formError;
    if (intent === 'create') failure.draftError = text;
    else if (intent === 'rename') failure.renameError = text;
    else failure.actionError = text;
  }
  return failure;
}

/** The tab's items (searched), the one being renamed and the one whose deletion is to confirm, for those who manage the base. */
export async function load(locals: App.Locals, { tab, search, renameId, deleteId }: BasePageQuery) {
  const manage = can(locals.user?.role, 'manageBase');
  const [items] = await withinBudget(locals, Promise.all([locals.services.base.list(tab.kind, search)]));
  return {
    manage,
    items,
    renamingId: manage ? renameId : null,
    deleting: manage ? items.find((item) => item.id === deleteId) : undefined,
  };
}
