-- Less work per event written (docs/performance.md, "The outbox's cost, second pass"). Every event of
-- every write path paid for both of these, and neither is part of the feed's guarantee
-- (docs/events.md, "How it is kept").

-- No foreign key from events to organizations: its check was one index probe and row lock of the
-- organization per event (50 per batch of the POST pipeline, about 0.35 ms of the write statement).
-- Every writer takes the organization from an authenticated key or a row it already read, and the
-- service never deletes organizations. Whoever deletes one by hand deletes its events too
-- (DELETE FROM events WHERE organization_id = ...), the rest still cascades.
ALTER TABLE "events" DROP CONSTRAINT "events_organization_id_fkey";

-- The commit-position trigger runs once per transaction and organization (its first call does the
-- work, the others return at once), but every queued row cost a deferred event, a fetch of the row
-- at COMMIT and a PL/pgSQL call (about 0.26 ms per 50 events). A row with takes_position false
-- queues nothing. Default true: a writer that does not set it queues every row, as before. A row
-- may have it false only when the same statement inserts a row of the same organization with it
-- true (a statement is atomic, so that row commits exactly when this one does): the POST pipeline's
-- statement sets it on its first event only.
ALTER TABLE "events" ADD COLUMN "takes_position" BOOLEAN NOT NULL DEFAULT true;

DROP TRIGGER "events_commit_position" ON "events";

CREATE CONSTRAINT TRIGGER "events_commit_position"
AFTER INSERT ON "events"
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NEW."takes_position") EXECUTE FUNCTION "events_take_commit_position"();
