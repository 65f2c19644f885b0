CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "intervention_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"mileage" integer NOT NULL,
	"intervention" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repair_orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"number" text NOT NULL,
	"opened_on" date NOT NULL,
	"closed_on" date,
	"status" text DEFAULT 'IN_PROGRESS' NOT NULL,
	"intervention_category" text NOT NULL,
	"gearbox_model_id" uuid NOT NULL,
	"gearbox_code" text DEFAULT '' NOT NULL,
	"referent_id" uuid,
	"vehicle_brand" text DEFAULT '' NOT NULL,
	"vehicle_model" text DEFAULT '' NOT NULL,
	"energy" text,
	"engine_size" text,
	"mileage" text,
	"construction_year" integer,
	"comment" text DEFAULT '' NOT NULL,
	"interventions" text[] DEFAULT '{}'::text[] NOT NULL,
	"outage_parts" text[] DEFAULT '{}'::text[] NOT NULL,
	"can_read_fault_codes" boolean,
	"measures_done" boolean,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "intervention_history" ADD CONSTRAINT "intervention_history_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repair_orders" ADD CONSTRAINT "repair_orders_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repair_orders" ADD CONSTRAINT "repair_orders_referent_id_users_id_fk" FOREIGN KEY ("referent_id") REFERENCES "auth"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "intervention_history_order_idx" ON "intervention_history" USING btree ("repair_order_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "repair_orders_number_key" ON "repair_orders" USING btree (upper("number"));--> statement-breakpoint
CREATE INDEX "repair_orders_number_trgm" ON "repair_orders" USING gin (upper("number") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "repair_orders_gearbox_code_trgm" ON "repair_orders" USING gin (upper("gearbox_code") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "repair_orders_opened_idx" ON "repair_orders" USING btree ("opened_on");--> statement-breakpoint
CREATE INDEX "repair_orders_model_idx" ON "repair_orders" USING btree ("gearbox_model_id","opened_on");--> statement-breakpoint
CREATE TRIGGER repair_orders_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.repair_orders
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
