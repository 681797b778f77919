-- The organization's horizon when it can be had without waiting (docs/events.md, "How it is kept"):
-- the same as event_horizon (migration 20261124090000_event_position_sequence), but with
-- pg_try_advisory_xact_lock: NULL at once when a transaction of the organization is committing (it
-- holds the shared lock) instead of waiting for it. The feed's page statement calls it to learn a
-- horizon for the organization's NEXT pages (a horizon stays valid for ever: every position at or
-- below it is final), so a page read from a known horizon needs neither a round trip nor a wait of
-- its own. As in event_horizon, the lock is taken in a block whose end rolls back, so it holds no
-- lock when it returns, and the caller reads events up to the value only in a LATER statement.
-- Function bodies are escape strings with \x3b for each semicolon: Prisma's offline schema engine
-- splits a migration at every semicolon, even inside a dollar-quoted body or a comment.
CREATE FUNCTION "event_horizon_if_free"(organization text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS E'DECLARE
  horizon bigint\x3b
BEGIN
  BEGIN
    IF pg_try_advisory_xact_lock(1163284052, hashtext(organization)) THEN
      SELECT CASE WHEN s.is_called THEN s.last_value ELSE s.last_value - 1 END INTO horizon FROM "event_position_seq" s\x3b
    END IF\x3b
    RAISE SQLSTATE ''CSHZN''\x3b
  EXCEPTION WHEN SQLSTATE ''CSHZN'' THEN
    NULL\x3b
  END\x3b
  RETURN horizon\x3b
END
';
