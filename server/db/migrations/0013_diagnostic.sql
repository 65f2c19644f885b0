CREATE TABLE "order_curves" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"description" text NOT NULL,
	"result" text DEFAULT '' NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"reference_document_id" uuid,
	"measure_procedure_document_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"measure_id" uuid,
	"curve_id" uuid,
	"file_id" uuid NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_measures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"gearbox_measure_id" uuid,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"minimum" double precision,
	"maximum" double precision,
	"measured_value" double precision,
	"check_result" text,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_outages" (
	"repair_order_id" uuid NOT NULL,
	"outage_id" uuid NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "order_outages_repair_order_id_outage_id_pk" PRIMARY KEY("repair_order_id","outage_id")
);
--> statement-breakpoint
CREATE TABLE "order_procedures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"procedure_id" uuid NOT NULL,
	"outage_id" uuid,
	"position" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_symptoms" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"symptom_id" uuid NOT NULL,
	"error_code_id" uuid,
	"temporality" text,
	"accelerator_load" text DEFAULT '' NOT NULL,
	"bva_mode" text DEFAULT '' NOT NULL,
	"gear" text DEFAULT '' NOT NULL,
	"action" text DEFAULT '' NOT NULL,
	"other_condition" text DEFAULT '' NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "repair_orders" ADD COLUMN "diagnostic_step" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "repair_orders" ADD COLUMN "validated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "repair_orders" ADD COLUMN "validated_by_id" uuid;--> statement-breakpoint
ALTER TABLE "order_curves" ADD CONSTRAINT "order_curves_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_curves" ADD CONSTRAINT "order_curves_reference_document_id_gearbox_documents_id_fk" FOREIGN KEY ("reference_document_id") REFERENCES "public"."gearbox_documents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_curves" ADD CONSTRAINT "order_curves_measure_procedure_document_id_gearbox_documents_id_fk" FOREIGN KEY ("measure_procedure_document_id") REFERENCES "public"."gearbox_documents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_files" ADD CONSTRAINT "order_files_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_files" ADD CONSTRAINT "order_files_measure_id_order_measures_id_fk" FOREIGN KEY ("measure_id") REFERENCES "public"."order_measures"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_files" ADD CONSTRAINT "order_files_curve_id_order_curves_id_fk" FOREIGN KEY ("curve_id") REFERENCES "public"."order_curves"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_files" ADD CONSTRAINT "order_files_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "storage"."files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_measures" ADD CONSTRAINT "order_measures_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_measures" ADD CONSTRAINT "order_measures_gearbox_measure_id_gearbox_measures_id_fk" FOREIGN KEY ("gearbox_measure_id") REFERENCES "public"."gearbox_measures"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_outages" ADD CONSTRAINT "order_outages_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_outages" ADD CONSTRAINT "order_outages_outage_id_outages_id_fk" FOREIGN KEY ("outage_id") REFERENCES "public"."outages"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_procedures" ADD CONSTRAINT "order_procedures_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_procedures" ADD CONSTRAINT "order_procedures_procedure_id_repair_procedures_id_fk" FOREIGN KEY ("procedure_id") REFERENCES "public"."repair_procedures"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_procedures" ADD CONSTRAINT "order_procedures_outage_id_outages_id_fk" FOREIGN KEY ("outage_id") REFERENCES "public"."outages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_symptoms" ADD CONSTRAINT "order_symptoms_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_symptoms" ADD CONSTRAINT "order_symptoms_symptom_id_base_items_id_fk" FOREIGN KEY ("symptom_id") REFERENCES "public"."base_items"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_symptoms" ADD CONSTRAINT "order_symptoms_error_code_id_error_codes_id_fk" FOREIGN KEY ("error_code_id") REFERENCES "public"."error_codes"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_curves_order_idx" ON "order_curves" USING btree ("repair_order_id");--> statement-breakpoint
CREATE INDEX "order_files_order_idx" ON "order_files" USING btree ("repair_order_id","kind");--> statement-breakpoint
CREATE INDEX "order_files_measure_idx" ON "order_files" USING btree ("measure_id");--> statement-breakpoint
CREATE INDEX "order_files_curve_idx" ON "order_files" USING btree ("curve_id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_files_file_key" ON "order_files" USING btree ("file_id");--> statement-breakpoint
CREATE INDEX "order_measures_order_idx" ON "order_measures" USING btree ("repair_order_id");--> statement-breakpoint
CREATE INDEX "order_outages_outage_idx" ON "order_outages" USING btree ("outage_id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_procedures_order_procedure_key" ON "order_procedures" USING btree ("repair_order_id","procedure_id");--> statement-breakpoint
CREATE INDEX "order_procedures_procedure_idx" ON "order_procedures" USING btree ("procedure_id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_symptoms_order_symptom_key" ON "order_symptoms" USING btree ("repair_order_id","symptom_id");--> statement-breakpoint
CREATE INDEX "order_symptoms_symptom_idx" ON "order_symptoms" USING btree ("symptom_id");--> statement-breakpoint
CREATE INDEX "order_symptoms_code_idx" ON "order_symptoms" USING btree ("error_code_id");--> statement-breakpoint
ALTER TABLE "repair_orders" ADD CONSTRAINT "repair_orders_validated_by_id_users_id_fk" FOREIGN KEY ("validated_by_id") REFERENCES "auth"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE TRIGGER order_symptoms_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_symptoms
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER order_measures_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_measures
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER order_curves_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_curves
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER order_files_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_files
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
--> statement-breakpoint
CREATE TRIGGER order_procedures_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_procedures
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
