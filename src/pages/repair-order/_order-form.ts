// The repair order form of the order's screens (the new order, the order's general data and
// history): what was typed is kept on failure, the service's refusals land next to their fields.
import { hasReason } from '#lib/errors.ts';
import { clashErrors, filledOf, filledValuesOf, formFailureOf, mergeOverSaved, postedForm, textAsRead, unsavedFields } from '#lib/forms.server.ts';
import { type MessageKey, t } from '#lib/i18n.ts';
import { isoDay } from '#lib/page-query.ts';
import {
  checkOrderForm,
  energyLabels,
  engineSizeLabels,
  interventionCategoryLabels,
  mileageBandLabels,
  ORDER_FIELDS,
  readOrderForm,
} from '#lib/repair-orders/repair-orders.ts';
import { formatDate, formatNumber } from '#lib/format.ts';
import type { OrderPart } from '#server/repair-orders/service.ts';

export type OrderDraft = {
  values: Record<string, string>;
  history: { mileage: string; intervention: string }[];
  errors: Record<string, string>;
  /** The saved order's form: the version of its part it was filled over (a colleague's save meanwhile refuses it). */
  version?: string;
  /** The general data's form: the values it was filled with, to merge a colleague's save meanwhile. */
  filled?: Record<string, string>;
  /** The history's form: the rows it was filled with, likewise. */
  filledRows?: HistoryRow[];
};
type HistoryRow = { mileage: string; intervention: string };

/** The history rows a form was filled with (`filledOf`), or null for anything else. */
function filledRowsOf(form: FormData): HistoryRow[] | null {
  const rows = filledOf(form);
  if (!Array.isArray(rows) || rows.length > 200) return null;
  const valid = rows.every((r) => r && typeof r === 'object' && typeof r.mileage === 'string' && typeof r.intervention === 'string');
  return valid ? rows.map((r: HistoryRow) => ({ mileage: r.mileage, intervention: r.intervention })) : null;
}

/** A field's value as two readings of the form are compared: a date typed «29/07/2026» is the saved 2026-07-29 (walk15 F6). */
const asCompared = (name: string, value: string) => (name === 'openedOn' ? isoDay(value) : textAsRead(value));

/** A field's value differs between two readings of the form, compared as `asCompared` reads it. */
const differs = (name: string, from: Record<string, string>, to: Record<string, string>) =>
  asCompared(name, from[name] ?? '') !== asCompared(name, to[name] ?? '');

/** What makes two history rows the same: what they say, the mileage's spaces left out («150 000» is 150000). */
const historyRowKey = (h: HistoryRow) => `${textAsRead(h.mileage).replace(/\s/g, '')}\n${textAsRead(h.intervention)}`;

/** How many rows of each kind a list holds. */
function rowCounts(list: HistoryRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const h of list) counts.set(historyRowKey(h), (counts.get(historyRowKey(h)) ?? 0) + 1);
  return counts;
}

/** `list` split in the rows of each kind named in `take`, as many as it says (the first found), and the rest. */
function takeRows(list: HistoryRow[], take: Map<string, number>): { taken: HistoryRow[]; rest: HistoryRow[] } {
  const left = new Map(take);
  const [taken, rest]: HistoryRow[][] = [[], []];
  for (const h of list) {
    const n = left.get(historyRowKey(h)) ?? 0;
    left.set(historyRowKey(h), n - 1);
    (n > 0 ? taken : rest).push(h);
  }
  return { taken, rest };
}

/**
 * The history saved over a colleague's (decision 077, for rows), counted kind by kind: what each
 * of the two did to the rows the form was filled with (added some, took some out) is applied once
 * when both did the same, both when they did different things. A row both took out is a clash
 * when one of them put a row in its place (the same mileage or the same words) that the other did
 * not (two changes, or a change against a removal): both versions are then shown to check, each
 * row of the clash with a note saying whose it is and what to do (walk16 F1, F2), the user's
 * version right after the colleague's.
 */
function mergeRows(rows: { typed: HistoryRow[]; filled: HistoryRow[]; saved: HistoryRow[] }): {
  rows: HistoryRow[];
  clash: boolean;
  notes: (MessageKey | undefined)[];
} {
  const [typed, filled, saved] = [rowCounts(rows.typed), rowCounts(rows.filled), rowCounts(rows.saved)];
  const n = (counts: Map<string, number>, k: string) => counts.get(k) ?? 0;
  const kinds = new Set([...typed.keys(), ...filled.keys(), ...saved.keys()]);
  const target = new Map<string, number>();
  for (const k of kinds) {
    const [mine, theirs] = [n(typed, k) - n(filled, k), n(saved, k) - n(filled, k)];
    const change = Math.sign(mine) === Math.sign(theirs) ? (Math.abs(mine) >= Math.abs(theirs) ? mine : theirs) : mine + theirs;
    target.set(k, Math.max(0, n(filled, k) + change));
  }
  // A row put in place of another keeps its mileage or what it says.
  const [mileageOf, interventionOf] = [(k: string) => k.slice(0, k.indexOf('\n')), (k: string) => k.slice(k.indexOf('\n') + 1)];
  const replaces = (added: string, k: string) => mileageOf(added) === mileageOf(k) || interventionOf(added) === interventionOf(k);
  const addedByOne = [...kinds].filter((k) => Math.max(n(typed, k), n(saved, k)) > n(filled, k) && n(typed, k) !== n(saved, k));
  const clashing = [...kinds].filter((k) => n(typed, k) < n(filled, k) && n(saved, k) < n(filled, k) && addedByOne.some((added) => replaces(added, k)));
  const surplus = new Map([...saved].filter(([k, c]) => c > target.get(k)!).map(([k, c]) => [k, c - target.get(k)!]));
  const missing = new Map([...target].filter(([k, c]) => c > n(saved, k)).map(([k, c]) => [k, c - n(saved, k)]));
  const [kept, added] = [takeRows(rows.saved, surplus).rest, takeRows(rows.typed, missing).taken];
  // The rows of a clash: the row both took out that each replaced, and whose the replacement is.
  const replaced = (k: string) => clashing.find((gone) => addedByOne.includes(k) && replaces(k, gone));
  const [byUser, byColleague] = [(k: string) => n(typed, k) > n(filled, k), (k: string) => n(saved, k) > n(filled, k)];
  const rival = (k: string, by: (k: string) => boolean) => addedByOne.some((other) => other !== k && by(other) && replaced(other) === replaced(k));
  const noteOf = (h: HistoryRow): MessageKey | undefined => {
    const k = historyRowKey(h);
    if (!replaced(k)) return undefined;
    if (byColleague(k)) return rival(k, byUser) ? 'repairOrders.historyTheirs' : 'repairOrders.historyRemovedByYou';
    return rival(k, byColleague) ? 'repairOrders.historyMine' : 'repairOrders.historyRemovedByThem';
  };
  const merged: HistoryRow[] = [];
  const left = [...added];
  for (const h of kept) {
    merged.push(h);
    const gone = replaced(historyRowKey(h));
    // The user's version of the same row, right after the colleague's.
    for (const mine of gone ? left.filter((a) => replaced(historyRowKey(a)) === gone) : []) merged.push(...left.splice(left.indexOf(mine), 1));
  }
  merged.push(...left);
  return { rows: merged, clash: clashing.length > 0, notes: merged.map(noteOf) };
}

/**
 * A form refused earlier (its order closed meanwhile, reopened since), shown over the order as
 * saved now: what the user changed on it, merged over what a colleague saved meanwhile as a save
 * would merge it, what both changed marked to check (walk17 F2). Its next save is over the version
 * now saved.
 */
export function typedOver(typed: OrderDraft, now: OrderDraft, part: OrderPart, names: PickedNames): OrderDraft {
  if (part === 'history') {
    const merged = mergeRows({ typed: typed.history, filled: typed.filledRows ?? now.history, saved: now.history });
    return { ...now, history: merged.rows, filledRows: now.history, errors: rowErrors(merged.notes) };
  }
  const merged = mergeOverSaved(ORDER_FIELDS, { typed: typed.values, filled: typed.filled ?? now.values, saved: now.values }, asCompared);
  return { ...now, values: merged.values, filled: now.values, errors: clashErrors(merged.clashes, now.values, shownValue(names)) };
}

/** The notes of a history clash, as errors beside the rows they concern. */
const rowErrors = (notes: (MessageKey | undefined)[]) => Object.fromEntries(notes.flatMap((note, i) => (note ? [[`history.${i}.intervention`, t(note)]] : [])));

/** A saved order as the service reads it. */
export type SavedOrder = NonNullable<Awaited<ReturnType<App.Locals['services']['repairOrders']['get']>>>;

/**
 * What a saved order's form posted, as a draft: the part it edits as typed, the other part as
 * saved, with the version and the values it was filled over.
 */
export function postedDraft(data: FormData, base: { part: OrderPart; order: OrderDraft }): OrderDraft {
  const form = readOrderForm(data);
  const version = String(data.get('version') ?? '').slice(0, 64);
  return base.part === 'history'
    ? { values: base.order.values, history: form.history, errors: {}, version, filledRows: filledRowsOf(data) ?? undefined }
    : { values: form.values, history: base.order.history, errors: {}, version, filled: filledValuesOf(data) ?? undefined };
}

/**
 * Saves the posted form (a new order without `orderId`); answers the order's id, or the draft to
 * show again with the message above the form. `base`: the saved order's values, for a form that
 * posts only part of them; `fallback`: what a refusal the user cannot fix says.
 */
export async function saveOrderForm(
  locals: App.Locals,
  request: Request,
  { orderId, base, fallback }: { orderId?: string; base?: { part: OrderPart; order: OrderDraft; names: PickedNames }; fallback: string },
): Promise<{ orderId: string } | { draft: OrderDraft; formError: string | null }> {
  const data = await postedForm({ request });
  const form = readOrderForm(data);
  const posted = base ? postedDraft(data, base) : { ...form, errors: {} };
  const { version, filled, filledRows } = posted;
  const save = async (draft: Pick<OrderDraft, 'values' | 'history'>, over?: string): Promise<{ orderId: string } | { errors: Record<string, string> }> => {
    const checked = checkOrderForm(draft);
    if (!checked.input) return { errors: checked.errors };
    const { repairOrders } = locals.services;
    return {
      orderId:
        orderId && base
          ? await repairOrders.update(orderId, checked.input, { part: base.part, version: over ?? '' })
          : await repairOrders.insert(checked.input),
    };
  };
  try {
    const saved = await save(posted, version);
    return 'orderId' in saved ? saved : { draft: { ...posted, errors: saved.errors }, formError: null };
  } catch (error) {
    const failure = formFailureOf(error, { fallback });
    if (!base || !hasReason(failure, 'stale')) return { draft: { ...posted, errors: failure.errors as Record<string, string> }, formError: failure.formError };
    // Saved meanwhile by a colleague. The general data merges as they would: what this user left
    // takes the colleague's value; saved at once when no field was changed by both.
    const now = base.order;
    /** The merge saved over the version now saved: the order's id, or null to show it to check. */
    const saveMerged = async (draft: Pick<OrderDraft, 'values' | 'history'>) => {
      const again = await save(draft, now.version).catch((e: unknown) => formFailureOf(e, { fallback }));
      return 'orderId' in again && typeof again.orderId === 'string' ? { orderId: again.orderId } : null;
    };
    if (base.part === 'general' && filled) {
      const merged = mergeOverSaved(ORDER_FIELDS, { typed: form.values, filled, saved: now.values }, asCompared);
      // A gearbox code is read on a model's label: typed while a colleague changed the model, it is
      // to check as well (walk13 F4).
      const codeOverMovedModel =
        differs('gearboxModelId', filled, now.values) && differs('gearboxCode', filled, form.values) && !merged.clashes.includes('gearboxCode');
      const saved = !merged.clashes.length && !codeOverMovedModel && (await saveMerged({ values: merged.values, history: now.history }));
      if (saved) return saved;
      const errors = {
        ...clashErrors(merged.clashes, now.values, shownValue(base.names)),
        ...(codeOverMovedModel ? { gearboxCode: t('repairOrders.modelChangedMeanwhile') } : {}),
      };
      return { draft: { ...now, values: merged.values, errors, filled: now.values }, formError: t('repairOrders.changedMeanwhile') };
    }
    if (base.part === 'history' && filledRows) {
      const merged = mergeRows({ typed: form.history, filled: filledRows, saved: now.history });
      const saved = !merged.clash && (await saveMerged({ values: now.values, history: merged.rows }));
      if (saved) return saved;
      return {
        draft: { ...now, history: merged.rows, filledRows: now.history, errors: rowErrors(merged.notes) },
        formError: t('repairOrders.historyChangedMeanwhile'),
      };
    }
    // A form from before forms carried what they were filled with: what was typed, over the version now saved.
    return { draft: { ...posted, errors: {}, version: now.version }, formError: failure.formError };
  }
}

// Every field of the general data, as the form labels it, in the form's order.
const FIELD_LABELS = {
  number: 'repairOrders.number',
  openedOn: 'repairOrders.openedOn',
  interventionCategory: 'repairOrders.category',
  gearboxModelId: 'repairOrders.model',
  gearboxCode: 'repairOrders.gearboxCode',
  referentId: 'repairOrders.referent',
  vehicleBrand: 'repairOrders.vehicleBrand',
  vehicleModel: 'repairOrders.vehicleModel',
  constructionYear: 'repairOrders.constructionYear',
  energy: 'repairOrders.energy',
  engineSize: 'repairOrders.engineSize',
  mileage: 'repairOrders.mileage',
  interventions: 'repairOrders.interventions',
  outageParts: 'repairOrders.outageParts',
  comment: 'repairOrders.comment',
} as const satisfies Record<(typeof ORDER_FIELDS)[number], string>;
const CHOICES: Record<string, Record<string, string>> = {
  interventionCategory: interventionCategoryLabels,
  energy: energyLabels,
  engineSize: engineSizeLabels,
  mileage: mileageBandLabels,
};

/** The names behind the ids a form picks: the models and referents it offers (or the saved ones). */
export type PickedNames = { models: readonly { id: string; model: string }[]; referents: readonly { id: string; displayName: string }[] };

/** A field's value as the user reads it: a choice by its label, a model or a referent by its name, a date as dd/mm/yyyy, a text as typed. */
const shownValue = (names: PickedNames) => (name: string, value: string) => {
  if (name === 'gearboxModelId') return names.models.find((m) => m.id === value)?.model ?? value;
  if (name === 'referentId') return value ? (names.referents.find((r) => r.id === value)?.displayName ?? value) : t('repairOrders.noReferent');
  if (name === 'openedOn') return formatDate(isoDay(value)) || value;
  return CHOICES[name]?.[value] ?? value;
};

/**
 * What the user changed on a posted form that the saved order does not hold, labelled as the form
 * labels it: a field typed otherwise than it was filled, a history row added or taken out; not what
 * a colleague changed meanwhile, nor what is saved already. Shown when the save cannot happen at
 * all (the order closed meanwhile), so that nothing typed is lost. A form posted without what it
 * was filled with is read against the order as saved.
 */
export function unsavedOf(
  form: Pick<OrderDraft, 'values' | 'history' | 'filled' | 'filledRows'>,
  saved: OrderDraft,
  part: OrderPart,
  names: PickedNames,
): { label: string; value: string }[] {
  if (part === 'history') {
    // A mileage typed as digits reads grouped, as the saved ones do (walk17 F3).
    const mileage = (typed: string) => (/^\d+$/.test(typed.replace(/\s/g, '')) ? formatNumber(Number(typed.replace(/\s/g, ''))) : textAsRead(typed));
    const line = (h: HistoryRow) => `${mileage(h.mileage)} km : ${textAsRead(h.intervention)}`;
    const [typed, was, kept] = [rowCounts(form.history), rowCounts(form.filledRows ?? saved.history), rowCounts(saved.history)];
    // Of each kind of row, how many the user added (or took out) beyond what is saved now added (or took out).
    const more = (a: Map<string, number>, b: Map<string, number>) => (k: string) => Math.max(0, (a.get(k) ?? 0) - (b.get(k) ?? 0));
    const lost = (mine: (k: string) => number, done: (k: string) => number) =>
      new Map([...new Set([...typed.keys(), ...was.keys()])].map((k) => [k, mine(k) - done(k)]));
    const added = lost(more(typed, was), more(kept, was));
    const removed = lost(more(was, typed), more(was, kept));
    return [
      ...takeRows(form.history, added).taken.map((h) => ({ label: t('repairOrders.history'), value: line(h) })),
      ...takeRows(saved.history, removed).taken.map((h) => ({ label: t('repairOrders.historyRemoved'), value: line(h) })),
    ];
  }
  return unsavedFields(FIELD_LABELS, { typed: form.values, filled: form.filled, saved: saved.values }, shownValue(names), asCompared);
}

/** The names of a saved order's model and referent, for reading its values back. */
export const savedNames = (order: SavedOrder): PickedNames => ({ models: [order.model], referents: order.referent ? [order.referent] : [] });

/** The form's values of a saved order, and the version of the part its form saves. */
export function orderValues(order: SavedOrder, part: OrderPart): OrderDraft {
  const values = Object.fromEntries(
    ORDER_FIELDS.map((name) => {
      if (name === 'gearboxModelId') return [name, order.model.id];
      if (name === 'referentId') return [name, order.referent?.id ?? ''];
      if (name === 'interventions' || name === 'outageParts') return [name, order[name].join('\n')];
      const value = order[name as keyof typeof order];
      return [name, value === null || value === undefined ? '' : String(value)];
    }),
  );
  // «120 000» as the user types it and the activity shows it (walk16 F3), never «120000».
  const history = order.history.map((h) => ({ mileage: formatNumber(h.mileage), intervention: h.intervention }));
  return {
    values,
    history,
    errors: {},
    version: order.versions[part],
    ...(part === 'general' ? { filled: values } : { filledRows: history }),
  };
}
