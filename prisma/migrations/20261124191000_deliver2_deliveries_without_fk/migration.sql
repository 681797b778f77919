-- No foreign key from webhook_deliveries to webhooks (docs/performance.md, "Webhook delivery, third
-- pass"). Its check ran for every delivery the fan-out inserts (an index probe and a key-share lock
-- of the webhook row, about a fifth of the fan-out statement's time), and its only use was the
-- cascade when a webhook is deleted: WebhooksRepository.delete now deletes the webhook's deliveries
-- itself, in the same transaction, after the webhook row (a fan-out holding that row finishes first,
-- so no delivery of it can be inserted afterwards). The service never deletes organizations, and whoever
-- deletes one by hand first deletes its webhooks' deliveries (DELETE FROM webhook_deliveries WHERE
-- webhook_id IN (SELECT id FROM webhooks WHERE organization_id = ...)): the retention sweep finds
-- deliveries through their webhook.
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_id_fkey";
