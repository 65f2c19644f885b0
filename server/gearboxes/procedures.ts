// Repair procedures of a model and their priorities on its outages.
import { and, asc, count, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Viewer } from '#server/auth/viewer.ts';
import type { PermissionTable } from '#server/access.ts';
import type { ProcedureInput } from '#lib/gearboxes/procedures.ts';
import type { Db } from '#server/db/client.ts';
import { pgCode } from '#server/db/errors.ts';
import { orderProcedures, outageProcedures, outages, procedureCheckpoints, repairProcedures } from '#server/db/schema/index.ts';
import { conflict, invalid, notFound } from '#server/errors.ts';
import { t } from '#lib/i18n.ts';
import { changesOf, record, type Field } from '#server/audit/record.ts';
import { gearboxModelRefOf, fieldLabel, outageEvent, procedureNames } from '#server/audit/refs.ts';

type Described = { name: string; description: string; steps: string[]; checkpoints: string[] };
const procedureFields: Field<Described>[] = [
  [fieldLabel('name'), (p) => p.name],
  [fieldLabel('description'), (p) => p.description],
  [fieldLabel('steps'), (p) => p.steps.join(' / ')],
  [fieldLabel('checkpoints'), (p) => p.checkpoints.join(', ')],
];

export type RepairProceduresService = ReturnType<typeof createRepairProceduresService>;
type Row = typeof repairProcedures.$inferSelect;
export type ProcedureRow = Row & { checkpoints: (typeof procedureCheckpoints.$inferSelect)[]; outageCount: number };

/** A procedure's name taken in its model, or the model gone, as the refusals a user reads. */
export const nameTaken = (error: unknown): never => {
  if (pgCode(error) === '23505') throw conflict('name-taken', t('refusals.procedureNameTaken'));
  if (pgCode(error) === '23503') throw notFound(t('refusals.modelNotFound'));
  throw error;
};

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Checkpoints keep their ids (orders' answers point at them); removed ones go. */
async function writeCheckpoints(tx: Tx, procedureId: string, input: ProcedureInput) {
  const existing = await tx.select({ id: procedureCheckpoints.id }).from(procedureCheckpoints).where(eq(procedureCheckpoints.procedureId, procedureId));
  const kept = new Set(input.checkpoints.map((c) => c.id).filter(Boolean));
  const gone = existing.filter((c) => !kept.has(c.id)).map((c) => c.id);
  if (gone.length) await tx.delete(procedureCheckpoints).where(inArray(procedureCheckpoints.id, gone));
  const known = new Set(existing.map((c) => c.id));
  for (const [position, checkpoint] of input.checkpoints.entries()) {
    const values = { name: checkpoint.name, description: checkpoint.description, position: position + 1 };
    if (checkpoint.id && known.has(checkpoint.id)) {
      await tx
        .update(procedureCheckpoints)
        .set(values)
        .where(and(eq(procedureCheckpoints.id, checkpoint.id), eq(procedureCheckpoints.procedureId, procedureId)));
    } else {
      await tx.insert(procedureCheckpoints).values({ ...values, procedureId });
    }
  }
}

/** A new procedure inside a caller's transaction (an order adding the procedure it writes). */
export async function insertProcedureIn(tx: Tx, modelId: string, input: ProcedureInput) {
  const [row] = await tx.insert(repairProcedures).values({ modelId, name: input.name, description: input.description, steps: input.steps }).returning();
  await writeCheckpoints(tx, row!.id, { ...input, checkpoints: input.checkpoints.map(({ id: _id, ...c }) => c) });
  await record(tx, {
    action: 'created',
    entity: { kind: 'procedure', id: row!.id, label: row!.name },
    parent: await gearboxModelRefOf(tx, modelId),
    changes: changesOf(null, { ...row!, checkpoints: input.checkpoints.map((c) => c.name) }, procedureFields),
  });
  return row!.id;
}

export function createRepairProceduresService(deps: { db: Db }) {
  const { db } = deps;

  /** Rows with their checkpoints in order and the number of outages that use them. */
  async function complete(rows: Row[]): Promise<ProcedureRow[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const checkpoints = await db
      .select()
      .from(procedureCheckpoints)
      .where(inArray(procedureCheckpoints.procedureId, ids))
      .orderBy(asc(procedureCheckpoints.position));
    const uses = await db
      .select({ procedureId: outageProcedures.procedureId, n: count() })
      .from(outageProcedures)
      .where(inArray(outageProcedures.procedureId, ids))
      .groupBy(outageProcedures.procedureId);
    return rows.map((row) => ({
      ...row,
      checkpoints: checkpoints.filter((c) => c.procedureId === row.id),
      outageCount: uses.find((u) => u.procedureId === row.id)?.n ?? 0,
    }));
  }

  const service = {
    /** The model's procedures as `complete` gives them, in two reads made together rather than three one after the other. */
    listOf: async (_viewer: Viewer, modelId: string): Promise<ProcedureRow[]> => {
      const [rows, checkpoints] = await Promise.all([
        db
          .select({
            ...getTableColumns(repairProcedures),
            // Qualified by hand: a one-table select renders its columns bare.
            outageCount: sql<number>`(select count(*)::int from ${outageProcedures} where ${outageProcedures.procedureId} = "repair_procedures"."id")`,
          })
          .from(repairProcedures)
          .where(eq(repairProcedures.modelId, modelId))
          .orderBy(asc(repairProcedures.name)),
        db
          .select(getTableColumns(procedureCheckpoints))
          .from(procedureCheckpoints)
          .innerJoin(repairProcedures, eq(repairProcedures.id, procedureCheckpoints.procedureId))
          .where(eq(repairProcedures.modelId, modelId))
          .orderBy(asc(procedureCheckpoints.position)),
      ]);
      return rows.map((row) => ({ ...row, checkpoints: checkpoints.filter((c) => c.procedureId === row.id) }));
    },

    get: async (_viewer: Viewer, id: string) => (await complete(await db.select().from(repairProcedures).where(eq(repairProcedures.id, id)).limit(1)))[0],

    insert: async (_viewer: Viewer, modelId: string, input: ProcedureInput) => db.transaction((tx) => insertProcedureIn(tx, modelId, input)).catch(nameTaken),

    update: async (_viewer: Viewer, id: string, input: ProcedureInput) =>
      db
        .transaction(async (tx) => {
          const [before] = await tx.select().from(repairProcedures).where(eq(repairProcedures.id, id)).for('update');
          const checkpointsBefore = await tx
            .select({ name: procedureCheckpoints.name })
            .from(procedureCheckpoints)
            .where(eq(procedureCheckpoints.procedureId, id))
            .orderBy(asc(procedureCheckpoints.position));
          const [row] = await tx
            .update(repairProcedures)
            .set({ name: input.name, description: input.description, steps: input.steps, updatedAt: new Date() })
            .where(eq(repairProcedures.id, id))
            .returning();
          if (!row) throw notFound(t('refusals.procedureNotFound'));
          await writeCheckpoints(tx, id, input);
          const changes = changesOf(
            { ...before!, checkpoints: checkpointsBefore.map((c) => c.name) },
            { ...row, checkpoints: input.checkpoints.map((c) => c.name) },
            procedureFields,
          );
          if (changes.length)
            await record(tx, {
              action: 'changed',
              entity: { kind: 'procedure', id, label: row.name },
              parent: await gearboxModelRefOf(tx, row.modelId),
              changes,
            });
          return id;
        })
        .catch(nameTaken),

    /** A procedure an outage still lists is kept, with the outages as reasons. */
    remove: async (_viewer: Viewer, id: string) =>
      db.transaction(async (tx) => {
        const [used] = await tx.select({ n: count() }).from(outageProcedures).where(eq(outageProcedures.procedureId, id));
        const [applied] = await tx.select({ n: count() }).from(orderProcedures).where(eq(orderProcedures.procedureId, id));
        const reasons = [
          ...(used!.n ? [t('refusals.usedByOutages', { count: used!.n })] : []),
          ...(applied!.n ? [t('refusals.usedByOrders', { count: applied!.n })] : []),
        ];
        if (reasons.length) throw conflict('delete-refused', t('errors.deleteImpossible'), { reasons });
        const [row] = await tx.delete(repairProcedures).where(eq(repairProcedures.id, id)).returning();
        if (!row) throw notFound(t('refusals.procedureNotFound'));
        await record(tx, { action: 'deleted', entity: { kind: 'procedure', id, label: row.name }, parent: await gearboxModelRefOf(tx, row.modelId) });
        return row;
      }),

    /** The procedures of an outage, by priority (1 first). */
    ofOutage: async (_viewer: Viewer, outageId: string) => {
      const links = await db.select().from(outageProcedures).where(eq(outageProcedures.outageId, outageId)).orderBy(asc(outageProcedures.priority));
      if (links.length === 0) return [];
      const rows = await complete(
        await db
          .select()
          .from(repairProcedures)
          .where(
            inArray(
              repairProcedures.id,
              links.map((l) => l.procedureId),
            ),
          ),
      );
      return links.map((link) => ({ priority: link.priority, procedure: rows.find((r) => r.id === link.procedureId)! }));
    },

    /** Replaces the outage's ordered list; every procedure must belong to the outage's model. */
    setOutageProcedures: async (_viewer: Viewer, outageId: string, procedureIds: string[]) =>
      db.transaction(async (tx) => {
        // Locks the outage: two people reordering at once apply one after the other.
        const [outage] = await tx.select().from(outages).where(eq(outages.id, outageId)).for('update');
        if (!outage) throw notFound(t('refusals.outageNotFound'));
        if (procedureIds.length) {
          const own = await tx
            .select({ id: repairProcedures.id })
            .from(repairProcedures)
            .where(and(inArray(repairProcedures.id, procedureIds), eq(repairProcedures.modelId, outage.modelId)));
          if (own.length !== procedureIds.length) throw invalid({ procedureIds: t('refusals.procedureNotOfModel') });
        }
        const before = await tx.select().from(outageProcedures).where(eq(outageProcedures.outageId, outageId)).orderBy(asc(outageProcedures.priority));
        const [b, a] = [
          (
            await procedureNames(
              tx,
              before.map((l) => l.procedureId),
            )
          ).join(', '),
          (await procedureNames(tx, procedureIds)).join(', '),
        ];
        if (b !== a) {
          const { entity } = await outageEvent(tx, outageId, null, outage);
          await record(tx, {
            action: 'changed',
            entity,
            parent: await gearboxModelRefOf(tx, outage.modelId),
            changes: [{ field: fieldLabel('procedures'), before: b, after: a }],
          });
        }
        await tx.delete(outageProcedures).where(eq(outageProcedures.outageId, outageId));
        if (procedureIds.length) await tx.insert(outageProcedures).values(procedureIds.map((procedureId, i) => ({ outageId, procedureId, priority: i + 1 })));
        // Announces the change to whoever watches the dossier.
        await tx.update(outages).set({ updatedAt: sql`now()` }).where(eq(outages.id, outageId));
        return outageId;
      }),
  };
  return service;
}

/** Who may call what (decision 061). A dossier's repair procedures: read by all, written by admins and diagnosticians. */
export const repairProceduresPermissions = {
  listOf: 'signedIn',
  get: 'signedIn',
  insert: 'manageGearboxModels',
  update: 'manageGearboxModels',
  remove: 'manageGearboxModels',
  ofOutage: 'signedIn',
  setOutageProcedures: 'manageGearboxModels',
} as const satisfies PermissionTable<RepairProceduresService>;
