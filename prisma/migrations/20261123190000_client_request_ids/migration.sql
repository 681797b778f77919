-- AlterTable
ALTER TABLE "stored_responses" ADD COLUMN     "client_request_id" TEXT;

-- CreateIndex
CREATE INDEX "stored_responses_organization_id_client_request_id_created__idx" ON "stored_responses"("organization_id", "client_request_id", "created_at" DESC);

