ALTER TABLE "order_files" ADD COLUMN "checkpoint_id" uuid;--> statement-breakpoint
ALTER TABLE "order_files" ADD COLUMN "thumbnail_id" uuid;--> statement-breakpoint
ALTER TABLE "order_files" ADD CONSTRAINT "order_files_checkpoint_id_order_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."order_checkpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_files" ADD CONSTRAINT "order_files_thumbnail_id_files_id_fk" FOREIGN KEY ("thumbnail_id") REFERENCES "storage"."files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_files_checkpoint_idx" ON "order_files" USING btree ("checkpoint_id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_files_thumbnail_key" ON "order_files" USING btree ("thumbnail_id");