import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { nextDelayMs } from '../common/retry-delays';
import { MetricsService } from '../metrics/metrics.service';
import { eventBody, publicEventId } from './event-body';
import { checkTarget, TargetRefused } from './webhook-address';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { sendAttempt, type AttemptResult } from './webhook-sender';
import { signedHeaders } from './webhook-signing';
import { type AttemptOutcome, type ClaimedDelivery, WebhooksRepository } from './webhooks.repository';

/** Events read from the feed per webhook and round; a full page means more are waiting. */
const FAN_OUT_PAGE = 1000;
/** Fewest free attempt slots worth a claim statement (unless nothing is in flight). */
const CLAIM_BATCH = 16;
/** Attempts' outcomes are written together, at most this long after the first of them ended. */
const FLUSH_DELAY_MS = 15;

/**
 * Makes this instance's share of webhook attempts (docs/events.md, "Webhooks"). Every instance runs
 * one; they share the work through the database alone: the feed is taken into deliveries with
 * `FOR NO KEY UPDATE SKIP LOCKED` on the webhooks, and each attempt is taken with
 * `FOR UPDATE SKIP LOCKED` plus a lease (next_attempt_at pushed ahead), so one instance makes it; one
 * that dies leaves it to another when the lease ends. An idle instance looks every WEBHOOK_POLL_MS.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private readonly attempts = new Set<Promise<void>>();
  private pending: { outcome: AttemptOutcome; webhookId: string; kind: 'delivered' | 'retry' | 'failed' | 'gone' }[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly addresses: WebhookAddressPolicy,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    metrics.measureOldestUndeliveredWith(() => repository.oldestPendingAgeSeconds());
  }

  onApplicationBootstrap(): void {
    if (!this.config.WEBHOOK_DELIVERY) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
    // Attempts in flight end within the attempt timeout; their outcomes are written if the database
    // is still there (if not, their leases end and another instance makes them again).
    await Promise.race([Promise.allSettled([...this.attempts]), new Promise((r) => setTimeout(r, 5000).unref())]);
    await this.flush();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let busy: boolean;
      try {
        const { read } = await this.repository.fanOut(FAN_OUT_PAGE);
        busy = read >= FAN_OUT_PAGE;
        // Take work in batches (one claim statement per batch, not one per attempt that ended).
        const free = this.config.WEBHOOK_CONCURRENCY - this.inFlight;
        if (free >= Math.min(CLAIM_BATCH, this.config.WEBHOOK_CONCURRENCY) || (free > 0 && this.inFlight === 0)) {
          const claimed = await this.repository.claim(this.owner, randomUUID(), this.config.WEBHOOK_LEASE_SECONDS, free);
          for (const delivery of claimed) this.start(delivery);
          if (claimed.length === free) busy = true;
        }
      } catch (error) {
        this.logger.warn(`Webhook delivery round failed: ${(error as Error).message}`);
        await this.sleep(1000);
        continue;
      }
      if (!busy || this.config.WEBHOOK_CONCURRENCY - this.inFlight < CLAIM_BATCH) await this.sleep(this.config.WEBHOOK_POLL_MS);
    }
  }

  /** Waits `ms`, or less when an attempt ends or outcomes are written (a contact's next event may be due). */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private start(delivery: ClaimedDelivery): void {
    this.inFlight++;
    const attempt = this.attempt(delivery)
      .catch((error: unknown) => this.logger.error(`Webhook attempt crashed: ${(error as Error).message}`))
      .finally(() => {
        this.inFlight--;
        this.attempts.delete(attempt);
      });
    this.attempts.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const at = new Date().toISOString();
    let result: AttemptResult;
    if (!delivery.event) {
      this.record(delivery, at, { status: null, error: 'the event is no longer kept (EVENT_RETENTION_DAYS)', retryAfterMs: null }, true);
      return;
    }
    try {
      const target = await checkTarget(delivery.url, this.addresses.policy());
      const body = eventBody(delivery.event);
      result = await sendAttempt(target, signedHeaders(delivery.secret, publicEventId(delivery.event.id), body), body);
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      result = { status: null, error: `refused: ${error.message}`, retryAfterMs: null };
    }
    this.record(delivery, at, result, false);
  }

  private record(delivery: ClaimedDelivery, at: string, result: AttemptResult, final: boolean): void {
    const base = { id: delivery.id, leaseToken: delivery.leaseToken, at, status: result.status, error: result.error, delayMs: 0 };
    let outcome: AttemptOutcome;
    let kind: 'delivered' | 'retry' | 'failed' | 'gone';
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      outcome = { ...base, state: 'delivered' };
      kind = 'delivered';
    } else if (result.status === 410) {
      outcome = { ...base, state: 'failed' };
      kind = 'gone';
    } else {
      const delay = final ? null : nextDelayMs(delivery.attemptCount, this.config.WEBHOOK_RETRY_DELAYS, result.retryAfterMs);
      outcome = delay === null ? { ...base, state: 'failed' } : { ...base, state: 'pending', delayMs: delay };
      kind = delay === null ? 'failed' : 'retry';
    }
    this.pending.push({ outcome, webhookId: delivery.webhookId, kind });
    this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Writes the outcomes gathered so far in one statement (and the webhooks' health in a few). */
  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      const batch = this.pending;
      this.pending = [];
      if (batch.length === 0) return;
      try {
        await this.repository.complete(batch.map((b) => b.outcome));
        const ids = (kind: string) => [...new Set(batch.filter((b) => b.kind === kind).map((b) => b.webhookId))];
        const failed = [...new Set([...ids('retry'), ...ids('failed')])];
        const disabled = await this.repository.recordWebhookHealth(ids('delivered'), failed, ids('gone'), this.config.WEBHOOK_DISABLE_AFTER_SECONDS);
        for (const id of disabled) this.logger.warn({ webhookId: id }, `Webhook ${id} disabled`);
        for (const b of batch) this.metrics.webhookAttempted(b.kind);
        const failures = batch.filter((b) => b.kind !== 'delivered');
        if (failures.length > 0) {
          this.logger.log(
            { failed: failures.length, webhookIds: [...new Set(failures.map((b) => b.webhookId))] },
            `${failures.length} webhook attempt(s) not delivered (first: ${failures[0].outcome.status ?? failures[0].outcome.error})`,
          );
        }
      } catch (error) {
        // Not recorded: the leases end and the attempts are made again (at least once).
        this.logger.warn(`Recording ${batch.length} webhook attempt(s) failed: ${(error as Error).message}`);
      }
      this.wake?.();
    });
    return this.flushing;
  }
}
