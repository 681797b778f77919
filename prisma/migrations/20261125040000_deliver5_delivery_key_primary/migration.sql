-- The key of a delivery, (webhook_id, position, seq), becomes its primary key and the surrogate id
-- goes (docs/performance.md, "Webhook delivery", sixth pass). Nothing reads a delivery by its id:
-- the worker names the delivery of an attempt by its key, the deliveries log by the event. Each
-- delivery was an entry in the index of the id at its insert and another at its outcome (an update
-- that cannot be HOT: state is in the predicates of the pending indexes), and a sequence value.
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey";
ALTER TABLE "webhook_deliveries" DROP COLUMN "id";
-- The unique index already holds the key: it becomes the index of the primary key (renamed), not rebuilt.
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY USING INDEX "webhook_deliveries_webhook_id_position_seq_key";
