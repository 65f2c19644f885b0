CREATE TABLE "auth"."rate_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_counters_expires_at_idx" ON "auth"."rate_counters" USING btree ("expires_at");
--> statement-breakpoint
-- Added by hand (drizzle-kit does not model it; decision 053): throwaway counters skip the WAL, so a hit waits for no disk flush. PostgreSQL empties the table after a crash of its own, and a standby has none.
ALTER TABLE "auth"."rate_counters" SET UNLOGGED;
