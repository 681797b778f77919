-- CreateTable
CREATE TABLE "stored_responses" (
    "request_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "body" JSON NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stored_responses_pkey" PRIMARY KEY ("request_id")
);

-- CreateIndex
CREATE INDEX "stored_responses_created_at_idx" ON "stored_responses"("created_at");

-- AddForeignKey
ALTER TABLE "stored_responses" ADD CONSTRAINT "stored_responses_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

