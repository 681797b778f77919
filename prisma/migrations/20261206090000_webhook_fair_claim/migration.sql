-- The claim takes due deliveries webhook by webhook, each webhook's share in next_attempt_at order
-- (docs/events.md, "How it works": fair delivery), so that one webhook's backlog never fills an
-- instance's attempt slots. Its pending deliveries are found by webhook first: with one index over
-- every webhook's due deliveries, a webhook with little due walked past another's whole backlog.
-- No delivery gets an index entry more than before: this index replaces the one by next_attempt_at.
DROP INDEX "webhook_deliveries_pending_next_attempt_at_idx";
CREATE INDEX "webhook_deliveries_pending_webhook_id_next_attempt_at_idx" ON "webhook_deliveries"("webhook_id", "next_attempt_at") WHERE "state" = 'pending';
