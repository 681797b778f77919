-- CreateEnum
CREATE TYPE "api_key_scope" AS ENUM ('contacts:read', 'contacts:write', 'admin');

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "scope" "api_key_scope" NOT NULL DEFAULT 'contacts:write';

