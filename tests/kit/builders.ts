// Typed builders of what the tests, the load run and the fault runs work on, through the public
// API as a person would make it: each takes a signed-in client and the fields that matter to the
// caller; the rest has defaults that the API accepts (a unique name or number where one is needed).
import { randomBytes } from 'node:crypto';
import type { VariablesOf } from '#lib/graphql.ts';
import { M, Q } from './documents.ts';
import { type Api, ok } from './graphql.ts';

const unique = () => randomBytes(4).toString('hex');

export type ModelFields = VariablesOf<typeof M.insertGearboxModel>['o'];
export type OrderFields = VariablesOf<typeof M.insertRepairOrder>['o'];
export type OutageFields = VariablesOf<typeof M.insertOutage>['o'];
export type ProcedureFields = VariablesOf<typeof M.insertRepairProcedure>['o'];
export type SymptomFields = VariablesOf<typeof M.insertOrderSymptom>['s'];
export type StockFields = VariablesOf<typeof M.insertStockItems>['o'];
export type CheckpointAnswer = VariablesOf<typeof M.answerOrderCheckpoint>['o'];
export type UserFields = VariablesOf<typeof M.insertUser>['o'];

/** A gearbox model (a diagnostician or an admin makes it); returns its id. */
export async function createModel(api: Api, fields: Partial<ModelFields> = {}): Promise<string> {
  const o: ModelFields = { model: `Essai ${unique()}`, type: 'automatic', constructorName: 'ZF', startYear: 2010, ...fields };
  return ok(await api(M.insertGearboxModel, { o })).insertGearboxModel.id;
}

/** A repair order on a model, opened by a diagnostician or an admin; returns its id. */
export async function createOrder(api: Api, fields: Pick<OrderFields, 'gearboxModelId'> & Partial<OrderFields>): Promise<string> {
  const o: OrderFields = { number: `ESSAI-${unique()}`, openedOn: '2026-11-02', interventionCategory: 'complete_car', ...fields };
  return ok(await api(M.insertRepairOrder, { o })).insertRepairOrder;
}

/** An outage of a model's dossier; returns its id. */
export async function createOutage(api: Api, modelId: string, fields: Partial<OutageFields> = {}): Promise<string> {
  return ok(await api(M.insertOutage, { m: modelId, o: { component: 'Mécatronique', outageType: 'Usure', ...fields } })).insertOutage;
}

/** A repair procedure of a model's dossier; returns its id. */
export async function createProcedure(api: Api, modelId: string, fields: Partial<ProcedureFields> = {}): Promise<string> {
  const o: ProcedureFields = { name: 'Remplacement mécatronique', steps: ['Déposer', 'Reposer'], checkpoints: [{ name: 'Pression de ligne' }], ...fields };
  return ok(await api(M.insertRepairProcedure, { m: modelId, o })).insertRepairProcedure;
}

/** The diagnostic's first half: the outage chosen, its procedure chosen and seen. */
export async function chooseRepair(api: Api, orderId: string, chosen: { outageId: string; procedureId: string }): Promise<void> {
  ok(await api(M.chooseOrderOutages, { o: orderId, ids: [chosen.outageId] }));
  ok(await api(M.chooseOrderProcedures, { o: orderId, p: [chosen] }));
  ok(await api(M.markProceduresVisualised, { o: orderId }));
}

/**
 * The diagnostic's second half: the box cannot read fault codes, one symptom (a whistle while
 * driving unless said), measures taken only when `measuresDone`, then validated.
 */
export async function finishDiagnostic(api: Api, orderId: string, options: { symptom?: SymptomFields; measuresDone?: boolean } = {}): Promise<void> {
  ok(await api(M.setFaultCodeReading, { o: orderId, c: false }));
  ok(await api(M.insertOrderSymptom, { o: orderId, s: options.symptom ?? { symptom: 'Sifflement', temporality: 'during' } }));
  if (options.measuresDone) ok(await api(M.setMeasuresDone, { o: orderId, d: true }));
  ok(await api(M.validateDiagnostic, { o: orderId }));
}

export type OrderOnTheFloor = { modelId: string; outageId: string; procedureId: string; orderId: string };

/**
 * An order whose diagnostic is validated: its procedure's checkpoints wait on the floor. A new
 * model (`model` overrides its defaults) unless `modelId` is given; `outage`, `procedure` and
 * `order` override theirs.
 */
export async function createOrderOnTheFloor(
  api: Api,
  options: {
    modelId?: string;
    model?: Partial<ModelFields>;
    outage?: Partial<OutageFields>;
    procedure?: Partial<ProcedureFields>;
    order?: Partial<OrderFields>;
    symptom?: SymptomFields;
    measuresDone?: boolean;
  } = {},
): Promise<OrderOnTheFloor> {
  const modelId = options.modelId ?? (await createModel(api, options.model));
  const outageId = await createOutage(api, modelId, options.outage);
  const procedureId = await createProcedure(api, modelId, options.procedure);
  const orderId = await createOrder(api, { gearboxModelId: modelId, ...options.order });
  await chooseRepair(api, orderId, { outageId, procedureId });
  await finishDiagnostic(api, orderId, options);
  return { modelId, outageId, procedureId, orderId };
}

/** The checkpoints of an order's first procedure, in order: id, name, comment and version. */
export async function checkpointsOf(api: Api, orderId: string) {
  const order = ok(await api(Q.orderCheckpoints, { id: orderId })).repairOrder;
  // A fault run must not take "no order" for "no checkpoint": it would test nothing.
  if (!order?.procedures[0]) throw new Error(`order ${orderId}: no procedure to follow`);
  return order.procedures[0].checkpoints;
}

/** A checkpoint answered from the version the caller holds; returns the new version. */
export async function answerCheckpoint(api: Api, checkpoint: { id: string; version: number }, answer: CheckpointAnswer): Promise<number> {
  return ok(await api(M.answerOrderCheckpoint, { id: checkpoint.id, v: checkpoint.version, o: answer })).answerOrderCheckpoint.version;
}

/** Boxes of a model put in stock (one unless `quantity`); returns their ids. */
export async function createStockItems(api: Api, fields: Pick<StockFields, 'gearboxModelId'> & Partial<StockFields>): Promise<string[]> {
  const o: StockFields = { condition: 'used', rack: 'A', level: 1, addedOn: '2026-11-01', quantity: 1, ...fields };
  return ok(await api(M.insertStockItems, { o })).insertStockItems;
}

/** An account an admin makes (a mechanic unless said, with a unique address); returns its id. */
export async function createUser(api: Api, fields: Partial<UserFields> = {}): Promise<string> {
  const o: UserFields = { email: `essai.${unique()}@demo.local`, displayName: "Compte d'essai", defaultRole: 'mechanic', ...fields };
  return ok(await api(M.insertUser, { o })).insertUser.id;
}
