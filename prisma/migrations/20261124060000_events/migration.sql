-- Change events (contract section 14, docs/events.md). Tables and indexes as produced by Prisma's
-- diff of schema.prisma, the commit-order trigger at the end is written by hand (schema.prisma
-- cannot express it).
-- CreateTable
CREATE TABLE "events" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "request_id" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "contact_id" TEXT,
    "email" TEXT,
    "data" JSONB NOT NULL,
    "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "event_counters" (
    "organization_id" TEXT NOT NULL,
    "position" BIGINT NOT NULL,

    CONSTRAINT "event_counters_pkey" PRIMARY KEY ("organization_id")
);

-- CreateTable
CREATE TABLE "event_commits" (
    "organization_id" TEXT NOT NULL,
    "position" BIGINT NOT NULL,
    "xid" xid8 NOT NULL,
    "committed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_commits_pkey" PRIMARY KEY ("organization_id","position")
);

-- CreateTable
CREATE TABLE "event_retention" (
    "organization_id" TEXT NOT NULL,
    "pruned_position" BIGINT NOT NULL,
    "pruned_seq" BIGINT NOT NULL,
    "pruned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_retention_pkey" PRIMARY KEY ("organization_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_id_key" ON "events"("id");

-- CreateIndex
CREATE INDEX "events_organization_id_xid_seq_idx" ON "events"("organization_id", "xid", "seq");

-- CreateIndex
CREATE INDEX "events_organization_id_email_idx" ON "events"("organization_id", "email");

-- CreateIndex
CREATE INDEX "events_organization_id_contact_id_idx" ON "events"("organization_id", "contact_id");

-- CreateIndex
CREATE INDEX "event_commits_committed_at_idx" ON "event_commits"("committed_at");

-- CreateIndex
CREATE UNIQUE INDEX "event_commits_organization_id_xid_key" ON "event_commits"("organization_id", "xid");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_counters" ADD CONSTRAINT "event_counters_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_commits" ADD CONSTRAINT "event_commits_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_retention" ADD CONSTRAINT "event_retention_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Commit order (hand-written). An event's seq is taken when it is inserted, long before its
-- transaction commits, so a reader paging by seq could pass an event whose transaction commits
-- later with a smaller seq. Instead, each committing transaction that wrote events for an
-- organization takes the organization's next commit position AT COMMIT: this deferred constraint
-- trigger runs in the commit itself, increments event_counters (whose row lock is then held until
-- the commit completes, so the next transaction gets position + 1 only after this one is visible)
-- and records (position, xid) in event_commits. Positions therefore become visible in position
-- order with no gap, and the feed pages by (position, seq). The first row of a transaction for an
-- organization does the work, the others see the organization in a transaction-local setting and
-- return at once.
-- The body is an escape string with \x3b for each semicolon: Prisma's offline schema engine splits
-- a migration at every semicolon, even inside a dollar-quoted body or a comment (so this file
-- has none outside the ends of statements).
CREATE FUNCTION "events_take_commit_position"() RETURNS trigger
LANGUAGE plpgsql AS E'DECLARE
  done text := COALESCE(NULLIF(current_setting(''contact_sync.event_organizations'', true), ''''), ''|'')\x3b
  taken bigint\x3b
BEGIN
  IF strpos(done, ''|'' || NEW.organization_id || ''|'') > 0 THEN
    RETURN NULL\x3b
  END IF\x3b
  INSERT INTO "event_counters" AS c ("organization_id", "position") VALUES (NEW.organization_id, 1)
  ON CONFLICT ("organization_id") DO UPDATE SET "position" = c."position" + 1
  RETURNING c."position" INTO taken\x3b
  INSERT INTO "event_commits" ("organization_id", "position", "xid", "committed_at")
  VALUES (NEW.organization_id, taken, pg_current_xact_id(), clock_timestamp())\x3b
  PERFORM set_config(''contact_sync.event_organizations'', done || NEW.organization_id || ''|'', true)\x3b
  RETURN NULL\x3b
END
';

CREATE CONSTRAINT TRIGGER "events_commit_position"
AFTER INSERT ON "events"
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION "events_take_commit_position"();
