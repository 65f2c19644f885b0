CREATE TABLE "order_fault_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repair_order_id" uuid NOT NULL,
	"error_code_id" uuid NOT NULL,
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
ALTER TABLE "order_fault_codes" ADD CONSTRAINT "order_fault_codes_repair_order_id_repair_orders_id_fk" FOREIGN KEY ("repair_order_id") REFERENCES "public"."repair_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_fault_codes" ADD CONSTRAINT "order_fault_codes_error_code_id_error_codes_id_fk" FOREIGN KEY ("error_code_id") REFERENCES "public"."error_codes"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_fault_codes_order_idx" ON "order_fault_codes" USING btree ("repair_order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_fault_codes_order_code_key" ON "order_fault_codes" USING btree ("repair_order_id","error_code_id");--> statement-breakpoint
CREATE INDEX "order_fault_codes_code_idx" ON "order_fault_codes" USING btree ("error_code_id");--> statement-breakpoint
CREATE TRIGGER order_fault_codes_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.order_fault_codes
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
