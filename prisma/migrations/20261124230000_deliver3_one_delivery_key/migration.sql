-- One index instead of two for "one delivery per webhook and event" (docs/performance.md, "Webhook
-- delivery, fourth pass"). A delivery's (position, seq) is its event's place in commit order, and an
-- event's seq alone names it (events' key), so (webhook_id, position, seq) is unique exactly when
-- (webhook_id, event_seq) is. The fan-out's ON CONFLICT now names the first, and the second index
-- goes: every delivery inserted, and again at its outcome (an update that cannot be HOT), wrote an
-- entry in both.
DROP INDEX "webhook_deliveries_webhook_id_position_seq_idx";
DROP INDEX "webhook_deliveries_webhook_id_event_seq_key";
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_position_seq_key" ON "webhook_deliveries"("webhook_id", "position", "seq");
