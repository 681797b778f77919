-- Two fewer index entries per event written (docs/performance.md, "The outbox's cost"): every
-- index on events is paid by every event of every write path, and both of these had random keys
-- (a UUID), so each insert touched a random leaf page (a full-page image in the WAL after every
-- checkpoint once the table is large).
-- events_id_key: nothing reads an event by its id (the feed and the webhook claim find events by
-- (organization_id, xid, seq) and seq, and only render the id), and ids are gen_random_uuid() values.
-- events_organization_id_contact_id_idx: erasure finds an address's events by (organization_id,
-- email) alone: every event that names a contact also carries that contact's normalized address
-- (a contact's address never changes), so the contact-id branch found nothing more.
DROP INDEX "events_id_key";

DROP INDEX "events_organization_id_contact_id_idx";
