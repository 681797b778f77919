-- Ids get their value from the database too, so Prisma Client, raw SQL and Prisma Studio write the
-- same rows (created_at and updated_at already default to now()).
-- AlterTable
ALTER TABLE "organizations" ALTER COLUMN "id" SET DEFAULT (gen_random_uuid())::text;

-- AlterTable
ALTER TABLE "api_keys" ALTER COLUMN "id" SET DEFAULT (gen_random_uuid())::text;

-- AlterTable
ALTER TABLE "lists" ALTER COLUMN "id" SET DEFAULT (gen_random_uuid())::text;

-- AlterTable
ALTER TABLE "custom_fields" ALTER COLUMN "id" SET DEFAULT (gen_random_uuid())::text;

-- AlterTable
ALTER TABLE "contacts" ALTER COLUMN "id" SET DEFAULT (gen_random_uuid())::text;

