CREATE TABLE "gearbox_documents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"gearbox_model_id" uuid NOT NULL,
	"outage_id" uuid,
	"measure_id" uuid,
	"category" text NOT NULL,
	"file_id" uuid NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gearbox_measures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"gearbox_model_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"minimum" double precision,
	"maximum" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outage_procedures" (
	"outage_id" uuid NOT NULL,
	"procedure_id" uuid NOT NULL,
	"priority" integer NOT NULL,
	CONSTRAINT "outage_procedures_outage_id_procedure_id_pk" PRIMARY KEY("outage_id","procedure_id")
);
--> statement-breakpoint
CREATE TABLE "procedure_checkpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"procedure_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repair_procedures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"gearbox_model_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"steps" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gearbox_documents" ADD CONSTRAINT "gearbox_documents_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gearbox_documents" ADD CONSTRAINT "gearbox_documents_outage_id_outages_id_fk" FOREIGN KEY ("outage_id") REFERENCES "public"."outages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gearbox_documents" ADD CONSTRAINT "gearbox_documents_measure_id_gearbox_measures_id_fk" FOREIGN KEY ("measure_id") REFERENCES "public"."gearbox_measures"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gearbox_documents" ADD CONSTRAINT "gearbox_documents_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "storage"."files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gearbox_measures" ADD CONSTRAINT "gearbox_measures_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outage_procedures" ADD CONSTRAINT "outage_procedures_outage_id_outages_id_fk" FOREIGN KEY ("outage_id") REFERENCES "public"."outages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outage_procedures" ADD CONSTRAINT "outage_procedures_procedure_id_repair_procedures_id_fk" FOREIGN KEY ("procedure_id") REFERENCES "public"."repair_procedures"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "procedure_checkpoints" ADD CONSTRAINT "procedure_checkpoints_procedure_id_repair_procedures_id_fk" FOREIGN KEY ("procedure_id") REFERENCES "public"."repair_procedures"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repair_procedures" ADD CONSTRAINT "repair_procedures_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "gearbox_documents_model_idx" ON "gearbox_documents" USING btree ("gearbox_model_id","category");--> statement-breakpoint
CREATE INDEX "gearbox_documents_outage_idx" ON "gearbox_documents" USING btree ("outage_id");--> statement-breakpoint
CREATE INDEX "gearbox_documents_measure_idx" ON "gearbox_documents" USING btree ("measure_id");--> statement-breakpoint
CREATE UNIQUE INDEX "gearbox_documents_file_key" ON "gearbox_documents" USING btree ("file_id");--> statement-breakpoint
CREATE INDEX "gearbox_measures_model_idx" ON "gearbox_measures" USING btree ("gearbox_model_id");--> statement-breakpoint
CREATE INDEX "outage_procedures_procedure_idx" ON "outage_procedures" USING btree ("procedure_id");--> statement-breakpoint
CREATE INDEX "procedure_checkpoints_procedure_idx" ON "procedure_checkpoints" USING btree ("procedure_id","position");--> statement-breakpoint
CREATE INDEX "repair_procedures_model_idx" ON "repair_procedures" USING btree ("gearbox_model_id");--> statement-breakpoint
CREATE UNIQUE INDEX "repair_procedures_model_name_key" ON "repair_procedures" USING btree ("gearbox_model_id",lower("name"));--> statement-breakpoint
CREATE TRIGGER doctor_codes_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.doctor_codes
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER error_codes_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.error_codes
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER outages_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.outages
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER repair_procedures_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.repair_procedures
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER gearbox_measures_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.gearbox_measures
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER gearbox_documents_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.gearbox_documents
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
