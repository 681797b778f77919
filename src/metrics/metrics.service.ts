import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, register } from 'prom-client';

export type ContactOutcome = 'created' | 'updated' | 'unchanged' | 'failed';

/**
 * Node's process metrics (CPU, memory, event loop, GC), on prom-client's default registry: they
 * belong to the process, so they start once per process, at its start (`main.ts`), never per app
 * instance. prom-client's GC metric observes the process for as long as it lives, with no way to
 * stop it (prometheus/client_js#500): started per app, it would keep every closed app in memory.
 */
export function collectProcessMetrics(): void {
  collectDefaultMetrics({ register });
}

/**
 * The Prometheus metrics of docs/api.md#operations, on a registry of this app instance (so two
 * instances in one test process do not share counters); `/metrics` answers them with the process's.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly contactsProcessed = new Counter({
    name: 'contacts_processed_total',
    help: 'Contacts processed by outcome (code is empty unless failed)',
    labelNames: ['outcome', 'code'] as const,
    registers: [this.registry],
  });

  readonly rateLimitRefusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429, by scope (org or ip)',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });

  readonly serviceUnavailable = new Counter({
    name: 'service_unavailable_total',
    help: 'Requests answered 503 SERVICE_UNAVAILABLE, by reason (database, lock_timeout, shutting_down)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** One per webhook attempt: delivered, retry (failed, another attempt scheduled), failed (given up), disabled (410). */
  readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed, gone)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Read from the database at each scrape (set by the webhooks module). */
  private oldestUndelivered: (() => Promise<number>) | undefined;

  readonly webhookOldestUndelivered = new Gauge({
    name: 'webhook_oldest_undelivered_event_age_seconds',
    help: 'Seconds since the commit of the oldest event not yet delivered (or failed) to an enabled webhook; 0 when none',
    registers: [this.registry],
    collect: async () => {
      if (!this.oldestUndelivered) return;
      try {
        this.webhookOldestUndelivered.set(await this.oldestUndelivered());
      } catch {
        // The database cannot answer: the scrape keeps the last value.
      }
    },
  });

  /** The Prometheus text of this instance's metrics and the process's (collectProcessMetrics). */
  async exposition(): Promise<{ contentType: string; text: string }> {
    const both = Registry.merge([register, this.registry]);
    return { contentType: both.contentType, text: await both.metrics() };
  }

  contactProcessed(outcome: ContactOutcome, code = ''): void {
    this.contactsProcessed.inc({ outcome, code: outcome === 'failed' ? code : '' });
  }

  /** One answered HTTP request; `route` is a route pattern or 'unmatched', never a raw path. */
  httpRequestFinished(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** A 503: the database could not serve, other requests held the contacts' locks, or shutting down. */
  serviceUnavailableAnswered(reason: string): void {
    this.serviceUnavailable.inc({ reason });
  }

  webhookAttempted(outcome: 'delivered' | 'retry' | 'failed' | 'gone', count: number): void {
    this.webhookDeliveries.inc({ outcome }, count);
  }

  /** How the oldest-undelivered gauge is read (the webhooks module knows the tables). */
  measureOldestUndeliveredWith(source: () => Promise<number>): void {
    this.oldestUndelivered = source;
  }

  rateLimitRefused(scope: 'org' | 'ip'): void {
    this.rateLimitRefusals.inc({ scope });
  }
}
