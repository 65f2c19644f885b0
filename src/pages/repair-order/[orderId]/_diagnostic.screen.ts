// The screen module of an order's diagnostic (`/repair-order/{uuid}/diagnostic`, SPEC §2.7, §4,
// decision 065): what its URL may say, what it reads through the viewer's services (the order, its
// fault codes, symptoms and ranked outages, then what the open tab or diagnostic step shows) and its
// posts, which only admins and diagnosticians make while the order is open, each handed to the tab
// or diagnostic step it belongs to: the diagnostic steps and start guide, the fault code reading, the
// measures and the curves.
import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { redirectWithToast, setFlash } from '#lib/auth/session.server.ts';
import { hasCode } from '#lib/errors.ts';
import { formatNumber } from '#lib/format.ts';
import { type FormFailure, formFailureOf, storeAndLink, postedForm } from '#lib/forms.server.ts';
import { checkProcedureDraft, readProcedureForm, type ProcedureDraft } from '#lib/gearboxes/procedures.ts';
import { t } from '#lib/i18n.ts';
import { withinBudget } from '#lib/page-budget.ts';
import { choice, moreRows, option, readPage, recordId, recordPageFields, recordPageValues } from '#lib/page-query.ts';
import { can } from '#lib/permissions.ts';
import { singular } from '#lib/plural.ts';
import {
  CURVE_BUCKET,
  IMPORT_BUCKET,
  isCurveFileName,
  MAX_CURVE_BYTES,
  MAX_CURVE_ROWS,
  ORDER_CURVE_FIELDS,
  orderCurveSchema,
  readCurve,
  type CurveReading,
} from '#lib/repair-orders/curves.ts';
import { isCsv, readingOf } from '#lib/repair-orders/curves.server.ts';
import {
  diagnosticHref,
  diagnosticTabs,
  stepHref,
  stepSlugs,
  outageChoiceSchema,
  procedureChoiceSchema,
  STEP_REQUIRED,
  stepFor,
  stepNeeds,
  type StepSlug,
  type TabActionResult,
  type TabFailure,
} from '#lib/repair-orders/diagnostic-page.ts';
import { postFaultCodeReading } from '#lib/repair-orders/fault-codes.server.ts';
import { orderMeasureSchema } from '#lib/repair-orders/measures.ts';
import { databaseRefusal } from '#server/db/errors.ts';
import { DomainError, refuse } from '#server/errors.ts';
import { isUuid } from '#lib/ids.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';

/** `/repair-order/{uuid}/diagnostic?onglet=&etape=&action=…`: its path and query, read by the page and handed to its tabs. */
export const querySchema = z
  .object({
    orderId: recordId(),
    etape: choice(stepSlugs),
    onglet: option(diagnosticTabs, 'codes'),
    ...recordPageFields,
    // The record a form acts on when its body does not name it (a curve's file).
    id: recordId(),
    lignes: moreRows(40),
    courbe: recordId(),
    'confirmer-courbe': recordId(),
    'confirmer-import': recordId(),
    'confirmer-lecture': choice(['non'] as const),
    'confirmer-mesures': choice(['non'] as const),
  })
  .transform((q) => ({
    orderId: q.orderId,
    step: q.etape,
    tab: q.onglet,
    ...recordPageValues(q),
    recordId: q.id,
    ...q.lignes,
    editCurve: q.courbe,
    confirmCurve: q['confirmer-courbe'],
    confirmImport: q['confirmer-import'],
    confirmNoReading: q['confirmer-lecture'] === 'non',
    confirmNoMeasures: q['confirmer-mesures'] === 'non',
  }));
export type DiagnosticPageQuery = z.output<typeof querySchema>;

export const read = (astro: { params: Record<string, string | undefined>; url: URL }) => readPage(querySchema, astro);

type Services = App.Locals['services'];
/** The order as the services read it; what every tab receives. */
export type DiagnosticOrder = NonNullable<Awaited<ReturnType<Services['repairOrders']['get']>>>;

/** A step asked by URL before its turn: back to the step to do, saying why. */
export function refuseSkippedStep(astro: AstroGlobal, order: Pick<DiagnosticOrder, 'id' | 'diagnosticStep' | 'validatedAt'>, step: StepSlug): Response | null {
  if (order.validatedAt || order.diagnosticStep >= stepNeeds[step]) return null;
  // Says what to do first: the step right after the one reached.
  setFlash(astro.cookies, { type: 'error', message: STEP_REQUIRED[order.diagnosticStep + 1]! });
  return astro.redirect(stepHref(order.id, stepFor(order.diagnosticStep)), 303);
}

/** The outages retained, as the order shows them (a closed one keeps its names, decision 043), each with its procedures by priority. */
async function chosenOutagesOf(services: Services, orderId: string) {
  const outages = await services.diagnostic.chosenOutagesOf(orderId);
  return Promise.all(outages.map(async (outage) => ({ ...outage, procedures: await services.repairProcedures.ofOutage(outage.id) })));
}

/** The procedures the order applies, each with the checkpoints it was validated with (none before). */
async function orderProceduresOf(services: Services, orderId: string) {
  // The order's checkpoints in one read, rather than one read per procedure.
  const [links, checkpoints] = await Promise.all([services.diagnostic.proceduresOf(orderId), services.orderProcedure.checkpointsOf(orderId)]);
  return links.map((link) => ({ ...link, checkpoints: checkpoints.filter((c) => c.orderProcedureId === link.id) }));
}

/** What a diagnostic step shows: the outages retained, the procedures chosen and, to add one, the model's others. */
async function loadSteps(services: Services, order: DiagnosticOrder, step: StepSlug) {
  const [chosen, procedures, modelProcedures] = await Promise.all([
    chosenOutagesOf(services, order.id),
    orderProceduresOf(services, order.id),
    step === 'ajout' ? services.repairProcedures.listOf(order.model.id) : Promise.resolve([]),
  ]);
  return { chosen, procedures, modelProcedures };
}
export type StepData = Awaited<ReturnType<typeof loadSteps>>;

/** The measures tab: the order's measures and the dossier's, to say how many are still to add. */
async function loadMeasures(services: Services, order: DiagnosticOrder) {
  const [measures, dossier] = await Promise.all([services.orderMeasures.measuresOf(order.id), services.gearboxMeasures.listOf(order.model.id)]);
  return { measures, dossier };
}
export type MeasuresData = Awaited<ReturnType<typeof loadMeasures>>;

/** The curves tab: curves, imported files, the model's reference curves and measure procedures, each CSV to draw read once. */
async function loadCurves(locals: App.Locals, order: DiagnosticOrder) {
  const { services } = locals;
  const [curves, imports, documents] = await Promise.all([
    services.orderCurves.curvesOf(order.id),
    services.orderCurves.importsOf(order.id),
    services.gearboxDocuments.ofModel(order.model.id),
  ]);
  const readings = new Map<string, CurveReading>();
  const toRead = curves.flatMap((c) => [...(c.reference ? [c.reference.file] : []), ...c.files.map((f) => f.file).filter(isCsv)]);
  for (const file of toRead) if (!readings.has(file.id)) readings.set(file.id, await readingOf(locals, file));
  return {
    curves,
    imports,
    referenceCurves: documents.filter((d) => d.category === 'reference-curve'),
    measureProcedures: documents.filter((d) => d.category === 'measure-procedure'),
    readings,
  };
}
export type CurvesData = Awaited<ReturnType<typeof loadCurves>>;

/** The order and what the page decides from it, with what its open tab or step shows; null when the URL names no order. */
export async function load(locals: App.Locals, { orderId, step, tab }: Pick<DiagnosticPageQuery, 'orderId' | 'step' | 'tab'>) {
  if (!orderId) return null;
  const { services } = locals;
  return withinBudget(
    locals,
    (async () => {
      const order = await services.repairOrders.get(orderId);
      if (!order) return null;
      const [faultCodes, symptoms, candidates, guideHidden, stepData, measures, curves] = await Promise.all([
        services.faultCodes.faultCodesOf(orderId),
        services.symptoms.symptomsOf(orderId),
        services.diagnostic.candidatesOf(orderId, order.model.id),
        services.diagnostic.guideHidden(),
        step ? loadSteps(services, order, step) : null,
        !step && tab === 'mesures' ? loadMeasures(services, order) : null,
        !step && tab === 'courbes' ? loadCurves(locals, order) : null,
      ]);
      const manage = can(locals.user?.role, 'manageOrders') && order.status !== 'CLOSED';
      return {
        order,
        faultCodes,
        symptoms,
        candidates,
        stepData,
        measures,
        curves,
        manage,
        guideHidden,
        showGuide: manage && !guideHidden && !step,
        self: `/repair-order/${order.id}`,
        // How far the diagnostic went: 4 once the diagnostic is validated.
        reached: order.validatedAt ? 4 : order.diagnosticStep,
        topCandidates: candidates.slice(0, 6),
        // With no fault code and no symptom recorded, no closed order is similar: the ranking is the dossier's.
        outagesHint: faultCodes.length === 0 && symptoms.length === 0 ? t('diagnostic.nothingToCompare') : t('diagnostic.outagesHint'),
      };
    })(),
  );
}

/** What a post the page could not carry out renders again: the failed tab's or the step's failure. */
export type DiagnosticPageFailure = { status: number; tabFailure: TabFailure | null; stepFailure: StepFailure | null };

/**
 * Hands `?action=` to its tab or diagnostic step: a redirect with its toast (or to the step to do first,
 * for a step asked too early), or the failure to render; null when the URL names no order or the
 * viewer may not edit it. The order is read once, for its state; the services refuse the rest.
 */
export async function post(astro: AstroGlobal, query: DiagnosticPageQuery): Promise<Response | DiagnosticPageFailure | null> {
  const { services } = astro.locals;
  const order = query.orderId ? await services.repairOrders.get(query.orderId) : undefined;
  if (!order) return null;
  // A step asked before its turn redirects, even on a post.
  const refused = query.step ? refuseSkippedStep(astro, order, query.step) : null;
  if (refused) return refused;
  if (!can(astro.locals.user?.role, 'manageOrders') || order.status === 'CLOSED') return null;
  const { action } = query;
  // Which tab a post belongs to: its failure re-renders that tab; the others show above the page.
  const owner = action.startsWith('mesure') ? 'mesures' : action.startsWith('courbe') || action.startsWith('import') ? 'courbes' : null;
  const dispatch = async (): Promise<Response | TabFailure> =>
    owner === 'mesures'
      ? await postMeasures(astro, order, query)
      : owner === 'courbes'
        ? await postCurves(astro, order, query)
        : action === 'lecture'
          ? await postFaultCodeReading(
              astro,
              { orderId: order.id, faultCodeCount: (await services.faultCodes.faultCodesOf(order.id)).length },
              diagnosticHref(order.id, 'codes'),
            ).then((r) => (r instanceof Response ? r : { status: 400, formError: r }))
          : await postStep(astro, order, query);
  // What the database refused shows at its tab or step, as the API said it.
  const result = await dispatch().catch((error: unknown) => {
    const told = databaseRefusal(error);
    if (!told) throw error;
    return { status: owner === null && told.kind === 'conflict' ? 409 : 400, form: action, formError: told.message };
  });
  if (result instanceof Response) return result;
  return { status: result.status, tabFailure: owner ? result : null, stepFailure: owner ? null : result };
}

// The diagnostic steps' form posts (choose outages → procedures → add → visualise → validate) and the start
// guide's checkbox. Each success redirects to the next step's URL; a refusal comes back as a
// failure the page renders with what was typed.

/** The steps the "add a procedure" step's own buttons lead to. */
const LEAVING = ['procedures', 'visualiser'] as const;
const isBlankDraft = (draft: ProcedureDraft) => !draft.name.trim() && !draft.description.trim() && !draft.steps.trim() && draft.checkpoints.length === 0;

export type StepFailure = TabFailure & { draft?: ProcedureDraft; selection?: string[] };

async function postStep(
  astro: AstroGlobal,
  order: Pick<DiagnosticOrder, 'id'>,
  query: Pick<DiagnosticPageQuery, 'action' | 'moreRows'>,
): Promise<Response | StepFailure> {
  const { action } = query;
  const { diagnostic } = astro.locals.services;
  const form = await postedForm(astro);
  const orderId = order.id;
  let failure: StepFailure = { status: 400, form: action };
  try {
    switch (action) {
      case 'guide': {
        await diagnostic.setGuideHidden(form.get('hidden') === '1');
        const tab = diagnosticTabs.find((name) => name === form.get('onglet')) ?? 'codes';
        return astro.redirect(diagnosticHref(orderId, tab), 303);
      }
      case 'pannes': {
        const ids = form.getAll('outageId').map(String);
        failure = { ...failure, selection: ids };
        const parsed = outageChoiceSchema.safeParse({ outageIds: ids });
        if (!parsed.success) return { ...failure, formError: parsed.error.issues[0]!.message };
        await diagnostic.chooseOutages(orderId, parsed.data.outageIds);
        return redirectWithToast(astro, t('diagnostic.saved'), stepHref(orderId, 'procedures'));
      }
      case 'procedures': {
        const picked = form.getAll('procedure').map(String);
        failure = { ...failure, selection: picked };
        const parsed = procedureChoiceSchema.safeParse({ procedures: picked });
        if (!parsed.success) return { ...failure, formError: parsed.error.issues[0]!.message };
        await diagnostic.chooseProcedures(orderId, parsed.data.procedures);
        return redirectWithToast(astro, t('diagnostic.saved'), stepHref(orderId, 'ajout'));
      }
      case 'ajout-existante': {
        const procedureId = String(form.get('procedureId') ?? '');
        if (!procedureId) return { ...failure, errors: { procedureId: t('validation.required') } };
        await diagnostic.addProcedure(orderId, uuidOf(procedureId));
        return redirectWithToast(astro, t('diagnostic.procedureAdded'), stepHref(orderId, 'ajout'));
      }
      case 'ajout-nouvelle': {
        const draft = readProcedureForm(form);
        // «Précédent» and «Continuer» submit this form too (`suite`): what was typed is saved on the
        // way, never dropped; with nothing typed they only move on.
        const next = LEAVING.find((step) => step === form.get('suite'));
        if (next && isBlankDraft(draft)) return astro.redirect(stepHref(orderId, next), 303);
        const checked = checkProcedureDraft(draft);
        failure = { ...failure, draft, errors: checked.errors };
        // "More rows" posts back what was typed; nothing is written.
        if (query.moreRows) return { ...failure, errors: {} };
        if (!checked.input) return failure;
        // One transaction: the procedure joins the dossier only if the order takes it.
        await diagnostic.addNewProcedure(orderId, checked.input);
        return redirectWithToast(astro, t('diagnostic.procedureAdded'), stepHref(orderId, next ?? 'ajout'));
      }
      case 'visualiser':
        await diagnostic.markVisualised(orderId);
        return astro.redirect(stepHref(orderId, 'valider'), 303);
      case 'valider':
        await diagnostic.validate(orderId);
        return redirectWithToast(astro, t('diagnostic.validated'), stepHref(orderId, 'valider'));
      case 'rouvrir':
        await diagnostic.reopen(orderId);
        return redirectWithToast(astro, t('diagnostic.reopened'), stepHref(orderId, 'visualiser'));
      default:
        return { status: 400, formError: t('errors.generic') };
    }
  } catch (error) {
    const told = databaseRefusal(error);
    if (told) return { ...failure, status: told.kind === 'conflict' ? 409 : failure.status, formError: told.message };
    // The procedure form names its fields; the others show one message above the form.
    const refusal = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), fields: action === 'ajout-nouvelle' ? undefined : [] });
    const { errors, formError } = refusal;
    if (formError === null) return { ...failure, errors };
    return { ...failure, status: hasCode(refusal, 'conflict') ? 409 : failure.status, formError };
  }
}

// The "measures and checks" tab's forms: were measures taken (answering no asks first when
// measures would be lost), add one measure, add the dossier's measures.

const MEASURE_ACTIONS = ['mesures-prises', 'mesure-ajout', 'mesures-dossier'] as const;
type MeasureAction = (typeof MEASURE_ACTIONS)[number];

const same = (a: string, b: string) => a.trim().toLocaleLowerCase('fr') === b.trim().toLocaleLowerCase('fr');

async function postMeasures(
  astro: AstroGlobal,
  order: Pick<DiagnosticOrder, 'id' | 'model'>,
  query: Pick<DiagnosticPageQuery, 'action'>,
): Promise<TabActionResult> {
  const action = query.action as MeasureAction;
  const { orderMeasures, gearboxMeasures } = astro.locals.services;
  const orderId = order.id;
  const tabHref = diagnosticHref(orderId, 'mesures');
  if (!action || !MEASURE_ACTIONS.includes(action)) return { status: 400, formError: t('errors.generic') };
  // A post without a body (a bare button) reads as an empty form, not a 500.
  const form = await postedForm(astro);
  let values: Record<string, string> = {};
  try {
    if (action === 'mesures-prises') {
      values = { done: String(form.get('done') ?? '') };
      const done = values.done === 'true' ? true : values.done === 'false' ? false : null;
      if (done === null) return { status: 400, form: action, values, errors: { done: t('validation.chooseAnswer') } };
      // What would be lost is said first (SPEC §4).
      if (!done && form.get('confirm') !== '1' && (await orderMeasures.measuresOf(orderId)).length > 0)
        return astro.redirect(diagnosticHref(orderId, 'mesures', '&confirmer-mesures=non'), 303);
      await orderMeasures.setMeasuresDone(orderId, done);
      return redirectWithToast(astro, t('orderMeasures.flagSaved'), tabHref);
    }
    if (action === 'mesure-ajout') {
      values = { name: String(form.get('name') ?? '').slice(0, 200), measuredValue: String(form.get('measuredValue') ?? '').slice(0, 40) };
      // A name of the dossier brings its description, unit and bounds, and the link to it.
      const known = (await gearboxMeasures.listOf(order.model.id)).find((m) => same(m.name, values.name!));
      const parsed = orderMeasureSchema.safeParse(
        known
          ? {
              gearboxMeasureId: known.id,
              name: known.name,
              description: known.description,
              unit: known.unit,
              minimum: known.minimum ?? undefined,
              maximum: known.maximum ?? undefined,
              measuredValue: values.measuredValue,
            }
          : { name: values.name, measuredValue: values.measuredValue },
      );
      if (!parsed.success) return { status: 400, form: action, values, errors: fieldErrors(parsed.error) };
      await orderMeasures.insertMeasure(orderId, parsed.data);
      return redirectWithToast(astro, t('orderMeasures.added'), tabHref);
    }
    const count = await orderMeasures.insertDossierMeasures(orderId);
    return redirectWithToast(
      astro,
      count
        ? singular(count)
          ? t('orderMeasures.dossierAddedOne', { count })
          : t('orderMeasures.dossierAdded', { count })
        : t('orderMeasures.dossierNothing'),
      tabHref,
    );
  } catch (error) {
    const told = databaseRefusal(error);
    if (told) return { status: 400, form: action, values, formError: told.message };
    const { errors, formError } = formFailureOf(error, { fallback: t('errors.repairOrderUpdate'), rename: { gearboxMeasureId: 'name' } });
    const failure: TabFailure = { status: 400, form: action, values };
    if (formError) failure.formError = formError;
    else failure.errors = errors;
    return failure;
  }
}

// The curves tab's posts. A posted file is stored first, then linked to the order; when the link
// fails the stored file goes.

/** An id from a form, as the API's `uuid` took it: a malformed one is refused in French (the caller's own), never sent to the database. */
function uuidOf(value: string): string {
  if (!isUuid(value)) throw refuse('not-allowed', t('refusals.invalidId'));
  return value.toLowerCase();
}

/** A refusal of the file store (format, size, space), told apart from the services' refusals. */
class StoreRefused {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/** What went wrong, in French, whatever threw: nothing reaches the page as a 500. */
function reasonOf(error: unknown): { code?: FormFailure['code']; message: string; fields: FieldErrors } {
  const refused = error instanceof StoreRefused ? error.error : error;
  if (!(refused instanceof DomainError)) return { message: databaseRefusal(refused)?.message ?? t('errors.generic'), fields: {} };
  // The file store's refusals (format, size, space) show beside the file; the services' as the API said them.
  const refusal = formFailureOf(refused, error instanceof StoreRefused ? { fileField: 'file' } : { rename: { fileId: 'file' } });
  const { code, errors, formError } = refusal;
  if (hasCode(refusal, 'not-found')) return { code, message: t('curves.notFound'), fields: {} };
  return { code, message: formError ?? Object.values(errors)[0] ?? t('errors.generic'), fields: errors };
}

const curveFailure = (
  form: string,
  values: Record<string, string>,
  reason: { code?: FormFailure['code']; message: string; fields: FieldErrors },
): TabFailure => ({
  status: hasCode(reason, 'forbidden') ? 403 : 400,
  form,
  values,
  errors: reason.fields,
  // A refusal tied to a field shows there; the others (closed order, rights) above the form.
  formError: Object.keys(reason.fields).length ? undefined : reason.message,
});

/** The posted file, when one was chosen. */
const fileOf = (form: FormData, name = 'file') => {
  const file = form.get(name);
  return file instanceof File && file.size > 0 && file.name ? file : null;
};

/** A curve file is checked before anything is written: its format, and a CSV must read as a curve. */
async function checkCurveFile(file: File): Promise<string | null> {
  if (!isCurveFileName(file.name)) return t('validation.unsupportedFormat');
  if (!file.name.toLowerCase().endsWith('.csv')) return null;
  if (file.size > MAX_CURVE_BYTES) return t('curves.tooLong', { max: formatNumber(MAX_CURVE_ROWS) });
  return readCurve(await file.text()).error ?? null;
}

/** Handles the tab's `?action=courbe…` and `?action=import…` posts. */
export async function postCurves(
  astro: AstroGlobal,
  order: Pick<DiagnosticOrder, 'id'>,
  query: Pick<DiagnosticPageQuery, 'action' | 'recordId'>,
): Promise<TabActionResult> {
  const { locals } = astro;
  const { orderCurves } = locals.services;
  const { action } = query;
  const orderId = order.id;
  const href = diagnosticHref(orderId, 'courbes');
  let form: FormData;
  try {
    form = await postedForm(astro);
  } catch {
    return { status: 400, form: action, formError: t('errors.generic') };
  }
  const id = String(form.get('id') ?? query.recordId ?? '');
  const attach = (
    file: File,
    bucketId: typeof CURVE_BUCKET | typeof IMPORT_BUCKET,
    object: { kind: 'curve' | 'import'; curveId?: string; comment?: string },
  ) => {
    let linking = false;
    return storeAndLink(locals, bucketId, file, (fileId) => {
      linking = true;
      return orderCurves.insertFile(orderId, { ...object, fileId });
    }).catch((error: unknown) => Promise.reject(linking ? error : new StoreRefused(error)));
  };

  if (action === 'courbe-ajout' || action === 'courbe-modif') {
    const values = Object.fromEntries(ORDER_CURVE_FIELDS.map((name) => [name, String(form.get(name) ?? '').slice(0, 4000)]));
    if (action === 'courbe-modif') values.id = id;
    const parsed = orderCurveSchema.safeParse(values);
    const errors: FieldErrors = parsed.success ? {} : fieldErrors(parsed.error);
    const file = action === 'courbe-ajout' ? fileOf(form) : null;
    const fileError = file ? await checkCurveFile(file) : null;
    if (fileError) errors.file = fileError;
    if (!parsed.success || Object.keys(errors).length) return { status: 400, form: action, values, errors };
    if (action === 'courbe-modif') {
      try {
        await orderCurves.updateCurve(uuidOf(id), parsed.data);
        return redirectWithToast(astro, t('curves.saved'), href);
      } catch (error) {
        return curveFailure(action, values, reasonOf(error));
      }
    }
    let curveId: string | null = null;
    try {
      curveId = await orderCurves.insertCurve(orderId, parsed.data);
      if (file) await attach(file, CURVE_BUCKET, { kind: 'curve', curveId });
      return redirectWithToast(astro, t('curves.added'), href);
    } catch (error) {
      // A curve whose file could not be kept is not kept either.
      if (curveId) await orderCurves.removeCurve(curveId).catch(() => undefined);
      return curveFailure(action, values, reasonOf(error));
    }
  }

  if (action === 'courbe-fichier') {
    const values = { id, comment: String(form.get('comment') ?? '').slice(0, 1000) };
    const file = fileOf(form);
    const fileError = file ? await checkCurveFile(file) : t('curves.fileRequired');
    if (!file || fileError) return { status: 400, form: action, values, errors: { file: fileError ?? undefined } };
    try {
      await attach(file, CURVE_BUCKET, { kind: 'curve', curveId: uuidOf(id), comment: values.comment });
      return redirectWithToast(astro, t('curves.fileAdded'), href);
    } catch (error) {
      return curveFailure(action, values, reasonOf(error));
    }
  }

  if (action === 'import') {
    const chosen = form.getAll('files').filter((f): f is File => f instanceof File && f.size > 0 && !!f.name);
    if (chosen.length === 0) return { status: 400, form: action, values: {}, errors: { files: t('curves.filesRequired') } };
    // Each file on its own: one refused does not keep the others out (SPEC §8).
    const failed: { name: string; reason: string }[] = [];
    for (const file of chosen) {
      try {
        await attach(file, IMPORT_BUCKET, { kind: 'import' });
      } catch (error) {
        failed.push({ name: file.name, reason: reasonOf(error).message });
      }
    }
    if (failed.length === 0)
      return redirectWithToast(
        astro,
        singular(chosen.length) ? t('curves.importedOne', { count: chosen.length }) : t('curves.imported', { count: chosen.length }),
        href,
      );
    return {
      status: 400,
      form: action,
      values: {},
      formError: failed.map((f) => t('errors.fileImport', { file: f.name })).join('\n'),
      errors: { files: failed.map((f) => `${f.name} : ${f.reason}`).join('\n') },
    };
  }

  const deletions: Record<string, { remove: (id: string) => Promise<unknown>; done: string }> = {
    'courbe-suppr': { remove: (curveId) => orderCurves.removeCurve(curveId), done: t('curves.deleted') },
    'courbe-fichier-suppr': { remove: (fileId) => orderCurves.removeFile(fileId), done: t('curves.fileDeleted') },
    'import-suppr': { remove: (fileId) => orderCurves.removeFile(fileId), done: t('curves.importDeleted') },
  };
  const deletion = Object.hasOwn(deletions, action) ? deletions[action] : undefined;
  if (deletion) {
    try {
      await deletion.remove(uuidOf(id));
      return redirectWithToast(astro, deletion.done, href);
    } catch (error) {
      return curveFailure(action, { id }, { ...reasonOf(error), fields: {} });
    }
  }
  return astro.redirect(href, 303);
}
