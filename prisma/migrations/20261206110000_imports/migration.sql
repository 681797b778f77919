-- Imports of contract section 17: one row per file, one per file row with its result.
CREATE TABLE "imports" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "overwrite" BOOLEAN NOT NULL,
    "dry_run" BOOLEAN NOT NULL,
    "request_id" TEXT NOT NULL,
    "client_request_id" TEXT,
    "csv_header" TEXT[],
    "rows" INTEGER NOT NULL,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "codes" JSONB NOT NULL DEFAULT '{}',
    "error_code" TEXT,
    "error_message" TEXT,
    "leased_by" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "import_rows" (
    "import_id" TEXT NOT NULL,
    "row" INTEGER NOT NULL,
    "line" TEXT,
    "cells" TEXT[],
    "problem" TEXT,
    "email" TEXT,
    "seen" BOOLEAN NOT NULL DEFAULT false,
    "duplicate_of" INTEGER,
    "status" TEXT,
    "result" TEXT,

    CONSTRAINT "import_rows_pkey" PRIMARY KEY ("import_id","row")
);

CREATE INDEX "imports_organization_id_created_at_id_idx" ON "imports"("organization_id", "created_at" DESC, "id" DESC);
CREATE INDEX "imports_organization_id_client_request_id_idx" ON "imports"("organization_id", "client_request_id");
CREATE INDEX "imports_status_created_at_idx" ON "imports"("status", "created_at");
CREATE INDEX "imports_finished_at_idx" ON "imports"("finished_at");
CREATE INDEX "import_rows_email_idx" ON "import_rows"("email");

ALTER TABLE "imports" ADD CONSTRAINT "imports_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "import_rows" ADD CONSTRAINT "import_rows_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
