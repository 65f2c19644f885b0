// The symptoms and conditions base (`/symptoms-conditions-base`, SPEC §2.9): what it reads (one
// tab's items, searched) and its posts, which only those who manage the base make: add, rename,
// delete after confirmation.
import type { AstroGlobal } from 'astro';
import type { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { graphql } from '#lib/graphql.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { can } from '#lib/permissions.ts';
import { fieldErrors } from '#lib/validation.ts';
import { baseHref, baseItemSchema, type basePageSchema } from './base.ts';

/** Everything the page reads from its URL. */
type BasePageQuery = z.output<typeof basePageSchema>;

const INSERT_BASE_ITEM = graphql(`mutation($kind: base_kind!, $name: String!) { insertBaseItem(kind: $kind, name: $name) { id } }`);
const UPDATE_BASE_ITEM = graphql(`mutation($id: uuid!, $name: String!) { updateBaseItem(id: $id, name: $name) { id } }`);
const DELETE_BASE_ITEM = graphql(`mutation($id: uuid!) { deleteBaseItem(id: $id) { id } }`);
const BASE_ITEMS_QUERY = graphql(`query($kind: base_kind!, $search: String) { baseItems(kind: $kind, search: $search) { id kind name } }`);

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
export async function postBasePage(astro: AstroGlobal, query: Pick<BasePageQuery, 'tab' | 'search'>): Promise<Response | BasePostFailure | null> {
  if (!can(astro.locals.user?.role, 'manageBase')) return null;
  const api = serverGraphQL(astro.locals);
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
        await api.request(INSERT_BASE_ITEM, { kind: query.tab.kind, name: parsed.data.name });
        return redirectWithToast(astro, t('base.added'), baseHref(query));
      }
    } else if (intent === 'rename' && isUuid(id)) {
      failure.renameDraft = name;
      if (!parsed.success) failure.renameError = fieldErrors(parsed.error).name ?? null;
      else {
        await api.request(UPDATE_BASE_ITEM, { id, name: parsed.data.name });
        return redirectWithToast(astro, t('base.renamed'), baseHref(query));
      }
    } else if (intent === 'delete' && isUuid(id)) {
      await api.request(DELETE_BASE_ITEM, { id });
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
export async function loadBasePage(locals: App.Locals, { tab, search, renameId, deleteId }: BasePageQuery) {
  const manage = can(locals.user?.role, 'manageBase');
  const { baseItems: items } = await serverGraphQL(locals).request(BASE_ITEMS_QUERY, { kind: tab.kind, search });
  return {
    manage,
    items,
    renamingId: manage ? renameId : null,
    deleting: manage ? items.find((item) => item.id === deleteId) : undefined,
  };
}
