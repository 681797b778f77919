-- events.organization_id: a trigger on organizations instead of a foreign key. The key's check
-- costs every inserted event an index probe and a share lock on its organization's row, which
-- every concurrent write of that organization takes too, while the trigger costs only the rare
-- delete of an organization. The function body is an escape string with \x3b for each semicolon:
-- Prisma's offline schema engine splits a migration at every semicolon.
ALTER TABLE "events" DROP CONSTRAINT "events_organization_id_fkey";

CREATE FUNCTION "delete_organization_events"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN
  DELETE FROM "events" WHERE "organization_id" = OLD."id"\x3b
  RETURN OLD\x3b
END';

CREATE TRIGGER "organizations_delete_events" BEFORE DELETE ON "organizations"
FOR EACH ROW EXECUTE FUNCTION "delete_organization_events"();
