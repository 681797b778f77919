-- GET /api/v2/contacts renders each page contact's list ids (docs/performance.md, "Listing
-- contacts", seventh pass): one lookup per contact by contact id. Contact ids are UUID text made by
-- the service or the database, never ordered for a caller: comparing them in the database's locale
-- (a strcoll per comparison under libc C.UTF-8) buys nothing. With the "C" collation on both sides
-- of the membership key, its descents compare bytes (memcmp), and the primary key, covering
-- created_at, answers the lookup index-only. It replaces an extra index measured on a branch and
-- never released, (contact_id COLLATE "C", created_at, list_id), which every membership insert had
-- to write: same read gain, no extra index (the DROP below only cleans a database that had it).
-- Changing a text column's collation rewrites no table, only the indexes on it (the two primary
-- keys, and the foreign key between them is checked again).
-- (No semicolon may appear inside a statement or comment here: Prisma's driver-adapter engine
-- splits the script at every one.)
DROP INDEX IF EXISTS "list_memberships_contact_id_c_idx";

ALTER TABLE "list_memberships" DROP CONSTRAINT "list_memberships_contact_id_fkey";

ALTER TABLE "contacts" ALTER COLUMN "id" SET DATA TYPE TEXT COLLATE "C";

ALTER TABLE "list_memberships" ALTER COLUMN "contact_id" SET DATA TYPE TEXT COLLATE "C",
  DROP CONSTRAINT "list_memberships_pkey",
  ADD CONSTRAINT "list_memberships_pkey" PRIMARY KEY ("contact_id", "list_id") INCLUDE ("created_at");

ALTER TABLE "list_memberships" ADD CONSTRAINT "list_memberships_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
