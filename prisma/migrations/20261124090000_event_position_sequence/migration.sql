-- Commit positions from one global sequence instead of a per-organization counter row (docs/events.md,
-- "The guarantee"). The counter's row lock, held until the commit's WAL flush ended, serialized the
-- event-writing commits of one organization. Now a committing transaction takes a SHARED
-- transaction-level advisory lock on its organization's key, then nextval: writers of one
-- organization no longer wait for each other. A reader first takes the EXCLUSIVE lock on that key
-- (event_horizon below): it is granted once every writer that took a position before has ended
-- (PostgreSQL releases locks after the commit is visible), so every position at or below the
-- sequence value it then reads is visible or rolled back for good. The reader then reads, in a new
-- statement, the positions after its cursor up to that horizon.
-- Advisory key: the two-int form, (1163284052, hashtext(organization_id)). 1163284052 is 0x45564E54,
-- the letters EVNT: the namespace of these locks. The two-int form never meets the one-bigint
-- advisory locks of contacts.lock-emails and the demo seed (PostgreSQL keeps the two forms apart).
-- Two organizations whose ids hash alike share a key: their readers and writers wait for each
-- other a little more, the guarantee is unchanged.
-- Function bodies are escape strings with \x3b for each semicolon: Prisma's offline schema engine
-- splits a migration at every semicolon, even inside a dollar-quoted body or a comment.

-- CACHE 1 (the default, stated): values are handed out in the order nextval is called, across all
-- sessions. A cache per session would break the horizon (a value below it could come later).
CREATE SEQUENCE "event_position_seq" AS bigint CACHE 1 NO CYCLE;

-- Above every position handed out so far, by any organization (the old counters, commits kept,
-- retention boundaries and webhook places), so every existing cursor stays before every new position.
SELECT setval('event_position_seq', 1 + GREATEST(
  (SELECT COALESCE(max("position"), 0) FROM "event_counters"),
  (SELECT COALESCE(max("position"), 0) FROM "event_commits"),
  (SELECT COALESCE(max("pruned_position"), 0) FROM "event_retention"),
  (SELECT COALESCE(max("feed_position"), 0) FROM "webhooks")
), false);

CREATE OR REPLACE FUNCTION "events_take_commit_position"() RETURNS trigger
LANGUAGE plpgsql AS E'DECLARE
  done text := COALESCE(NULLIF(current_setting(''contact_sync.event_organizations'', true), ''''), ''|'')\x3b
  taken bigint\x3b
BEGIN
  IF strpos(done, ''|'' || NEW.organization_id || ''|'') > 0 THEN
    RETURN NULL\x3b
  END IF\x3b
  PERFORM pg_advisory_xact_lock_shared(1163284052, hashtext(NEW.organization_id))\x3b
  taken := nextval(''event_position_seq'')\x3b
  INSERT INTO "event_commits" ("organization_id", "position", "xid", "committed_at")
  VALUES (NEW.organization_id, taken, pg_current_xact_id(), clock_timestamp())\x3b
  PERFORM set_config(''contact_sync.event_organizations'', done || NEW.organization_id || ''|'', true)\x3b
  RETURN NULL\x3b
END
';

-- The organization's horizon: waits until every transaction that took a position for it has ended,
-- then returns the last position handed out (any organization's). Holds no lock when it returns: the
-- lock is taken in a block whose end rolls back (a subtransaction releases the locks it took), so
-- it may be called inside a longer transaction and never waits while holding a lock. Read the events
-- up to it in a LATER statement: a statement whose snapshot was taken before the lock was granted
-- may miss commits at or below the horizon.
CREATE FUNCTION "event_horizon"(organization text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS E'DECLARE
  horizon bigint\x3b
BEGIN
  BEGIN
    PERFORM pg_advisory_xact_lock(1163284052, hashtext(organization))\x3b
    SELECT CASE WHEN s.is_called THEN s.last_value ELSE s.last_value - 1 END INTO horizon FROM "event_position_seq" s\x3b
    RAISE SQLSTATE ''CSHZN''\x3b
  EXCEPTION WHEN SQLSTATE ''CSHZN'' THEN
    NULL\x3b
  END\x3b
  RETURN horizon\x3b
END
';

-- Horizons of several organizations (the webhook fan-out): one lock at a time, each released before
-- the next is taken, so a caller never holds one while waiting for another (no deadlock).
CREATE FUNCTION "event_horizons"(organizations text[]) RETURNS TABLE(organization_id text, horizon bigint)
LANGUAGE sql VOLATILE AS E'
  SELECT o.id, "event_horizon"(o.id) FROM (SELECT DISTINCT unnest(organizations) AS id) o
';

DROP TABLE "event_counters";
