CREATE TABLE "gearbox_models" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"model" text NOT NULL,
	"bva_id" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"constructor_name" text NOT NULL,
	"doctor_code" text DEFAULT '' NOT NULL,
	"business_name" text DEFAULT '' NOT NULL,
	"parent_id" uuid,
	"start_year" integer NOT NULL,
	"end_year" integer,
	"gears" integer,
	"arrangement" text DEFAULT '' NOT NULL,
	"propulsion" text DEFAULT '' NOT NULL,
	"optional_propulsion" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gearbox_models" ADD CONSTRAINT "gearbox_models_parent_id_gearbox_models_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."gearbox_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gearbox_models_model_key" ON "gearbox_models" USING btree (lower("model"));--> statement-breakpoint
CREATE INDEX "gearbox_models_type_idx" ON "gearbox_models" USING btree ("type");--> statement-breakpoint
CREATE TRIGGER gearbox_models_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.gearbox_models
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
