-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "erasure_secret" TEXT NOT NULL DEFAULT replace(((gen_random_uuid())::text || (gen_random_uuid())::text), '-'::text, ''::text);

-- AlterTable
ALTER TABLE "stored_responses" ADD COLUMN     "emails" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "erased_suppressions" (
    "organization_id" TEXT NOT NULL,
    "email_hash" TEXT NOT NULL,
    "reason" "suppression_reason" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "erased_suppressions_pkey" PRIMARY KEY ("organization_id","email_hash")
);

-- CreateIndex
CREATE INDEX "stored_responses_emails_idx" ON "stored_responses" USING GIN ("emails");

-- AddForeignKey
ALTER TABLE "erased_suppressions" ADD CONSTRAINT "erased_suppressions_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill (hand-written, data only, no schema change): the emails each stored answer already
-- holds (its top-level `email`, or each `results[].email` of a batch), so erasure finds answers
-- stored before this migration too. Each existing organization got its own random
-- erasure_secret above (the column default is evaluated per row).
-- Answers whose JSON holds \u0000 or a lone surrogate cannot be read as text by PostgreSQL,
-- they keep an empty list (they expire within 24 hours).
UPDATE "stored_responses" AS r
SET "emails" = ARRAY(
  SELECT DISTINCT e FROM (
    SELECT r."body"->>'email' AS e WHERE json_typeof(r."body") = 'object'
    UNION ALL
    SELECT x->>'email' FROM json_array_elements(
      CASE WHEN json_typeof(r."body") = 'object' AND json_typeof(r."body"->'results') = 'array' THEN r."body"->'results' ELSE '[]'::json END
    ) AS x WHERE json_typeof(x) = 'object'
  ) AS held
  WHERE e IS NOT NULL
)
WHERE r."body"::text !~ '\\u(0000|[dD][89abAB])';
