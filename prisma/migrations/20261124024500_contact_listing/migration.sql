-- CreateIndex
CREATE INDEX "contacts_organization_id_updated_at_idx" ON "contacts"("organization_id", "updated_at");

-- GET /api/v2/contacts pages through an organization's contacts in byte order of the normalized
-- email (docs/api.md, "Listing contacts"): an index in that collation makes a page a range scan
-- whatever the database's default collation. schema.prisma cannot express a column collation in
-- an index, so this one lives only here (test/database/migrations.e2e-spec.ts knows it).
CREATE INDEX "contacts_organization_id_email_c_idx" ON "contacts"("organization_id", "email" COLLATE "C");
