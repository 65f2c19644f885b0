// What the stock page runs on the server (SPEC §2.9): the CSV export of the list's filters, the
// posts of one box (move, change condition, take out) and of the codes tab, and what the page
// shows. The page reads its URL and renders.
import type { AstroGlobal } from 'astro';
import { CODE_ACTIONS, type CodesDraft, postCodeAction } from '#lib/gearboxes/codes.server.ts';
import { can } from '#lib/permissions.ts';
import { contentDisposition } from '#lib/storage/files.ts';
import { formatDate, workshopToday } from '#lib/format.ts';
import { gearboxTypeLabels } from '#lib/gearboxes/gearboxes.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { hasCode } from '#lib/errors.ts';
import { t } from '#lib/i18n.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import {
  conditionLabels,
  conditionStockSchema,
  moveStockSchema,
  type readStockQuery,
  removeStockSchema,
  STOCK_PAGE_SIZE,
  stockHref,
  type StockItem,
  type StockQuery,
  StockItemFields,
  StockMovementFields,
} from './stock.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';
import { graphql } from '#lib/graphql.ts';

const STOCK_CSV = graphql(
  `query($history: Boolean, $search: String, $modelId: uuid, $type: stock_gearbox_type, $condition: gearbox_condition, $rack: String, $offset: Int) {
    stockItems(history: $history, search: $search, modelId: $modelId, type: $type, condition: $condition, rack: $rack, limit: 500, offset: $offset) {
      ...StockItemFields
    }
  }`,
  [StockItemFields],
);

/** The list's filters as the API takes them. */
export const stockFilters = (query: StockQuery) => ({
  history: query.view === 'historique',
  search: query.search,
  modelId: query.modelId,
  type: query.type,
  condition: query.condition,
  rack: query.rack,
});

/** Every box the list's filters select, as a French spreadsheet reads it (`;`, BOM, no formula). */
export async function stockCsv(astro: AstroGlobal, query: StockQuery): Promise<Response> {
  const api = serverGraphQL(astro.locals);
  const rows: StockItem[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await api.request(STOCK_CSV, { ...stockFilters(query), offset });
    rows.push(...page.stockItems);
    if (page.stockItems.length < 500) break;
  }
  const cell = (value: string | number | null | undefined) => {
    const text = String(value ?? '');
    return /[";\n\r]/.test(text) || /^[=+\-@]/.test(text) ? `"${text.replace(/^([=+\-@])/, "'$1").replace(/"/g, '""')}"` : text;
  };
  const header = [
    t('stock.reference'),
    t('stock.model'),
    t('stock.constructorName'),
    t('stock.type'),
    t('stock.doctorCode'),
    t('stock.gearboxCode'),
    t('stock.condition'),
    t('stock.rack'),
    t('stock.level'),
    t('stock.addedOn'),
    t('stock.outOn'),
    t('stock.outReason'),
    t('stock.comment'),
  ];
  const lines = rows.map((r) =>
    [
      r.reference,
      r.model.model,
      r.model.constructorName,
      gearboxTypeLabels[r.model.type] ?? r.model.type,
      r.doctorCode,
      r.gearboxCode,
      conditionLabels[r.condition],
      r.rack,
      r.level,
      formatDate(r.addedOn),
      formatDate(r.outOn),
      r.outReason,
      r.comment,
    ]
      .map(cell)
      .join(';'),
  );
  const name = `${query.view === 'historique' ? 'historique-stock' : 'stock'}-${workshopToday()}.csv`;
  return new Response(`\uFEFF${[header.join(';'), ...lines].join('\r\n')}\r\n`, {
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': contentDisposition('attachment', name), 'Cache-Control': 'no-store' },
  });
}

type Forms = { move: Record<string, string>; condition: Record<string, string>; remove: Record<string, string> };
/** A box's post that did not go through: what was typed, each form's errors, a notice for the box. */
export type StockItemFailure = {
  status: number;
  drafts: Forms;
  errors: { move: FieldErrors; condition: FieldErrors; remove: FieldErrors };
  notice: string | null;
};

/** Handles `?article=…&action=deplacer|etat|retirer`: a redirect with its toast, or what to show again. */
export async function postStockItemAction(astro: AstroGlobal, query: StockQuery, itemId: string, action: string): Promise<Response | StockItemFailure> {
  const api = serverGraphQL(astro.locals);
  const form = await astro.request.formData().catch(() => new FormData());
  const version = Number(form.get('version'));
  const failure: StockItemFailure = {
    status: 400,
    drafts: { move: {}, condition: {}, remove: {} },
    errors: { move: {}, condition: {}, remove: {} },
    notice: null,
  };
  const back = stockHref({ ...query, item: itemId });
  try {
    if (action === 'deplacer') {
      failure.drafts.move = { rack: String(form.get('rack') ?? '').slice(0, 40), level: String(form.get('level') ?? '').slice(0, 10) };
      const parsed = moveStockSchema.safeParse(failure.drafts.move);
      if (!parsed.success) failure.errors.move = fieldErrors(parsed.error);
      else {
        await api.request(graphql(`mutation($id: uuid!, $v: Int!, $r: String!, $l: Int!) { moveStockItem(id: $id, version: $v, rack: $r, level: $l) }`), {
          id: itemId,
          v: version,
          r: parsed.data.rack,
          l: parsed.data.level,
        });
        return redirectWithToast(astro, t('stock.moved'), back);
      }
    } else if (action === 'etat') {
      failure.drafts.condition = { condition: String(form.get('condition') ?? '') };
      const parsed = conditionStockSchema.safeParse(failure.drafts.condition);
      if (!parsed.success) failure.errors.condition = fieldErrors(parsed.error);
      else {
        await api.request(graphql(`mutation($id: uuid!, $v: Int!, $c: gearbox_condition!) { changeStockItemCondition(id: $id, version: $v, condition: $c) }`), {
          id: itemId,
          v: version,
          c: parsed.data.condition,
        });
        return redirectWithToast(astro, t('stock.conditionChanged'), back);
      }
    } else if (action === 'retirer') {
      failure.drafts.remove = { outOn: String(form.get('outOn') ?? '').slice(0, 20), outReason: String(form.get('outReason') ?? '').slice(0, 400) };
      const parsed = removeStockSchema.safeParse(failure.drafts.remove);
      if (!parsed.success) failure.errors.remove = fieldErrors(parsed.error);
      else {
        await api.request(
          graphql(`mutation($id: uuid!, $v: Int!, $d: String!, $r: String!) { removeStockItem(id: $id, version: $v, outOn: $d, outReason: $r) }`),
          {
            id: itemId,
            v: version,
            d: parsed.data.outOn,
            r: parsed.data.outReason,
          },
        );
        return redirectWithToast(astro, t('stock.removed'), stockHref({ ...query, view: 'historique', item: itemId }));
      }
    }
  } catch (error) {
    const refusal = formFailureOf(error);
    const { errors, formError } = refusal;
    const key = action === 'deplacer' ? 'move' : action === 'etat' ? 'condition' : 'remove';
    // Someone changed or took out the box meanwhile: show it as it is now, forms reset.
    if (hasCode(refusal, 'conflict'))
      return { ...failure, status: 409, notice: formError ?? t('stock.conflict'), drafts: { move: {}, condition: {}, remove: {} } };
    failure.errors[key] = errors;
    failure.notice = formError;
  }
  return failure;
}

/** Everything the stock page reads from its URL. */
type StockPageQuery = ReturnType<typeof readStockQuery>;

const STOCK_ITEM_QUERY = graphql(
  `query($id: uuid!) {
    stockItem(id: $id) { ...StockItemFields movements { ...StockMovementFields } }
  }`,
  [StockItemFields, StockMovementFields],
);
// The codes tab: one model's doctor and gearbox codes at a time.
const StockCodesModelFields = graphql(`
  fragment StockCodesModelFields on gearbox_models { id model doctorCodes { id code businessName tvsCode engine gearboxCodes { id code } } }
`);
const ALL_CODES_QUERY = graphql(`{ gearboxModels(limit: 100) { ...StockCodesModelFields } }`, [StockCodesModelFields]);
const MODEL_CODES_QUERY = graphql(`query($id: uuid!) { gearboxModel(id: $id) { ...StockCodesModelFields } }`, [StockCodesModelFields]);
// The list, its counts and the filters' choices.
const STOCK_LIST_QUERY = graphql(
  `query(
    $history: Boolean, $search: String, $modelId: uuid, $type: stock_gearbox_type, $condition: gearbox_condition, $rack: String,
    $limit: Int, $offset: Int, $list: Boolean!, $countCurrent: Boolean!, $countHistory: Boolean!
  ) {
    stockItems(history: $history, search: $search, modelId: $modelId, type: $type, condition: $condition, rack: $rack, limit: $limit, offset: $offset)
      @include(if: $list) { ...StockItemFields }
    stockItemsAggregate(history: $history, search: $search, modelId: $modelId, type: $type, condition: $condition, rack: $rack)
      @include(if: $countHistory) { count }
    stockCounts(history: $history, search: $search, modelId: $modelId, type: $type, condition: $condition, rack: $rack)
      @include(if: $countCurrent) { modelId model condition count }
    stockRacks
    gearboxModels(limit: 100) { id model }
  }`,
  [StockItemFields],
);

/** The codes tab, on one model or on all. */
const codesHref = (modelId?: string) => (modelId ? `/stock?onglet=codes&modele=${modelId}` : '/stock?onglet=codes');
const isCodeAction = (action: string): action is (typeof CODE_ACTIONS)[number] => (CODE_ACTIONS as readonly string[]).includes(action);

/** What a refused post hands back: one box's forms, or the codes tab's (null for the other), and its status. */
export type StockPagePost = { status: number; item: StockItemFailure | null; codes: CodesDraft | null };

/**
 * The page's posts, made before it reads anything (a post that succeeds redirects without
 * reading): one box's (`?article=`), then the codes tab's on its model. A redirect with its
 * toast, what to show again, or null when nothing was for this viewer.
 */
export async function postStockPage(astro: AstroGlobal, query: StockPageQuery): Promise<Response | StockPagePost | null> {
  const role = astro.locals.user?.role;
  const { itemId, action } = query;
  let item: StockItemFailure | null = null;
  if (itemId && can(role, 'manageStock')) {
    const result = await postStockItemAction(astro, query, itemId, action);
    if (result instanceof Response) return result;
    item = result;
  }
  let codes: CodesDraft | null = null;
  if (query.view === 'codes' && query.modelId && can(role, 'manageGearboxes') && isCodeAction(action)) {
    const api = serverGraphQL(astro.locals);
    const model = (await api.request(MODEL_CODES_QUERY, { id: query.modelId })).gearboxModel;
    if (model) {
      const result = await postCodeAction(astro.locals.services.gearboxes, await astro.request.formData(), action, model.id, model.doctorCodes);
      if ('done' in result) return redirectWithToast(astro, result.done, codesHref(model.id));
      codes = result.draft;
    }
  }
  if (!item && !codes) return null;
  return { status: codes ? 400 : item!.status, item, codes };
}

/** What the page shows: one box (`?article=`), the codes tab, or the list with its counts and the filters' choices. */
export async function loadStockPage(locals: App.Locals, query: StockPageQuery) {
  const api = serverGraphQL(locals);
  const role = locals.user?.role;
  const manage = can(role, 'manageStock');
  const item = query.itemId && manage ? (await api.request(STOCK_ITEM_QUERY, { id: query.itemId })).stockItem : null;
  // Without a chosen model, every model's codes at a glance.
  const allCodes = query.view === 'codes' && !query.modelId ? (await api.request(ALL_CODES_QUERY)).gearboxModels.filter((m) => m.doctorCodes.length) : [];
  const codesModel = query.view === 'codes' && query.modelId ? (await api.request(MODEL_CODES_QUERY, { id: query.modelId })).gearboxModel : null;
  const data = await api.request(STOCK_LIST_QUERY, {
    ...stockFilters(query),
    limit: STOCK_PAGE_SIZE,
    offset: (query.page - 1) * STOCK_PAGE_SIZE,
    list: !item && query.view !== 'codes',
    // The current stock's total is the sum of its counts: one pass over the boxes fewer.
    countCurrent: !item && query.view === 'stock',
    countHistory: !item && query.view === 'historique',
  });
  const total = query.view === 'historique' ? (data.stockItemsAggregate?.count ?? 0) : (data.stockCounts ?? []).reduce((sum, row) => sum + row.count, 0);
  return {
    manage,
    manageCodes: can(role, 'manageGearboxes'),
    item,
    /** `?article=` names no box this viewer may open. */
    notFound: query.itemId !== undefined && !item,
    allCodes,
    codesModel,
    codesBase: codesHref(codesModel?.id),
    data,
    total,
    pages: Math.max(1, Math.ceil(total / STOCK_PAGE_SIZE)),
  };
}
