// The screen module of the stock (`/stock`, SPEC §2.9, decision 065): what its URL may say, the
// CSV export of the list's filters, the posts of one box (move, change condition, take out) and
// of the codes tab, and what the page shows, read through the viewer's services.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { DomainError } from '#server/errors.ts';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { formatDate, workshopToday } from '#lib/format.ts';
import { formFailureOf, postedForm } from '#lib/forms.server.ts';
import { CODE_ACTIONS, type CodesDraft, postCodeAction } from '#lib/gearboxes/codes.server.ts';
import { gearboxTypeLabels, gearboxTypes } from '#lib/gearboxes/gearboxes.ts';
import { t } from '#lib/i18n.ts';
import { lastPageIfBeyond, withinBudget } from '#lib/page-budget.ts';
import { choice, flag, optionalRecordId, page, readQuery, recordId, text } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { contentDisposition } from '#lib/storage/files.ts';
import {
  conditionLabels,
  conditionStockSchema,
  gearboxConditions,
  moveStockSchema,
  normaliseRack,
  removeStockSchema,
  STOCK_PAGE_SIZE,
  stockHref,
  type StockQuery,
} from '#lib/stock/stock.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';

/** `?onglet=&recherche=&modele=&type=&etat=&rayon=&page=` as the screen reads it. */
export const querySchema = z
  .object({
    onglet: choice(['historique', 'codes'] as const),
    recherche: text(120),
    modele: recordId(),
    type: choice(gearboxTypes),
    etat: choice(gearboxConditions),
    rayon: z
      .string()
      .transform(normaliseRack)
      .refine((rack) => /^[A-Z0-9-]{1,10}$/.test(rack))
      .nullable()
      .catch(null),
    page: page(),
    // One box (`?article=`), its rack label (`&etiquette`), a form's action; the CSV export.
    article: optionalRecordId(),
    etiquette: flag(),
    action: text(40),
    confirmer: recordId(),
    format: choice(['csv'] as const),
  })
  .transform((q) => ({
    ...({
      view: q.onglet ?? 'stock',
      search: q.recherche,
      modelId: q.modele,
      type: q.type,
      condition: q.etat,
      rack: q.rayon,
      page: q.page,
    } satisfies StockQuery),
    itemId: q.article,
    label: q.etiquette,
    action: q.action,
    confirm: q.confirmer,
    csv: q.format === 'csv',
  }));

export const read = (params: URLSearchParams) => readQuery(querySchema, params);

/** Everything the stock page reads from its URL. */
type StockPageQuery = ReturnType<typeof read>;

/** The list's filters as the service takes them. */
const stockFilters = (query: StockQuery) => ({
  history: query.view === 'historique',
  search: query.search,
  modelId: query.modelId,
  type: query.type,
  condition: query.condition,
  rack: query.rack,
});

/** The CSV reads the boxes this many at a time. */
const CSV_PAGE = 500;

/** Every box the list's filters select, as a French spreadsheet reads it (`;`, BOM, no formula). */
export async function csv(astro: AstroGlobal, query: StockQuery): Promise<Response> {
  const { stock } = astro.locals.services;
  const rows = [];
  for (let offset = 0; ; offset += CSV_PAGE) {
    const page = await withinBudget(astro.locals, stock.list({ ...stockFilters(query), limit: CSV_PAGE, offset }));
    rows.push(...page);
    if (page.length < CSV_PAGE) break;
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
async function postItem(astro: AstroGlobal, query: StockQuery, itemId: string, action: string): Promise<Response | StockItemFailure> {
  const { stock } = astro.locals.services;
  const form = await postedForm(astro);
  const version = Number(form.get('version'));
  const failure: StockItemFailure = {
    status: 400,
    drafts: { move: {}, condition: {}, remove: {} },
    errors: { move: {}, condition: {}, remove: {} },
    notice: null,
  };
  const back = stockHref({ ...query, item: itemId });
  // Each form sends the version it showed: without one, nothing is carried out.
  if (!Number.isSafeInteger(version)) return { ...failure, notice: t('errors.generic') };
  try {
    if (action === 'deplacer') {
      failure.drafts.move = { rack: String(form.get('rack') ?? '').slice(0, 40), level: String(form.get('level') ?? '').slice(0, 10) };
      const parsed = moveStockSchema.safeParse(failure.drafts.move);
      if (!parsed.success) failure.errors.move = fieldErrors(parsed.error);
      else {
        await stock.move(itemId, version, parsed.data);
        return redirectWithToast(astro, t('stock.moved'), back);
      }
    } else if (action === 'etat') {
      failure.drafts.condition = { condition: String(form.get('condition') ?? '') };
      const parsed = conditionStockSchema.safeParse(failure.drafts.condition);
      if (!parsed.success) failure.errors.condition = fieldErrors(parsed.error);
      else {
        await stock.changeCondition(itemId, version, parsed.data.condition);
        return redirectWithToast(astro, t('stock.conditionChanged'), back);
      }
    } else if (action === 'retirer') {
      failure.drafts.remove = { outOn: String(form.get('outOn') ?? '').slice(0, 20), outReason: String(form.get('outReason') ?? '').slice(0, 400) };
      const parsed = removeStockSchema.safeParse(failure.drafts.remove);
      if (!parsed.success) failure.errors.remove = fieldErrors(parsed.error);
      else {
        await stock.remove(itemId, version, parsed.data);
        return redirectWithToast(astro, t('stock.removed'), stockHref({ ...query, view: 'historique', item: itemId }));
      }
    }
  } catch (error) {
    const { errors, formError } = formFailureOf(error);
    const key = action === 'deplacer' ? 'move' : action === 'etat' ? 'condition' : 'remove';
    // Someone changed or took out the box meanwhile: shown as it is now, with what was typed
    // kept in its form (an exit reason is not typed twice), to do again if still wanted.
    if (error instanceof DomainError && error.kind === 'conflict') return { ...failure, status: 409, notice: formError ?? t('stock.conflict') };
    failure.errors[key] = errors;
    failure.notice = formError;
  }
  return failure;
}

/** The codes tab, on one model or on all. */
const codesHref = (modelId?: string) => (modelId ? `/stock?onglet=codes&modele=${modelId}` : '/stock?onglet=codes');
const isCodeAction = (action: string): action is (typeof CODE_ACTIONS)[number] => (CODE_ACTIONS as readonly string[]).includes(action);

/** One model with its doctor codes and their gearbox codes, or undefined when there is none by that id. */
async function modelCodes(gearboxModels: App.Locals['services']['gearboxModels'], modelId: string) {
  const [model, doctorCodes] = await Promise.all([gearboxModels.get(modelId), gearboxModels.codesOf(modelId)]);
  return model && { id: model.id, model: model.model, doctorCodes };
}

/** Every model of the catalogue with its doctor codes and their gearbox codes: two reads, not two per model. */
async function everyModelCodes(gearboxModels: App.Locals['services']['gearboxModels']) {
  const models = await gearboxModels.catalogue();
  const codes = await gearboxModels.codesOfModels(models.map((m) => m.id));
  return models.map((m) => ({ id: m.id, model: m.model, doctorCodes: codes.filter((d) => d.modelId === m.id) }));
}

/** What a refused post hands back: one box's forms, or the codes tab's (null for the other), and its status. */
export type StockPagePost = { status: number; item: StockItemFailure | null; codes: CodesDraft | null };

/**
 * The page's posts, made before it reads anything (a post that succeeds redirects without
 * reading): one box's (`?article=`), then the codes tab's on its model. A redirect with its
 * toast, what to show again, or null when nothing was for this viewer.
 */
export async function post(astro: AstroGlobal, query: StockPageQuery): Promise<Response | StockPagePost | null> {
  const role = astro.locals.user?.role;
  const { itemId, action } = query;
  let item: StockItemFailure | null = null;
  if (itemId && can(role, 'manageStock')) {
    const result = await postItem(astro, query, itemId, action);
    if (result instanceof Response) return result;
    item = result;
  }
  let codes: CodesDraft | null = null;
  if (query.view === 'codes' && query.modelId && can(role, 'manageGearboxModels') && isCodeAction(action)) {
    const { gearboxModels } = astro.locals.services;
    const model = await withinBudget(astro.locals, modelCodes(gearboxModels, query.modelId));
    if (model) {
      const result = await postCodeAction(gearboxModels, await postedForm(astro), action, model.id, model.doctorCodes);
      if ('done' in result) return redirectWithToast(astro, result.done, codesHref(model.id));
      codes = result.draft;
    }
  }
  if (!item && !codes) return null;
  return { status: codes ? 400 : item!.status, item, codes };
}

/** What the page shows: one box (`?article=`), the codes tab, or the list with its counts and the filters' choices. */
export async function load(locals: App.Locals, query: StockPageQuery) {
  const { stock, gearboxModels } = locals.services;
  const role = locals.user?.role;
  const manage = can(role, 'manageStock');
  const codes = query.view === 'codes';
  const itemId = manage ? query.itemId : null;
  // The list is read when the URL names no box.
  const listed = query.itemId === undefined && !codes;
  const filters = stockFilters(query);
  const pageOf = (page: number) => stock.list({ ...filters, limit: STOCK_PAGE_SIZE, offset: (page - 1) * STOCK_PAGE_SIZE });
  const [item, movements, allCodes, codesModel, models, racks, list, counts, historyCount] = await withinBudget(
    locals,
    Promise.all([
      itemId ? stock.get(itemId) : undefined,
      itemId ? stock.movementsOf(itemId) : [],
      // Without a chosen model, every model's codes at a glance.
      codes && !query.modelId ? everyModelCodes(gearboxModels) : [],
      codes && query.modelId ? modelCodes(gearboxModels, query.modelId) : undefined,
      gearboxModels.catalogue(),
      stock.racks(),
      listed ? pageOf(query.page) : [],
      // The current stock's total is the sum of its counts: one pass over the boxes fewer.
      listed && query.view === 'stock' ? stock.counts(filters) : [],
      listed && query.view === 'historique' ? stock.count(filters) : 0,
    ]),
  );
  const shown = item ? { ...item, movements } : null;
  const total = query.view === 'historique' ? historyCount : counts.reduce((sum, row) => sum + row.n, 0);
  const {
    page,
    pages,
    rows: items,
    ignoredPage,
  } = listed
    ? await lastPageIfBeyond(locals, { asked: query.page, size: STOCK_PAGE_SIZE, total, rows: list, rowsOf: pageOf })
    : { page: 1, pages: 1, rows: list, ignoredPage: [] };
  return {
    manage,
    manageCodes: can(role, 'manageGearboxModels'),
    item: shown,
    /** `?article=` names no box this viewer may open. */
    notFound: query.itemId !== undefined && !shown,
    allCodes: allCodes.filter((m) => m !== undefined && m.doctorCodes.length > 0) as NonNullable<(typeof allCodes)[number]>[],
    codesModel: codesModel ?? null,
    codesBase: codesHref(codesModel?.id),
    models: models.map((m) => ({ id: m.id, model: m.model })),
    racks,
    items,
    counts,
    total,
    page,
    pages,
    ignoredPage,
  };
}
