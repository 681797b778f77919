-- webhook_deliveries.webhook_id: a trigger on webhooks instead of a foreign key. The key's check
-- costs every delivery row an index probe and a key-share lock on its webhook's row, which the
-- fan-out holds FOR NO KEY UPDATE and updates at every round (so the lock also makes a multixact),
-- while the trigger costs only the rare delete of a webhook. It runs AFTER the delete, after the
-- cascade to webhook_leases (triggers fire in name order: "RI_ConstraintTrigger..." sorts first):
-- an outcome or a take-over that holds one of the webhook's lease records writes its delivery rows
-- before the cascade gets that record, and the trigger's statement, which starts after, deletes
-- them too. The function body is an escape string with \x3b for each semicolon: Prisma's offline
-- schema engine splits a migration at every semicolon.
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_id_fkey";

CREATE FUNCTION "delete_webhook_deliveries"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN
  DELETE FROM "webhook_deliveries" WHERE "webhook_id" = OLD."id"\x3b
  RETURN NULL\x3b
END';

CREATE TRIGGER "webhooks_delete_deliveries" AFTER DELETE ON "webhooks"
FOR EACH ROW EXECUTE FUNCTION "delete_webhook_deliveries"();
