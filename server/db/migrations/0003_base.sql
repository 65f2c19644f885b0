CREATE TABLE "base_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "base_items_kind_name_key" ON "base_items" USING btree ("kind",lower("name"));--> statement-breakpoint
CREATE INDEX "base_items_kind_idx" ON "base_items" USING btree ("kind");--> statement-breakpoint
CREATE TRIGGER base_items_notify_change AFTER INSERT OR UPDATE OR DELETE ON public.base_items
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
