import { defineStatement } from '../database/statements';

/** Serializes two starts racing on the same database (a transaction-scoped advisory lock, released at commit). */
export const DEMO_SEED_LOCK = defineStatement<{ locked: boolean }>({
  name: 'demo.lock',
  text: `SELECT true AS locked FROM pg_advisory_xact_lock(hashtext('contact-sync-demo-seed'))`,
  columns: ['locked'],
  sample: () => [],
});

/** The oldest organization, if there is one. */
export const FIRST_ORGANIZATION = defineStatement<{ id: string }>({
  name: 'demo.first-organization',
  text: `SELECT id FROM organizations ORDER BY created_at LIMIT 1`,
  columns: ['id'],
  sample: () => [],
});

/** A new organization named $1. */
export const INSERT_ORGANIZATION = defineStatement<{ id: string }>({
  name: 'demo.insert-organization',
  text: `INSERT INTO organizations (name) VALUES ($1) RETURNING id`,
  columns: ['id'],
  sample: () => ['sample'],
});

/** An `admin` API key of organization $1: prefix $2, hash $3 (the key itself is never stored). */
export const INSERT_ADMIN_KEY = defineStatement<{ id: string }>({
  name: 'demo.insert-admin-key',
  text: `INSERT INTO api_keys (organization_id, prefix, key_hash, scope) VALUES ($1, $2, $3, 'admin') RETURNING id`,
  columns: ['id'],
  sample: (organizationId) => [organizationId, 'sample', 'sample'],
});

/**
 * The demo data's statements. Run once at the first embedded start (main.ts), outside the feature
 * modules: test/database/statements.e2e-spec.ts checks them with the registered ones.
 */
export const DEMO_SEED_STATEMENTS = [DEMO_SEED_LOCK, FIRST_ORGANIZATION, INSERT_ORGANIZATION, INSERT_ADMIN_KEY];
