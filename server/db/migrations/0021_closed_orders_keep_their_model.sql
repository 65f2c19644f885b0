-- Decision 045: a closed order keeps its gearbox model's name and constructor as well. The orders
-- closed before keep the names their model has on the day of this migration.
UPDATE "repair_orders" r SET "closed_names" = r."closed_names" || jsonb_build_object('model', jsonb_build_object('model', m."model", 'constructorName', m."constructor_name"))
FROM "gearbox_models" m
WHERE m."id" = r."gearbox_model_id" AND r."status" = 'CLOSED' AND r."closed_names" IS NOT NULL AND NOT r."closed_names" ? 'model';
