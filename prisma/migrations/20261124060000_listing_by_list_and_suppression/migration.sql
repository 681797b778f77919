-- GET /api/v2/contacts?listId= and ?suppressed=true walk the list's members or the organization's
-- suppressions in the listing's order (the normalized email, byte order) instead of walking every
-- contact and probing each (docs/performance.md, "Listing contacts"). A membership keeps its
-- contact's email (it never changes for a contact): every insert of a membership writes it.
-- (No semicolon may appear inside a statement or comment here: Prisma's driver-adapter engine
-- splits the script at every one.)
ALTER TABLE "list_memberships" ADD COLUMN "email" TEXT;

UPDATE "list_memberships" AS m SET "email" = c."email" FROM "contacts" AS c WHERE c."id" = m."contact_id";

ALTER TABLE "list_memberships" ALTER COLUMN "email" SET NOT NULL;

-- The list's members in listing order. Its leading column also serves every lookup by list id
-- (the cascade of a list's delete), so the single-column index goes.
DROP INDEX "list_memberships_list_id_idx";
CREATE INDEX "list_memberships_list_id_email_c_idx" ON "list_memberships"("list_id", "email" COLLATE "C");

-- The organization's suppressions in listing order (the primary key is in the default collation).
CREATE INDEX "suppressions_organization_id_email_c_idx" ON "suppressions"("organization_id", "email" COLLATE "C");
