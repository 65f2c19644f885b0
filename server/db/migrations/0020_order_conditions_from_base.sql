ALTER TABLE "order_fault_codes" ADD COLUMN "action_id" uuid;--> statement-breakpoint
ALTER TABLE "order_fault_codes" ADD COLUMN "other_condition_id" uuid;--> statement-breakpoint
ALTER TABLE "order_symptoms" ADD COLUMN "action_id" uuid;--> statement-breakpoint
ALTER TABLE "order_symptoms" ADD COLUMN "other_condition_id" uuid;--> statement-breakpoint
ALTER TABLE "repair_orders" ADD COLUMN "closed_names" jsonb;--> statement-breakpoint
ALTER TABLE "order_fault_codes" ADD CONSTRAINT "order_fault_codes_action_id_base_items_id_fk" FOREIGN KEY ("action_id") REFERENCES "public"."base_items"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_fault_codes" ADD CONSTRAINT "order_fault_codes_other_condition_id_base_items_id_fk" FOREIGN KEY ("other_condition_id") REFERENCES "public"."base_items"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_symptoms" ADD CONSTRAINT "order_symptoms_action_id_base_items_id_fk" FOREIGN KEY ("action_id") REFERENCES "public"."base_items"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_symptoms" ADD CONSTRAINT "order_symptoms_other_condition_id_base_items_id_fk" FOREIGN KEY ("other_condition_id") REFERENCES "public"."base_items"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_fault_codes_action_idx" ON "order_fault_codes" USING btree ("action_id");--> statement-breakpoint
CREATE INDEX "order_fault_codes_other_condition_idx" ON "order_fault_codes" USING btree ("other_condition_id");--> statement-breakpoint
CREATE INDEX "order_symptoms_action_idx" ON "order_symptoms" USING btree ("action_id");--> statement-breakpoint
CREATE INDEX "order_symptoms_other_condition_idx" ON "order_symptoms" USING btree ("other_condition_id");--> statement-breakpoint
-- Decision 043: the operating phase and the other condition of fault codes and symptoms are
-- conditions of the base. A text that names one (in any case) points at it; a text the base
-- does not hold joins the base's conditions first, so that nothing typed is lost and every
-- order keeps showing what it showed.
INSERT INTO "base_items" ("kind", "name")
SELECT DISTINCT ON (lower(v."name")) 'condition', v."name" FROM (
  SELECT btrim("action") AS "name" FROM "order_fault_codes"
  UNION ALL SELECT btrim("other_condition") FROM "order_fault_codes"
  UNION ALL SELECT btrim("action") FROM "order_symptoms"
  UNION ALL SELECT btrim("other_condition") FROM "order_symptoms"
) v
WHERE v."name" <> '' AND NOT EXISTS (SELECT 1 FROM "base_items" b WHERE b."kind" = 'condition' AND lower(b."name") = lower(v."name"))
ORDER BY lower(v."name"), v."name";--> statement-breakpoint
UPDATE "order_fault_codes" f SET "action_id" = b."id" FROM "base_items" b WHERE b."kind" = 'condition' AND lower(b."name") = lower(btrim(f."action"));--> statement-breakpoint
UPDATE "order_fault_codes" f SET "other_condition_id" = b."id" FROM "base_items" b WHERE b."kind" = 'condition' AND lower(b."name") = lower(btrim(f."other_condition"));--> statement-breakpoint
UPDATE "order_symptoms" s SET "action_id" = b."id" FROM "base_items" b WHERE b."kind" = 'condition' AND lower(b."name") = lower(btrim(s."action"));--> statement-breakpoint
UPDATE "order_symptoms" s SET "other_condition_id" = b."id" FROM "base_items" b WHERE b."kind" = 'condition' AND lower(b."name") = lower(btrim(s."other_condition"));--> statement-breakpoint
ALTER TABLE "order_fault_codes" DROP COLUMN "action";--> statement-breakpoint
ALTER TABLE "order_fault_codes" DROP COLUMN "other_condition";--> statement-breakpoint
ALTER TABLE "order_symptoms" DROP COLUMN "action";--> statement-breakpoint
ALTER TABLE "order_symptoms" DROP COLUMN "other_condition";--> statement-breakpoint
-- Orders closed before this migration keep the names they show today (decision 043); the same
-- expression as server/repair-orders/closed-names.ts.
UPDATE "repair_orders" r SET "closed_names" = jsonb_build_object(
  'base', coalesce((select jsonb_object_agg(b.id::text, b.name) from base_items b where b.id in (
    select s.symptom_id from order_symptoms s where s.repair_order_id = r.id
    union select x.id from (
      select action_id as id, repair_order_id from order_symptoms union all select other_condition_id, repair_order_id from order_symptoms
      union all select action_id, repair_order_id from order_fault_codes union all select other_condition_id, repair_order_id from order_fault_codes
    ) x where x.repair_order_id = r.id and x.id is not null
    union select o.component_id from order_outages oo join outages o on o.id = oo.outage_id where oo.repair_order_id = r.id
    union select o.outage_type_id from order_outages oo join outages o on o.id = oo.outage_id where oo.repair_order_id = r.id
  )), '{}'::jsonb),
  'errorCodes', coalesce((select jsonb_object_agg(e.id::text, jsonb_build_object('code', e.code, 'description', e.description)) from error_codes e where e.id in (
    select f.error_code_id from order_fault_codes f where f.repair_order_id = r.id
    union select s.error_code_id from order_symptoms s where s.repair_order_id = r.id and s.error_code_id is not null
  )), '{}'::jsonb),
  'outages', coalesce((select jsonb_object_agg(o.id::text, jsonb_build_object('description', o.description))
    from order_outages oo join outages o on o.id = oo.outage_id where oo.repair_order_id = r.id), '{}'::jsonb)
) WHERE r."status" = 'CLOSED';
