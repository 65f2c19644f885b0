CREATE TABLE "repair_order_counts" (
	"gearbox_model_id" uuid PRIMARY KEY NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "repair_order_counts" ADD CONSTRAINT "repair_order_counts_gearbox_model_id_gearbox_models_id_fk" FOREIGN KEY ("gearbox_model_id") REFERENCES "public"."gearbox_models"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Added by hand (decision 075): the counts follow the orders in the same transaction, one
-- statement at a time (a bulk insert updates each model's count once). An update counts only
-- the orders whose model changed. TRUNCATE is left out: nothing truncates the orders.
CREATE FUNCTION public.repair_order_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO public.repair_order_counts (gearbox_model_id, n)
      SELECT gearbox_model_id, count(*)::int FROM new_rows GROUP BY 1
      ON CONFLICT (gearbox_model_id) DO UPDATE SET n = repair_order_counts.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE public.repair_order_counts c SET n = c.n - o.k
      FROM (SELECT gearbox_model_id, count(*)::int AS k FROM old_rows GROUP BY 1) o
      WHERE c.gearbox_model_id = o.gearbox_model_id;
  ELSE
    UPDATE public.repair_order_counts c SET n = c.n - o.k
      FROM (SELECT b.gearbox_model_id, count(*)::int AS k FROM old_rows b JOIN new_rows a ON a.id = b.id
            WHERE a.gearbox_model_id <> b.gearbox_model_id GROUP BY 1) o
      WHERE c.gearbox_model_id = o.gearbox_model_id;
    INSERT INTO public.repair_order_counts (gearbox_model_id, n)
      SELECT a.gearbox_model_id, count(*)::int FROM old_rows b JOIN new_rows a ON a.id = b.id
      WHERE a.gearbox_model_id <> b.gearbox_model_id GROUP BY 1
      ON CONFLICT (gearbox_model_id) DO UPDATE SET n = repair_order_counts.n + excluded.n;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER repair_order_counts_insert AFTER INSERT ON public.repair_orders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.repair_order_counts_follow();
--> statement-breakpoint
CREATE TRIGGER repair_order_counts_update AFTER UPDATE ON public.repair_orders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.repair_order_counts_follow();
--> statement-breakpoint
CREATE TRIGGER repair_order_counts_delete AFTER DELETE ON public.repair_orders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.repair_order_counts_follow();
--> statement-breakpoint
INSERT INTO public.repair_order_counts (gearbox_model_id, n) SELECT gearbox_model_id, count(*)::int FROM public.repair_orders GROUP BY 1;
