// Migration 0020 (decision 043): the conditions typed on orders before it point at the base's
// conditions by name, in any case; a text the base does not hold joins the base first, so no
// order loses what it showed; and the orders closed before it keep the names they show.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, describe, expect, it } from 'vitest';

const folder = path.join(import.meta.dirname, '../server/db/migrations');
const work = mkdtempSync(path.join(tmpdir(), 'migration-0020-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The migrations folder as it was before 0020. */
function foldersBefore0020() {
  const before = path.join(work, 'before');
  cpSync(folder, before, { recursive: true });
  const journal = JSON.parse(readFileSync(path.join(before, 'meta/_journal.json'), 'utf8'));
  journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < '0020');
  writeFileSync(path.join(before, 'meta/_journal.json'), JSON.stringify(journal));
  return before;
}

describe('migration 0020', () => {
  it('maps the conditions of existing rows to the base, adds the unknown ones to it, and freezes the closed orders', async () => {
    const client = new PGlite({ extensions: { pg_trgm } });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: foldersBefore0020() });
    const rows = async <T>(query: ReturnType<typeof sql>) => (await db.execute(query)).rows as T[];
    const [phase] = await rows<{ id: string }>(sql`insert into base_items (kind, name) values ('condition', 'En accélération franche') returning id`);
    const [symptom] = await rows<{ id: string }>(sql`insert into base_items (kind, name) values ('symptom', 'Patinage') returning id`);
    const [model] = await rows<{ id: string }>(
      sql`insert into gearbox_models (model, type, constructor_name, start_year) values ('ZF essai', 'automatic', 'ZF', 2010) returning id`,
    );
    const [code] = await rows<{ id: string }>(
      sql`insert into error_codes (gearbox_model_id, code, description) values (${model!.id}, 'P0730', 'Rapport') returning id`,
    );
    const order = async (number: string, status: string) =>
      (
        await rows<{ id: string }>(
          sql`insert into repair_orders (number, opened_on, intervention_category, gearbox_model_id, status) values (${number}, '2026-11-02', 'complete_car', ${model!.id}, ${status}) returning id`,
        )
      )[0]!.id;
    const open = await order('OR-1', 'IN_PROGRESS');
    const closed = await order('OR-2', 'CLOSED');
    await db.execute(
      sql`insert into order_fault_codes (repair_order_id, error_code_id, action, other_condition) values (${open}, ${code!.id}, ' EN ACCÉLÉRATION FRANCHE ', 'Huile à 95 °C')`,
    );
    await db.execute(
      sql`insert into order_symptoms (repair_order_id, symptom_id, action, other_condition) values (${closed}, ${symptom!.id}, 'huile à 95 °C', '')`,
    );

    await migrate(db, { migrationsFolder: folder });

    // Matched in any case; the unknown wording joins the base's conditions once, as first written.
    const conditions = await rows<{ id: string; name: string }>(sql`select id, name from base_items where kind = 'condition' order by name`);
    expect(conditions.map((c) => c.name)).toEqual(['En accélération franche', 'Huile à 95 °C']);
    const oil = conditions.find((c) => c.name === 'Huile à 95 °C')!.id;
    expect(await rows(sql`select action_id, other_condition_id from order_fault_codes`)).toEqual([{ action_id: phase!.id, other_condition_id: oil }]);
    expect(await rows(sql`select action_id, other_condition_id from order_symptoms`)).toEqual([{ action_id: oil, other_condition_id: null }]);
    // The order closed before the migration keeps what it shows, and (0021, decision 045) its model's names; the open one keeps nothing.
    const names = await rows<{ number: string; closed_names: unknown }>(sql`select number, closed_names from repair_orders order by number`);
    expect(names).toEqual([
      { number: 'OR-1', closed_names: null },
      {
        number: 'OR-2',
        closed_names: {
          base: { [symptom!.id]: 'Patinage', [oil]: 'Huile à 95 °C' },
          errorCodes: {},
          outages: {},
          model: { model: 'ZF essai', constructorName: 'ZF' },
        },
      },
    ]);
    // In use: the base refuses to delete it.
    await expect(db.execute(sql`delete from base_items where id = ${oil}`)).rejects.toThrow();
    await client.close();
  }, 180_000);
});
