CREATE TABLE "stock_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"number" serial NOT NULL,
	"gearbox_model_id" uuid NOT NULL,
	"doctor_code_id" uuid,
	"gearbox_code_id" uuid,
	"condition" text NOT NULL,
	"rack" text NOT NULL,
	"level" integer NOT NULL,
	"added_on" date NOT NULL,
	"out_on" date,
	"out_reason" text DEFAULT '' NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stock_items_number_unique" UNIQUE("number"),
	CONSTRAINT "stock_items_out_after_in" CHECK ("stock_items"."out_on" is null or "stock_items"."out_on" >= "stock_items"."added_on")
);
--> statement-breakpoint
CREATE TABLE "stock_movements" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"item_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"from_rack" text,
	"from_level" integer,
	"to_rack" text,
	"to_level" integer,
	"from_condition" text,
	"to_condition" text,
	"reason" text DEFAULT '' NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"by_user_id" uuid,
	"by_name" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "stock_items" ADD CONSTRAINT "stock_items_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_items" ADD CONSTRAINT "stock_items_doctor_code_id_doctor_codes_id_fk" FOREIGN KEY ("doctor_code_id") REFERENCES "public"."doctor_codes"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_items" ADD CONSTRAINT "stock_items_gearbox_code_id_gearbox_codes_id_fk" FOREIGN KEY ("gearbox_code_id") REFERENCES "public"."gearbox_codes"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_item_id_stock_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."stock_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_by_user_id_users_id_fk" FOREIGN KEY ("by_user_id") REFERENCES "auth"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stock_items_current_idx" ON "stock_items" USING btree ("gearbox_model_id","condition") WHERE "stock_items"."out_on" is null;--> statement-breakpoint
CREATE INDEX "stock_items_rack_idx" ON "stock_items" USING btree ("rack","level") WHERE "stock_items"."out_on" is null;--> statement-breakpoint
CREATE INDEX "stock_items_out_idx" ON "stock_items" USING btree ("out_on") WHERE "stock_items"."out_on" is not null;--> statement-breakpoint
CREATE INDEX "stock_items_doctor_idx" ON "stock_items" USING btree ("doctor_code_id");--> statement-breakpoint
CREATE INDEX "stock_items_gearbox_code_idx" ON "stock_items" USING btree ("gearbox_code_id");--> statement-breakpoint
CREATE INDEX "stock_movements_item_idx" ON "stock_movements" USING btree ("item_id","at");--> statement-breakpoint
CREATE TRIGGER stock_items_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.stock_items
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
