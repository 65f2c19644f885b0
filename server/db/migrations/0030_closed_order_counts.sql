ALTER TABLE "repair_order_counts" ADD COLUMN "closed" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Added by hand (decision 075): each model's closed orders counted with its orders, the
-- denominator of the dossier's rates (decision 018), by the same statement-level triggers. An
-- update moves an order's contributions when its model changed or it closed or reopened.
CREATE OR REPLACE FUNCTION public.repair_order_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO public.repair_order_counts (gearbox_model_id, n, closed)
      SELECT gearbox_model_id, count(*)::int, (count(*) FILTER (WHERE status = 'CLOSED'))::int FROM new_rows GROUP BY 1
      ON CONFLICT (gearbox_model_id) DO UPDATE SET n = repair_order_counts.n + excluded.n, closed = repair_order_counts.closed + excluded.closed;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE public.repair_order_counts c SET n = c.n - o.k, closed = c.closed - o.kc
      FROM (SELECT gearbox_model_id, count(*)::int AS k, (count(*) FILTER (WHERE status = 'CLOSED'))::int AS kc FROM old_rows GROUP BY 1) o
      WHERE c.gearbox_model_id = o.gearbox_model_id;
  ELSE
    UPDATE public.repair_order_counts c SET n = c.n - o.k, closed = c.closed - o.kc
      FROM (SELECT b.gearbox_model_id,
              (count(*) FILTER (WHERE a.gearbox_model_id <> b.gearbox_model_id))::int AS k,
              (count(*) FILTER (WHERE b.status = 'CLOSED'))::int AS kc
            FROM old_rows b JOIN new_rows a ON a.id = b.id
            WHERE a.gearbox_model_id <> b.gearbox_model_id OR (a.status = 'CLOSED') IS DISTINCT FROM (b.status = 'CLOSED') GROUP BY 1) o
      WHERE c.gearbox_model_id = o.gearbox_model_id;
    INSERT INTO public.repair_order_counts (gearbox_model_id, n, closed)
      SELECT a.gearbox_model_id,
          (count(*) FILTER (WHERE a.gearbox_model_id <> b.gearbox_model_id))::int,
          (count(*) FILTER (WHERE a.status = 'CLOSED'))::int
        FROM old_rows b JOIN new_rows a ON a.id = b.id
        WHERE a.gearbox_model_id <> b.gearbox_model_id OR (a.status = 'CLOSED') IS DISTINCT FROM (b.status = 'CLOSED') GROUP BY 1
      ON CONFLICT (gearbox_model_id) DO UPDATE SET n = repair_order_counts.n + excluded.n, closed = repair_order_counts.closed + excluded.closed;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
UPDATE public.repair_order_counts c SET closed = o.k
  FROM (SELECT gearbox_model_id, (count(*) FILTER (WHERE status = 'CLOSED'))::int AS k FROM public.repair_orders GROUP BY 1) o
  WHERE c.gearbox_model_id = o.gearbox_model_id;
