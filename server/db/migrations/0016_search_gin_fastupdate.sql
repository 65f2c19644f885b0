DROP INDEX "repair_orders_number_trgm";--> statement-breakpoint
DROP INDEX "repair_orders_gearbox_code_trgm";--> statement-breakpoint
CREATE INDEX "repair_orders_number_trgm" ON "repair_orders" USING gin (upper("number") gin_trgm_ops) WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "repair_orders_gearbox_code_trgm" ON "repair_orders" USING gin (upper("gearbox_code") gin_trgm_ops) WITH (fastupdate=false);