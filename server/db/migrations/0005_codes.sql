CREATE TABLE "doctor_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"gearbox_model_id" uuid NOT NULL,
	"code" text NOT NULL,
	"business_name" text DEFAULT '' NOT NULL,
	"tvs_code" text DEFAULT '' NOT NULL,
	"engine" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gearbox_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"doctor_code_id" uuid NOT NULL,
	"code" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "doctor_codes" ADD CONSTRAINT "doctor_codes_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gearbox_codes" ADD CONSTRAINT "gearbox_codes_doctor_code_id_doctor_codes_id_fk" FOREIGN KEY ("doctor_code_id") REFERENCES "public"."doctor_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "doctor_codes_code_key" ON "doctor_codes" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "doctor_codes_model_idx" ON "doctor_codes" USING btree ("gearbox_model_id");--> statement-breakpoint
CREATE UNIQUE INDEX "gearbox_codes_code_key" ON "gearbox_codes" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "gearbox_codes_doctor_idx" ON "gearbox_codes" USING btree ("doctor_code_id");