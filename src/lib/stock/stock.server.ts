// What the stock page runs on the server (SPEC §2.9): the CSV export of the list's filters, and
// the posts of one box (move, change condition, take out). The page reads its URL and renders.
import type { AstroGlobal } from 'astro';
import { contentDisposition } from '#lib/storage/files.ts';
import { formatDate } from '#lib/format.ts';
import { gearboxTypeLabels } from '#lib/gearboxes/gearboxes.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { serverGraphQL } from '#lib/graphql.server.ts';
import { t } from '#lib/i18n.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { conditionLabels, conditionStockSchema, moveStockSchema, removeStockSchema, stockHref, type StockItem, type StockQuery } from './stock.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';
import { graphql } from '#lib/graphql.ts';

export const StockItemFields = graphql(`
  fragment StockItemFields on stock_items {
    id reference version model { id model type constructorName } doctorCode gearboxCode condition rack level addedOn outOn outReason comment
  }
`);
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
  const name = `${query.view === 'historique' ? 'historique-stock' : 'stock'}-${new Date().toISOString().slice(0, 10)}.csv`;
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
    const { code, errors, formError } = formFailureOf(error);
    const key = action === 'deplacer' ? 'move' : action === 'etat' ? 'condition' : 'remove';
    // Someone changed or took out the box meanwhile: show it as it is now, forms reset.
    if (code === 'conflict') return { ...failure, status: 409, notice: formError ?? t('stock.conflict'), drafts: { move: {}, condition: {}, remove: {} } };
    failure.errors[key] = errors;
    failure.notice = formError;
  }
  return failure;
}
