-- A delivery taken for an attempt is in state 'leased' until its outcome (docs/events.md, "How it
-- works", and docs/performance.md, "Webhook delivery, eighth pass"). Its lease's end (next_attempt_at)
-- is then in an index of leased deliveries only, and the claim takes the leases that ended (an
-- instance died mid-attempt) before any other due delivery: with a backlog of due deliveries, a
-- lost attempt was retried only after every older due delivery (the claim's order, next_attempt_at).
-- No delivery gets an index entry more than before: a leased delivery is in the leased index
-- instead of the pending one. The deliveries log shows 'leased' as 'pending' (contract 14).
UPDATE "webhook_deliveries" SET "state" = 'leased' WHERE "state" = 'pending' AND "lease_token" IS NOT NULL;

-- Per-contact order: a contact's next event waits while an earlier one is pending or leased.
DROP INDEX "webhook_deliveries_pending_contact_idx";
CREATE INDEX "webhook_deliveries_pending_contact_idx" ON "webhook_deliveries"("webhook_id", "contact_id", "position", "seq") WHERE "state" IN ('pending', 'leased');

CREATE INDEX "webhook_deliveries_leased_next_attempt_at_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "state" = 'leased';
