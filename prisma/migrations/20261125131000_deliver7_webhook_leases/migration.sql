-- First attempts leased as one record per fan-out round and webhook instead of one delivery row per
-- event (docs/events.md, "How it works", and docs/performance.md, "Webhook delivery, eighth pass"):
-- each event's delivery row is inserted once, when its first attempt ends, with its outcome.
-- positions and seqs name the leased events (in commit order), contact_ids their contacts (for
-- per-contact order), open how many of them have no delivery row yet. A lease whose instance died
-- (expires_at passed) is taken over by the claim.
CREATE TABLE "webhook_leases" (
    "webhook_id" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "leased_by" TEXT NOT NULL,
    "leased_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "positions" BIGINT[],
    "seqs" BIGINT[],
    "contact_ids" TEXT[],
    "open" INTEGER NOT NULL,

    CONSTRAINT "webhook_leases_pkey" PRIMARY KEY ("webhook_id","token")
);

CREATE INDEX "webhook_leases_expires_at_idx" ON "webhook_leases"("expires_at");

ALTER TABLE "webhook_leases" ADD CONSTRAINT "webhook_leases_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
