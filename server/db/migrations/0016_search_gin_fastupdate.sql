ALTER INDEX "repair_orders_number_trgm" SET (fastupdate = false);--> statement-breakpoint
ALTER INDEX "repair_orders_gearbox_code_trgm" SET (fastupdate = false);--> statement-breakpoint
SELECT gin_clean_pending_list('repair_orders_number_trgm'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('repair_orders_gearbox_code_trgm'::regclass);
