CREATE TABLE "storage"."location" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"kind" text NOT NULL,
	"bucket" text,
	"endpoint" text,
	"region" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "location_one_row" CHECK ("storage"."location"."id")
);
