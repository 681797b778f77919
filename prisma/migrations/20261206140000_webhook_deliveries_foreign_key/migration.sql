-- webhook_deliveries.webhook_id: the foreign key again, in place of the delete trigger, so that
-- Prisma Studio shows the relation and the database itself guarantees that no delivery outlives its
-- webhook. Deleting a webhook deletes its deliveries by the key's cascade, found through the primary
-- key, which leads with webhook_id.
DROP TRIGGER "webhooks_delete_deliveries" ON "webhooks";

DROP FUNCTION "delete_webhook_deliveries"();

-- Rows whose webhook is already gone (deleted by hand with the trigger disabled) would fail the key.
DELETE FROM "webhook_deliveries" d WHERE NOT EXISTS (SELECT 1 FROM "webhooks" w WHERE w."id" = d."webhook_id");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
