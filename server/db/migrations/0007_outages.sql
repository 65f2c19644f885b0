CREATE TABLE "outages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"gearbox_model_id" uuid NOT NULL,
	"component_id" uuid NOT NULL,
	"outage_type_id" uuid NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"occurrence_rate" integer,
	"average_mileage" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outages" ADD CONSTRAINT "outages_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outages" ADD CONSTRAINT "outages_component_id_base_items_id_fk" FOREIGN KEY ("component_id") REFERENCES "public"."base_items"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outages" ADD CONSTRAINT "outages_outage_type_id_base_items_id_fk" FOREIGN KEY ("outage_type_id") REFERENCES "public"."base_items"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outages_model_idx" ON "outages" USING btree ("gearbox_model_id");