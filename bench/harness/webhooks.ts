import type { Client } from 'pg';
import type { Fixtures } from './fixtures';
import type { Service } from './service';

/** A call of the service's API with the organization's admin key; fails unless 2xx. */
export async function adminCall(service: Service, fx: Fixtures, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${fx.adminKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}

/** Creates a webhook of the organization to `url` for `types`; answers its id. */
export async function createWebhook(service: Service, fx: Fixtures, url: string, types: string[]): Promise<string> {
  const created = await adminCall(service, fx, 'POST', '/api/v2/webhooks', { url, types });
  return (created.webhook as { id: string }).id;
}

/** Deletes the webhook (its pending deliveries go with it). */
export async function deleteWebhook(service: Service, fx: Fixtures, id: string): Promise<void> {
  await adminCall(service, fx, 'DELETE', `/api/v2/webhooks/${id}`);
}

/**
 * The organization's events of `type` that occurred from `since` (epoch ms): each one's public id
 * (the webhook-id a receiver gets) and when its transaction committed (event_commits.committed_at,
 * the database's clock, on this machine), epoch ms.
 */
export async function eventCommits(client: Client, organizationId: string, type: string, since: number): Promise<Array<{ id: string; committedMs: number }>> {
  const { rows } = await client.query<{ id: string; ms: number }>(
    `SELECT 'evt_' || replace(e.id::text, '-', '') AS id, (extract(epoch FROM c.committed_at) * 1000)::float8 AS ms
     FROM events e JOIN event_commits c ON c.organization_id = e.organization_id AND c.xid = e.xid
     WHERE e.organization_id = $1 AND e.type = $2 AND e.occurred_at >= to_timestamp($3 / 1000.0)`,
    [organizationId, type, since],
  );
  return rows.map((row) => ({ id: row.id, committedMs: Number(row.ms) }));
}

/** Latencies sorted ascending; the value at quantile q (ms, whole), NaN when there are none. */
export function quantileOf(sorted: readonly number[], q: number): number {
  const value = sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return value === undefined ? NaN : Math.round(value);
}
