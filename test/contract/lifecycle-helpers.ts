/**
 * HTTP helpers for erasure and suppressions (docs/api.md, "Erasing a contact", "Suppressions").
 * Erase and lifting a suppression need the `admin` scope: `adminKey` is the one place that makes
 * such a key (one per organization, made on first use).
 */
import { createApiKey } from '../utils/fixtures';
import { type Org } from './helpers';

const adminKeys = new WeakMap<Org, Promise<string>>();

export function adminKey(org: Org): Promise<string> {
  let key = adminKeys.get(org);
  if (!key) {
    key = createApiKey(org.t.prisma, org.id, { scope: 'admin' }).then((created) => created.key);
    adminKeys.set(org, key);
  }
  return key;
}

export async function erase(org: Org, email: string, body?: string, contentType = 'application/json') {
  const req = org.t.http().post(`/api/v2/contacts/${encodeURIComponent(email)}/erase`).set('Authorization', `Bearer ${await adminKey(org)}`);
  return body === undefined ? req : req.set('Content-Type', contentType).send(body);
}

export function suppressMany(org: Org, suppressions: unknown) {
  return org.postRaw('/api/v2/suppressions', JSON.stringify({ suppressions }));
}

export function listSuppressions(org: Org, query = '') {
  return org.get(`/api/v2/suppressions${query ? `?${query}` : ''}`);
}

export async function unsuppress(org: Org, email: string) {
  return org.t.http().delete(`/api/v2/suppressions/${encodeURIComponent(email)}`).set('Authorization', `Bearer ${await adminKey(org)}`);
}
