DROP INDEX "stock_items_rack_idx";--> statement-breakpoint
DROP INDEX "stock_items_out_idx";--> statement-breakpoint
CREATE INDEX "stock_items_rack_idx" ON "stock_items" USING btree ("rack","level","number") WHERE "stock_items"."out_on" is null;--> statement-breakpoint
CREATE INDEX "stock_items_out_idx" ON "stock_items" USING btree ("out_on","number") WHERE "stock_items"."out_on" is not null;