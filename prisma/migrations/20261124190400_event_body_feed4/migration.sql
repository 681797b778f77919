-- Each event's JSON text, stored when the event is written (docs/events.md, "An event";
-- docs/performance.md, "stored event text"): a feed page and a webhook body are the stored texts,
-- concatenated, instead of rendering `data` (jsonb to text, about 1.5 µs an event) and the
-- id/type/occurredAt/requestId around it (to_char, replace, to_json: about 2 µs more) on every read.
-- The writer renders the text (renderEvent, src/events/event-types.ts) with the id and time it also
-- stores in the columns. `data` is gone: it lives in the text (erasure rewrites the text,
-- src/events/event-redaction.ts).
-- Cost: one rewrite of every event row, in the migration transaction, holding the lock of ADD COLUMN
-- ACCESS EXCLUSIVE lock on events until it commits (event writers wait): 93,354 events took 12.3 s
-- with the CLI start on a loaded 2-core machine, and the table grows until (auto)vacuum reclaims the
-- old row versions (61 MB -> 182 MB there). Retention keeps the table small (7 days by default).
ALTER TABLE "events" ADD COLUMN "body" TEXT;

-- Existing events: the text the feed rendered for them until now (eventJsonSql).
UPDATE "events" e SET "body" = '{"id":"evt_' || replace(e.id::text, '-', '') || '","type":"' || e.type
  || '","occurredAt":"' || to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  || '","requestId":' || coalesce(to_json(e.request_id)::text, 'null') || ',"data":' || e.data::text || '}';

ALTER TABLE "events" ALTER COLUMN "body" SET NOT NULL;
ALTER TABLE "events" DROP COLUMN "data";
