-- Foreign keys from events to organizations and from webhook deliveries to webhooks: Prisma Studio
-- shows both relations, and deleting an organization (DELETE FROM organizations WHERE id = ...) or a
-- webhook deletes what has no meaning without it, by cascade. Each key's lookup on delete is an
-- index that exists already: the events' feed index (organization_id, xid, seq) and the deliveries'
-- primary key (webhook_id, position, seq) lead with the referencing column.

-- Rows whose parent is already gone (an organization or webhook deleted by hand without its events
-- or deliveries) belong to nothing and would fail the constraints: they go first.
DELETE FROM "events" e WHERE NOT EXISTS (SELECT 1 FROM "organizations" o WHERE o."id" = e."organization_id");
DELETE FROM "webhook_deliveries" d WHERE NOT EXISTS (SELECT 1 FROM "webhooks" w WHERE w."id" = d."webhook_id");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
