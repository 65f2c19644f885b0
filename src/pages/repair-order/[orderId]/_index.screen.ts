// The screen module of a repair order (`/repair-order/{orderId}`, SPEC §2.7, decision 065): what
// its URL may say, what each tab reads (the order once, and only the open tab's data), and its
// posts without JavaScript: the general data and the history, the fault code reading and the
// deletion (admins and diagnosticians, while the order is open), and the procedure tab's: a
// checkpoint's answer, closing and an admin's reopening, posted straight to the service, which
// decides who may.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { redirectWithToast } from '#lib/auth/session.server.ts';
import { hasCode } from '#lib/errors.ts';
import { formFailureOf, isUnread, submitAction, postedForm } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { choice, entry, integer, option, readPage, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { parseCurve } from '#lib/repair-orders/curves.ts';
import type { Temporality } from '#lib/repair-orders/conditions.ts';
import type { DocumentCategory } from '#lib/gearboxes/documents.ts';
import type { Draft, OrderCheckpoint } from '#lib/repair-orders/checkpoints.ts';
import type { CheckResult } from '#lib/repair-orders/check-results.ts';
import { checkpointAnswerSchema, closeOrderSchema, type OrderEventKind } from '#lib/repair-orders/procedure.ts';
import { postFaultCodeReading } from '#lib/repair-orders/fault-codes.server.ts';
import { fieldErrors } from '#lib/validation.ts';
import {
  type OrderDraft,
  type PickedNames,
  type SavedOrder,
  orderValues,
  postedDraft,
  saveOrderForm,
  savedNames,
  typedOver,
  unsavedOf,
} from '#pages/repair-order/_order-form.ts';
import type { Role } from '#lib/roles.ts';
import type { PhotoItem } from '#lib/repair-orders/photos.ts';
import {
  noneAddedMessage,
  photoItemOf,
  photoRefusal,
  photosAdded,
  photosRefused,
  postedKey,
  postedPhotos,
  tooBigMessage,
} from '#lib/repair-orders/photos.server.ts';
import { PHOTOS_FIELD } from '#lib/repair-orders/photos.ts';

/** The order's tabs of its own page (SPEC §2.7); the diagnostic and the activity have theirs. */
const orderTabs = ['general', 'codes-defaut', 'historique', 'informations-techniques', 'procedure', 'rapport'] as const;
/** The technical information's own tabs (SPEC §2.7). */
const technicalViews = ['courbes', 'constructeur', 'pannes', 'compatibles'] as const;

/** `/repair-order/{orderId}?onglet=&vue=&bva=&supprimer&confirmer-lecture=`, and a post's `action=`, `id=` (a checkpoint's) and `version=`. */
export const querySchema = z
  .object({
    orderId: recordId(),
    onglet: option(orderTabs, 'general'),
    vue: option(technicalViews, 'courbes'),
    ...recordPageFields,
    // A checkpoint's answer names its row and the version it saw.
    id: recordId(),
    version: integer(0, 2_147_483_647),
    bva: entry(40),
    'confirmer-lecture': choice(['non'] as const),
    // A photo whose deletion the procedure tab asks first.
    'supprimer-photo': recordId(),
  })
  .transform((q) => ({
    orderId: q.orderId,
    tab: q.onglet,
    // A search names its tab; an old link with only ?bva= still shows its result.
    technicalView: q.bva !== undefined && q.vue === 'courbes' ? ('compatibles' as const) : q.vue,
    ...recordPageValues(q),
    checkpointId: q.id,
    version: q.version ?? 0,
    compatibleSearch: q.bva,
    confirmNoReading: q['confirmer-lecture'] === 'non',
    confirmPhoto: q['supprimer-photo'],
  }));

export const read = (astro: { params: Record<string, string | undefined>; url: URL }) => readPage(querySchema, astro);

/** Everything the order page reads from its path and URL. */
export type OrderPageQuery = ReturnType<typeof read>;

type Services = App.Locals['services'];
type Order = NonNullable<Awaited<ReturnType<Services['repairOrders']['get']>>>;

/** Admins and diagnosticians edit an open order; the others read it. */
const manages = (locals: App.Locals, order: { status: string }) => can(locals.user?.role, 'manageOrders') && order.status !== 'CLOSED';
const hrefOf = (orderId: string) => `/repair-order/${orderId}`;
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** A checkpoint as the procedure island reads it (the API's shape: its dates as ISO text). */
const checkpointOf = (row: Awaited<ReturnType<Services['orderProcedure']['checkpointsOf']>>[number]): OrderCheckpoint => ({
  ...row,
  checkResult: (row.checkResult as CheckResult | null) ?? null,
  answeredAt: iso(row.answeredAt),
});

/** The repair procedure once validated: the procedures with their checkpoints, closings and reopenings, in one read. */
async function procedureOf(services: Services, orderId: string) {
  const [{ procedures, events }, photos] = await Promise.all([services.orderProcedure.followedOf(orderId), services.orderPhotos.photosOf(orderId)]);
  return {
    photos: photosByCheckpoint(services, photos),
    procedures: procedures.map(({ id, name, description, steps, checkpoints }) => ({
      id,
      name,
      description,
      steps,
      checkpoints: checkpoints.map(checkpointOf),
    })),
    events: events.map((e) => ({ kind: e.kind as OrderEventKind, at: iso(e.at)!, byName: e.byName, comment: e.comment })),
  };
}

/** The checkpoints' photos, by checkpoint, as the grids show them (links signed for the hour). */
function photosByCheckpoint(services: Services, photos: Awaited<ReturnType<Services['orderPhotos']['photosOf']>>) {
  const by: Record<string, PhotoItem[]> = {};
  for (const p of photos) if (p.checkpointId) (by[p.checkpointId] ??= []).push(photoItemOf(services.files, p));
  return by;
}

/** The technical information's open view (SPEC §2.7): the model's documents, known outages or compatible gearboxes. */
async function technicalOf(locals: App.Locals, order: Order, { technicalView: view, compatibleSearch }: OrderPageQuery) {
  const { gearboxModels, gearboxDocuments, stock, files } = locals.services;
  const modelId = order.model.id;
  const bva = view === 'compatibles' ? (compatibleSearch ?? '') : '';
  const [modelDocuments, outages, orderCount, compatible, inStock] = await Promise.all([
    view === 'courbes' || view === 'constructeur' ? gearboxDocuments.ofModel(modelId) : [],
    view === 'pannes' ? gearboxModels.outagesOf(modelId) : [],
    view === 'pannes' ? gearboxModels.orderCountOf(modelId) : 0,
    bva ? gearboxModels.list({ search: bva, limit: 50, offset: 0 }) : [],
    // Boxes in stock per compatible model: one count of the current stock, not one request per model.
    bva && can(locals.user?.role, 'manageStock') ? stock.counts({ history: false, search: '', modelId: null, type: null, condition: null, rack: null }) : null,
  ]);
  // The dossier's documents as the document list reads them (the API's shape: the date as ISO text).
  const shown = modelDocuments.map((d) => ({ ...d, category: d.category as DocumentCategory, createdAt: iso(d.createdAt)! }));
  const curves =
    view === 'courbes'
      ? await Promise.all(
          shown
            .filter((d) => d.category === 'reference-curve')
            .map(async (document) => {
              const text = await files.readText(document.file.id);
              return { document, curve: text ? parseCurve(text) : null };
            }),
        )
      : [];
  return {
    bvaId: order.model.bvaId,
    orderCount,
    documents: shown,
    curves,
    outages: outages.map((o) => ({
      ...o,
      orderCount: Number(o.orderCount ?? 0),
      ordersAverageMileage: o.ordersAverageMileage == null ? null : Number(o.ordersAverageMileage),
    })),
    search: bva,
    compatible,
    stockCounts: inStock ? compatible.map((m) => inStock.filter((c) => c.modelId === m.id).reduce((sum, c) => sum + c.n, 0)) : null,
  };
}
export type OrderTechnical = Awaited<ReturnType<typeof technicalOf>>;

/**
 * The order and what its open tab shows, reading the order once; null when the URL names no
 * order. The models and referents only for the tabs whose form picks them.
 */
export async function load(locals: App.Locals, query: OrderPageQuery) {
  const { orderId, tab } = query;
  if (!orderId) return null;
  const services = locals.services;
  const form = tab === 'general' || tab === 'historique' || tab === 'rapport';
  const [order, faultCodes, models, referents, procedure] = await withinBudget(
    locals,
    Promise.all([
      services.repairOrders.get(orderId),
      // The order's heaviest read (decision 074's profile), for the one tab that shows it.
      tab === 'codes-defaut' ? services.faultCodes.faultCodesOf(orderId) : [],
      form ? services.gearboxModels.catalogue() : [],
      form ? services.repairOrders.referents() : [],
      tab === 'procedure' ? procedureOf(services, orderId) : null,
    ]),
  );
  if (!order) return null;
  const technical = tab === 'informations-techniques' ? await withinBudget(locals, technicalOf(locals, order, query)) : null;
  return {
    order,
    // The service's row, its temporality typed as the tab reads it.
    faultCodes: faultCodes.map((c) => ({ ...c, temporality: c.temporality as Temporality | null })),
    models,
    referents,
    manage: manages(locals, order),
    self: hrefOf(order.id),
    draft: orderValues(order, tab === 'historique' ? 'history' : 'general'),
    validatedAt: iso(order.validatedAt),
    procedure,
    technical,
  };
}

export type OrderPage = NonNullable<Awaited<ReturnType<typeof load>>>;

/** A post that did not go through: what to show again, and the status to answer. */
export type OrderPageFailure = {
  status: number;
  /** The order form as typed, after a refused save. */
  draft?: OrderDraft;
  formError?: string | null;
  /** The procedure tab's: a checkpoint's refused answer, a refused closing or reopening and its comment. */
  procedureFailure?: { id: string; values: Draft; message: string } | null;
  procedureError?: string | null;
  procedureComment?: string;
  /** A checkpoint's refused photos (its id), said beside its photo field. */
  photoFailure?: { id: string; message: string } | null;
  /** What a save posted on an order closed meanwhile carried, field by field, for the user to copy. */
  unsaved?: { label: string; value: string }[];
  /** That save's form as posted, to fill the form again should the order be reopened (walk16 F5). */
  typed?: OrderDraft;
  /** Said above the form, not as an error: the order reopened since that refusal. */
  formNotice?: string;
};

/** The names a form's values are read back with: the saved order's model and referent, and those it could pick. */
const namesOf = (order: SavedOrder, models: PickedNames['models'], referents: PickedNames['referents']): PickedNames => ({
  models: [...savedNames(order).models, ...models],
  referents: [...savedNames(order).referents, ...referents],
});

/**
 * A refusal read back on a later visit, as the order stands now (walk15 F1, F2): once the order is
 * reopened, the closed order's refusal fills the form again with what was typed (walk16 F5), to
 * save over what is saved now as any form filled earlier; a form refused for another reason on an
 * order closed since shows the closed order's refusal, with what was typed to copy.
 */
export function refusalNow(
  failure: OrderPageFailure | null,
  page: OrderPage | null,
  tab: OrderPageQuery['tab'],
  role: Role | undefined,
): OrderPageFailure | null {
  if (!failure || !page) return failure;
  const closed = page.order.status === 'CLOSED';
  if (failure.unsaved && !closed) {
    // Nothing of the user's was lost: nothing to say once the order is open again.
    if (failure.unsaved.length === 0) return null;
    if (failure.typed && can(role, 'manageOrders')) {
      const part = tab === 'historique' ? 'history' : 'general';
      const draft = typedOver(failure.typed, orderValues(page.order, part), part, namesOf(page.order, page.models, page.referents));
      return { status: failure.status, draft, formNotice: t('refusals.orderReopenedTyped') };
    }
    // Refused before refusals carried the form: what was typed, listed.
    return { ...failure, formError: t('refusals.orderReopened') };
  }
  if (!failure.draft || !closed || !can(role, 'manageOrders')) return failure;
  const part = tab === 'historique' ? 'history' : 'general';
  const unsaved = unsavedOf(failure.draft, orderValues(page.order, part), part, namesOf(page.order, page.models, page.referents));
  return unsaved.length ? { status: failure.status, formError: t('refusals.orderClosed'), unsaved } : null;
}

/**
 * Where on its tab a refused post shows again, the post's address without its action (decision
 * 039): a checkpoint's answer at its row (`?onglet=procedure#point-…`); the deletion at the
 * order's address, the fault code reading at the codes tab's, both at the top.
 */
export function refusalAnchor({ tab, action, checkpointId }: Pick<OrderPageQuery, 'tab' | 'action' | 'checkpointId'>): string | undefined {
  return tab === 'procedure' && (action === 'point' || action === 'photos') && checkpointId ? `#point-${checkpointId}` : undefined;
}

/** A refusal of the procedure tab, in French, as the API said it; a role's refusal, the generic error. */
const messageOf = (error: unknown) => {
  const failure = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), fields: [] });
  return hasCode(failure, 'forbidden') ? t('errors.generic') : failure.formError!;
};

/**
 * The procedure tab's posts when JavaScript is off (the island saves through the API otherwise):
 * a checkpoint's answer, closing the order, an admin's reopening, each straight to the service.
 */
async function postProcedure(
  astro: AstroGlobal,
  { orderId, action, checkpointId, version }: OrderPageQuery & { orderId: string },
): Promise<Response | OrderPageFailure> {
  const { orderProcedure, orderPhotos } = astro.locals.services;
  const self = `${hrefOf(orderId)}?onglet=procedure`;
  if (action === 'photos' || action === 'supprimer-photo') {
    const id = checkpointId ?? '';
    const missing = (): OrderPageFailure => ({ status: 404, procedureFailure: null, procedureError: t('refusals.itemNotFound') });
    if (!checkpointId) return missing();
    // Over the photo post's cap, left unread (middleware): refused whole beside the field.
    if (action === 'photos' && isUnread(astro)) {
      const message = tooBigMessage(astro.locals.services.config.storageMaxBytes.photo);
      return { status: 413, procedureFailure: null, procedureError: null, photoFailure: { id, message } };
    }
    const form = await postedForm(astro);
    const uploads = postedPhotos(form);
    try {
      if (action === 'supprimer-photo') {
        // Back at the photo's checkpoint, as after an add (the photo's id is the one posted).
        const at = await orderPhotos.removeFromCheckpoint(id, orderId);
        return redirectWithToast(astro, t('orderPhotos.removed'), `${self}#point-${at}`);
      }
      const count = await orderPhotos.addToCheckpoint(id, uploads, orderId, postedKey(form));
      return photosAdded(astro, count, `${self}#point-${id}`);
    } catch (error) {
      const failure = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), fields: [PHOTOS_FIELD] });
      const refusal = photoRefusal(failure, messageOf(error));
      const { message } = refusal;
      const status = hasCode(failure, 'not-found') ? 404 : refusal.status;
      if (action === 'photos') {
        const scripted = photosRefused(astro, status, hasCode(failure, 'not-found') ? t('refusals.itemNotFound') : message, uploads);
        if (scripted) return scripted;
      }
      if (hasCode(failure, 'not-found')) return missing();
      // A deletion refused (the order closed meanwhile) is said above the list.
      if (action === 'supprimer-photo') return { status: 409, procedureFailure: null, procedureError: message };
      return { status, procedureFailure: null, procedureError: null, photoFailure: { id, message: noneAddedMessage(message) } };
    }
  }
  const form = await postedForm(astro);
  const comment = String(form.get('comment') ?? '').slice(0, 2000);
  if (action === 'point') {
    const id = checkpointId ?? '';
    const values: Draft = {
      checkResult: (String(form.get('checkResult') ?? '') || null) as CheckResult | null,
      measuredValue: String(form.get('measuredValue') ?? '').slice(0, 40),
      comment: comment.slice(0, 1000),
    };
    const refused = (message: string): OrderPageFailure => ({ status: 400, procedureFailure: { id, values, message }, procedureError: null });
    // No such checkpoint on this order (none posted, or another order's): said above the list, there is no row to say it at.
    const missing = (): OrderPageFailure => ({ status: 404, procedureFailure: null, procedureError: t('refusals.itemNotFound') });
    if (!checkpointId) return missing();
    // The row's one schema, the island's and the API's: the first field at fault says why.
    const parsed = checkpointAnswerSchema.safeParse({ ...values, checkResult: values.checkResult ?? undefined });
    if (!parsed.success) return refused(Object.values(fieldErrors(parsed.error))[0] ?? t('errors.repairOrderUpdate'));
    try {
      await orderProcedure.answer(id, parsed.data, version, orderId);
      return redirectWithToast(astro, t('orderProcedure.answerSaved'), `${self}#point-${id}`);
    } catch (error) {
      if (hasCode(formFailureOf(error), 'not-found')) return missing();
      return refused(messageOf(error));
    }
  }
  try {
    if (action === 'cloturer') {
      // Without JavaScript there is no dialog: the box ticked is the confirmation.
      if (form.get('confirmer') !== '1')
        return { status: 400, procedureFailure: null, procedureError: t('orderProcedure.closeCheckRequired'), procedureComment: comment };
      await orderProcedure.close(orderId, closeOrderSchema.parse({ comment }).comment);
      return redirectWithToast(astro, t('orderProcedure.closed'), self);
    }
    if (action === 'rouvrir') {
      await orderProcedure.reopen(orderId, closeOrderSchema.parse({ comment }).comment);
      return redirectWithToast(astro, t('orderProcedure.reopened'), self);
    }
  } catch (error) {
    // The comment typed for the closing or the reopening comes back in its field.
    return { status: 409, procedureFailure: null, procedureError: messageOf(error), procedureComment: comment };
  }
  return astro.redirect(self, 303);
}

/**
 * Carries out a post, before the page reads what it shows (a post that succeeds redirects
 * without it): a redirect with its toast, what to show again, or null when nothing was for
 * this viewer or this order. The procedure tab's go straight to the service; the others read the
 * order once, for what they need of it (its status, its fault codes, its form's values).
 */
export async function post(astro: AstroGlobal, query: OrderPageQuery): Promise<Response | OrderPageFailure | null> {
  const { orderId, tab, action } = query;
  if (!orderId) return null;
  if (tab === 'procedure') return postProcedure(astro, { ...query, orderId });
  const { repairOrders, faultCodes } = astro.locals.services;
  const [order, codes] = await Promise.all([repairOrders.get(orderId), action === 'lecture' ? faultCodes.faultCodesOf(orderId) : []]);
  if (!order) return null;
  // Closed while this form was open: said, with what was typed, rather than dropped (walk13 F1).
  if (order.status === 'CLOSED' && can(astro.locals.user?.role, 'manageOrders') && !action) {
    const part = tab === 'historique' ? 'history' : 'general';
    const [models, referents] = await Promise.all([astro.locals.services.gearboxModels.catalogue(), repairOrders.referents()]);
    const typed = postedDraft(await postedForm(astro), { part, order: orderValues(order, part) });
    const unsaved = unsavedOf(typed, orderValues(order, part), part, namesOf(order, models, referents));
    return { status: 409, formError: t('refusals.orderClosed'), unsaved, typed };
  }
  if (!manages(astro.locals, order)) return null;
  const self = hrefOf(orderId);
  if (action === 'lecture') {
    const result = await postFaultCodeReading(astro, { orderId, faultCodeCount: codes.length }, `${self}?onglet=codes-defaut`);
    return result instanceof Response ? result : { status: 400, formError: result };
  }
  if (action === 'supprimer') {
    const result = await submitAction(astro, async () => {
      await repairOrders.remove(orderId);
      return redirectWithToast(astro, t('repairOrders.deleted'), '/repair-orders');
    });
    return result instanceof Response ? result : { status: 400, formError: result.formError };
  }
  const history = tab === 'historique';
  const result = await saveOrderForm(astro.locals, astro.request, {
    orderId,
    base: { part: history ? 'history' : 'general', order: orderValues(order, history ? 'history' : 'general'), names: savedNames(order) },
    fallback: t('errors.repairOrderUpdate'),
  });
  if ('orderId' in result) return redirectWithToast(astro, t('repairOrders.saved'), history ? `${self}?onglet=historique` : self);
  return { status: 400, draft: result.draft, formError: result.formError };
}
