import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type ContactOutcome = 'created' | 'updated' | 'unchanged' | 'failed';

/**
 * The Prometheus metrics of docs/api.md#operations, on a registry of this app instance (so two
 * instances in one test process do not share counters).
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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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

  rateLimitRefused(scope: 'org' | 'ip'): void {
    this.rateLimitRefusals.inc({ scope });
  }
}
