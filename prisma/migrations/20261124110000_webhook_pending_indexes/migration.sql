-- Webhook deliveries: the two indexes the claim reads only for pending deliveries become partial
-- indexes on pending deliveries (docs/performance.md, "Webhook delivery: pending-only indexes"). A
-- delivery is updated twice (claim, outcome), both non-HOT. The outcome that ends it (delivered,
-- failed) now adds entries to two indexes instead of four, and the claim walks indexes that hold
-- only pending deliveries, not every delivery made since the last vacuum.
-- Not expressible in schema.prisma (partial indexes): test/database/migrations.e2e-spec.ts lists them.
DROP INDEX "webhook_deliveries_state_next_attempt_at_idx";

DROP INDEX "webhook_deliveries_webhook_id_contact_id_state_position_seq_idx";

CREATE INDEX "webhook_deliveries_pending_next_attempt_at_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "state" = 'pending';

CREATE INDEX "webhook_deliveries_pending_contact_idx" ON "webhook_deliveries"("webhook_id", "contact_id", "position", "seq") WHERE "state" = 'pending';
