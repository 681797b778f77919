-- CreateTable
CREATE TABLE "webhooks" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "organization_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "types" TEXT[],
    "description" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_reason" TEXT,
    "failing_since" TIMESTAMPTZ(3),
    "feed_position" BIGINT NOT NULL,
    "feed_seq" BIGINT NOT NULL,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "event_seq" BIGINT NOT NULL,
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "contact_id" TEXT,
    "position" BIGINT NOT NULL,
    "seq" BIGINT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "attempts" JSONB NOT NULL DEFAULT '[]',
    "next_attempt_at" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "lease_token" TEXT,
    "leased_at" TIMESTAMPTZ(3),
    "leased_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhooks_organization_id_idx" ON "webhooks"("organization_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_position_seq_idx" ON "webhook_deliveries"("webhook_id", "position", "seq");

-- CreateIndex
CREATE INDEX "webhook_deliveries_state_next_attempt_at_idx" ON "webhook_deliveries"("state", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_contact_id_state_position_seq_idx" ON "webhook_deliveries"("webhook_id", "contact_id", "state", "position", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_seq_key" ON "webhook_deliveries"("webhook_id", "event_seq");

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
