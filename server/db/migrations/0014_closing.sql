CREATE TABLE "order_checkpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"order_procedure_id" uuid NOT NULL,
	"checkpoint_id" uuid,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"check_result" text,
	"measured_value" double precision,
	"comment" text DEFAULT '' NOT NULL,
	"answered_by_id" uuid,
	"answered_by_name" text,
	"answered_at" timestamp with time zone,
	"version" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"by_user_id" uuid,
	"by_name" text DEFAULT '' NOT NULL,
	"comment" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order_procedures" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "order_procedures" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "order_procedures" ADD COLUMN "steps" text[];--> statement-breakpoint
ALTER TABLE "order_checkpoints" ADD CONSTRAINT "order_checkpoints_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_checkpoints" ADD CONSTRAINT "order_checkpoints_order_procedure_id_order_procedures_id_fk" FOREIGN KEY ("order_procedure_id") REFERENCES "public"."order_procedures"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_checkpoints" ADD CONSTRAINT "order_checkpoints_checkpoint_id_procedure_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."procedure_checkpoints"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_checkpoints" ADD CONSTRAINT "order_checkpoints_answered_by_id_users_id_fk" FOREIGN KEY ("answered_by_id") REFERENCES "auth"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_by_user_id_users_id_fk" FOREIGN KEY ("by_user_id") REFERENCES "auth"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_checkpoints_order_idx" ON "order_checkpoints" USING btree ("repair_order_id","position");--> statement-breakpoint
CREATE INDEX "order_checkpoints_procedure_idx" ON "order_checkpoints" USING btree ("order_procedure_id");--> statement-breakpoint
CREATE INDEX "order_events_order_idx" ON "order_events" USING btree ("repair_order_id","at");--> statement-breakpoint
CREATE TRIGGER order_checkpoints_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_checkpoints
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER order_events_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_events
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
-- Diagnostics validated before this migration: their procedures as they stand, checkpoints unanswered.
UPDATE public.order_procedures op SET name = p.name, description = p.description, steps = p.steps
  FROM public.repair_procedures p, public.repair_orders r
  WHERE p.id = op.procedure_id AND r.id = op.repair_order_id AND r.validated_at IS NOT NULL;
--> statement-breakpoint
INSERT INTO public.order_checkpoints (repair_order_id, order_procedure_id, checkpoint_id, position, name, description)
  SELECT op.repair_order_id, op.id, c.id, c.position, c.name, c.description
  FROM public.order_procedures op
  JOIN public.repair_orders r ON r.id = op.repair_order_id AND r.validated_at IS NOT NULL
  JOIN public.procedure_checkpoints c ON c.procedure_id = op.procedure_id;
