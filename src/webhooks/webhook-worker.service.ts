import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Agent } from 'undici';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { nextDelayMs } from '../common/retry-delays';
import { faultCause, faultMessage } from '../database/database-errors';
import { FaultLog } from '../database/fault-log';
import { RequestError } from '../errors/request-error';
import { MetricsService } from '../metrics/metrics.service';
import { urlProblem } from './webhook-address';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { type AttemptResult, AttemptStop, sendAttempt, webhookAgent } from './webhook-sender';
import { signedHeaders } from './webhook-signing';
import { type AttemptOutcome, type AttemptShare, type ClaimedDelivery, WebhooksRepository } from './webhooks.repository';

type AttemptKind = 'delivered' | 'retry' | 'failed' | 'gone' | 'released';

/** Why an attempt was stopped before its answer: the instance is shutting down (drain). */
class AttemptStopped extends Error {
  constructor() {
    super('no answer recorded: the instance making the attempt stopped');
  }
}

/**
 * What drain keeps of the shutdown window, before its end, to stop the attempts still under way and
 * write their release, and for the rest of the shutdown (the database closing) after it.
 */
const RELEASE_MARGIN_MS = 1000;

/**
 * How often the claim loop takes over the fan-out's lease records whose instance died
 * (WEBHOOK_TAKE_OVER), before its claim: not at every claim (an idle claim would plan it every
 * poll for nothing); a lost first attempt is made again within its lease, a second and a poll.
 */
const TAKE_OVER_EVERY_MS = 1000;
/** Events read from the feed per webhook and round; a full page means more are waiting. */
const FAN_OUT_PAGE = 1000;
/**
 * Attempts' outcomes are written together, at most this long after the first of them ended (what
 * waits on it: a contact's next event, held back by per-contact order)...
 */
const FLUSH_DELAY_MS = 100;
/** ...or at once when this many are waiting. */
const FLUSH_BATCH = 256;
/**
 * How long this instance sends nothing more to a webhook whose receiver answered 410, without
 * asking the database: the disable is written with the attempt's outcome (up to FLUSH_DELAY_MS
 * later, and longer when the database is slow), and until then the fan-out and the claim still see
 * the webhook enabled and take its next events. Those are left pending under their lease (the claim
 * skips a disabled webhook; re-enabled, they are made when the lease ends).
 */
const GONE_MEMORY_MS = 10_000;

/**
 * Makes this instance's share of webhook attempts (docs/events.md, "Webhooks"). Every instance runs
 * one; they share the work through the database alone: the feed is taken into deliveries with
 * `FOR NO KEY UPDATE SKIP LOCKED` on the webhooks (first attempts under a lease record per round
 * and webhook, their rows written with their outcomes), and each other attempt is taken with
 * `FOR UPDATE SKIP LOCKED` plus a lease (next_attempt_at pushed ahead), so one instance makes it; one
 * that dies leaves it to another when the lease ends (a webhook's ended leases are taken before its
 * other due deliveries).
 *
 * Fair shares: each webhook's share is WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK attempts in flight here;
 * beyond it a webhook takes only free slots above the reserve, which stays for webhooks under
 * their share, and the fan-out and the claim hand free slots to the least-loaded organizations
 * and webhooks first (WEBHOOK_CLAIM): one webhook's backlog never holds up another's deliveries,
 * and a webhook alone uses every slot but the reserve.
 *
 * Two loops, each with its own wake-ups (their statements run one at a time: oneStatementAtATime): the fan-out loop reads the feed
 * into deliveries (every WEBHOOK_POLL_MS, at once again while pages come back full), starts the
 * attempts of those it took at once (as many as slots are free), and wakes the claim loop when it
 * left some for it; the claim loop takes due deliveries in batches while attempt
 * slots (WEBHOOK_CONCURRENCY) are free, woken by the fan-out, when enough slots free up after a full
 * claim or a quarter of a capped webhook's share does while the claim may find something
 * (claimMayFind), and every WEBHOOK_POLL_MS otherwise (retries, and a contact's next event once the one
 * before it is recorded).
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  /**
   * The loops' failed statements (fan-out, claim, recording outcomes), as the database's fault
   * lines: naming the cause (ECONNREFUSED, 57P01, 55P03, connect timeout, ...) with the driver's
   * message, one line per statement and cause per second with `repeats`, no stack. A fault's 503
   * text ("retry later") said nothing of why.
   */
  private readonly faults = new FaultLog(undefined, 'Webhooks');
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running = false;
  private loopsDone: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  /** Called when the last attempt in flight ends (drain waits for it). */
  private allEnded: (() => void) | undefined;
  private pending: { outcome: AttemptOutcome; webhookId: string; kind: AttemptKind }[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private statementTurn: Promise<void> = Promise.resolve();
  private readonly fanOutSignal = new WakeSignal();
  private readonly claimSignal = new WakeSignal();
  /** Fewest free attempt slots worth a claim statement (unless nothing is in flight). */
  private readonly claimBatch: number;
  /** The last claim took as many as it asked for: more may be due as soon as slots free up. */
  private moreDue = false;
  /** The last claim was held by the reserve: a webhook beyond its share may have more due once a batch of slots above the reserve is free. */
  private moreDueBeyondShare = false;
  /** When the claim loop last took over ended lease records (TAKE_OVER_EVERY_MS). */
  private lastTakeOver = 0;
  /** The fan-out loop waits for attempt slots (slotsSignal): an attempt's end that frees enough of them wakes it. */
  private awaitingSlots = false;
  private readonly slotsSignal = new WakeSignal();
  /** The attempts' HTTP client: an undici Agent whose connector checks every address (webhook-sender.ts). */
  private readonly agent: Agent;
  /** This instance's attempts in flight per webhook (the fan-out and the claim take each webhook's share by them). */
  private readonly inFlightByWebhook = new Map<string, number>();
  /** Attempts in flight to one webhook, at most (WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK, within WEBHOOK_CONCURRENCY). */
  private readonly perWebhookCap: number;
  /** Webhooks that reached the cap here: more of theirs may be due once enough of their attempts end. */
  private readonly capped = new Set<string>();
  /**
   * The last fan-out round had no free slots above the reserve, so a webhook at its share read
   * nothing: a capped webhook's freed share wakes the fan-out only then (otherwise its round read
   * what it could, and a full page goes again at once).
   */
  private fanOutHeldCapped = false;
  /**
   * The claim may find something: its last statement took deliveries or ran while a webhook was
   * held at its share, or the fan-out inserted rows since. A capped webhook's freed share wakes the
   * claim only then (else the next poll looks again).
   */
  private claimMayFind = true;
  /**
   * Free slots that only webhooks under their share may take (`claimBatch`): a webhook goes beyond
   * its share while no other has due work, and another's due work still finds a batch of slots.
   */
  private readonly reserve: number;
  /** Free slots worth a fan-out round while a webhook is beyond its share (roundSlots). */
  private readonly beyondShareRoundSlots: number;
  /** Webhooks with more attempts in flight here than their share. */
  private beyondShare = 0;
  /** Every attempt's stop: drain stops those still under way when the shutdown window ends. */
  private readonly stopAttempts = new AttemptStop();
  private draining: Promise<void> | undefined;
  /** Webhooks whose receiver answered 410 here, until when nothing more is sent to them (GONE_MEMORY_MS). */
  private readonly gone = new Map<string, number>();

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly addresses: WebhookAddressPolicy,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    metrics.measureOldestUndeliveredWith(() => repository.oldestPendingAgeSeconds());
    this.agent = webhookAgent(() => addresses.policy());
    this.claimBatch = Math.min(config.WEBHOOK_CONCURRENCY, Math.max(16, Math.floor(config.WEBHOOK_CONCURRENCY / 4)));
    this.perWebhookCap = Math.min(config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK, config.WEBHOOK_CONCURRENCY);
    this.reserve = this.claimBatch;
    this.beyondShareRoundSlots = Math.min(Math.max(this.claimBatch + this.reserve, Math.floor((config.WEBHOOK_CONCURRENCY * 3) / 4)), config.WEBHOOK_CONCURRENCY);
  }

  onApplicationBootstrap(): void {
    if (!this.config.WEBHOOK_DELIVERY) return;
    this.running = true;
    this.loopsDone = Promise.all([this.fanOutLoop(), this.claimLoop()]);
  }

  /**
   * Stops taking work and gives the attempts in flight until `deadline` (ms since the epoch) to
   * end and have their outcomes written; those still under way then are stopped and released:
   * recorded pending and due at once (the attempt listed as stopped), so that another instance
   * makes them at its next claim instead of after their lease. Called when shutdown begins (main.ts,
   * beside the HTTP drain, with the end of SHUTDOWN_TIMEOUT_MS); a second call gets the first one's
   * promise.
   */
  drain(deadline: number): Promise<void> {
    this.draining ??= this.windDown(deadline - Math.min(RELEASE_MARGIN_MS, this.config.SHUTDOWN_TIMEOUT_MS / 2));
    return this.draining;
  }

  async onModuleDestroy(): Promise<void> {
    await this.drain(Date.now() + this.config.SHUTDOWN_TIMEOUT_MS);
    this.faults.flushAll();
    await this.agent.destroy();
  }

  private async windDown(releaseAt: number): Promise<void> {
    this.running = false;
    this.fanOutSignal.wake();
    this.claimSignal.wake();
    this.slotsSignal.wake();
    await this.loopsDone;
    if (this.inFlight > 0) {
      const ended = new Promise<void>((resolve) => (this.allEnded = resolve));
      let timer: NodeJS.Timeout | undefined;
      const released = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, releaseAt - Date.now()))));
      await Promise.race([ended, released]);
      clearTimeout(timer);
      const underWay = this.stopAttempts.size;
      if (underWay > 0) this.logger.log({ released: underWay }, `Shutting down: ${underWay} webhook attempt(s) still under way stopped and released to the other instances`);
      this.stopAttempts.stop(new AttemptStopped());
      await ended;
    }
    await this.flush();
  }

  /**
   * Feed -> deliveries: at once again while a webhook's page comes back full, else every
   * WEBHOOK_POLL_MS (and when a capped webhook's share frees up after a round that had no free slots
   * above the reserve). A round reads only as many events
   * per webhook as it may take (its share, or the free slots above the reserve; the rest stay in
   * the feed for the next round): they are all taken under
   * the round's lease record, each written once (its row inserted with its outcome), instead of
   * the rest being inserted for the claim, which writes each of them three times (insert, lease,
   * outcome; and costs a statement). With fewer than `roundSlots()` slots free
   * while attempts are under way, a round first waits for attempts to end (at most WEBHOOK_POLL_MS):
   * the round after a full page used to find the slots its predecessor had just filled still taken,
   * and inserted its page for the claim. When fewer than `claimBatch` are free after the whole wait
   * (a backlog: a slow receiver, more events than slots), it reads full pages for the claim, so the deliveries
   * log and the oldest-undelivered metric show the backlog that waits for slots.
   */
  private async fanOutLoop(): Promise<void> {
    while (this.running) {
      if (this.inFlight > 0 && this.freeSlots() < this.roundSlots()) await this.slotsFreed();
      if (!this.running) break;
      try {
        const { full, inserted, taken } = await this.oneStatementAtATime(() => {
          const limit = this.freeSlots();
          // Slots to lease: each webhook reads its share of them; else (a backlog) full pages for the claim.
          const leasing = limit >= this.claimBatch;
          const page = leasing ? Math.min(FAN_OUT_PAGE, limit) : FAN_OUT_PAGE;
          const lease = { owner: this.owner, token: randomUUID(), seconds: this.config.WEBHOOK_LEASE_SECONDS, limit };
          this.fanOutHeldCapped = limit <= this.reserve;
          return this.repository.fanOut(page, lease, this.share(), leasing);
        });
        for (const delivery of taken) this.start(delivery);
        if (inserted > 0) {
          this.claimMayFind = true;
          this.claimSignal.wake();
        }
        if (full) continue;
      } catch (error) {
        this.failed('Webhook fan-out failed', error);
        await this.fanOutSignal.sleep(1000);
        continue;
      }
      await this.fanOutSignal.sleep(this.config.WEBHOOK_POLL_MS);
    }
  }

  /** Deliveries -> attempts: one claim statement per batch of free slots, not one per attempt that ended. */
  private async claimLoop(): Promise<void> {
    while (this.running) {
      if (this.claimWorthIt()) {
        let claimed: ClaimedDelivery[];
        let free = 0;
        try {
          claimed = await this.oneStatementAtATime(() => {
            // Counted again after the fan-out statement this one may have waited for.
            free = this.claimWorthIt() ? this.freeSlots() : 0;
            if (free === 0) return Promise.resolve([]);
            const claim = () => this.repository.claim(this.owner, randomUUID(), this.config.WEBHOOK_LEASE_SECONDS, free, this.share());
            if (Date.now() - this.lastTakeOver < TAKE_OVER_EVERY_MS) return claim();
            this.lastTakeOver = Date.now();
            return this.repository.takeOver().then(claim, (error: unknown) => {
              this.failed('Webhook take-over failed', error);
              return claim();
            });
          });
        } catch (error) {
          this.failed('Webhook claim failed', error);
          await this.claimSignal.sleep(1000);
          continue;
        }
        for (const delivery of claimed) this.start(delivery);
        // Nothing taken while no webhook was held at its share: nothing was due here (a poll looks again).
        if (claimed.length > 0) this.claimMayFind = true;
        else if (free > 0 && this.capped.size === 0) this.claimMayFind = false;
        // A full batch: more may be due; take them as soon as slots free up (an attempt's end wakes this loop).
        this.moreDue = free > 0 && claimed.length === free;
        // Held by the reserve: a webhook beyond its share may have more, taken when a batch above the reserve is free.
        this.moreDueBeyondShare = !this.moreDue && claimed.length > 0 && claimed.length >= free - this.reserve;
        if (this.moreDue) continue;
      }
      await this.claimSignal.sleep(this.config.WEBHOOK_POLL_MS);
    }
  }

  /** One failed statement of the loops, to the rate-limited fault lines; anything but a database fault is named by its error's name (TypeError, ...). */
  private failed(headline: string, error: unknown, note = ''): void {
    const cause = faultCause(error);
    const named = cause === 'unclassified' && error instanceof Error && !(error instanceof RequestError) ? error.name : cause;
    this.faults.report(named, `${faultMessage(error)}${note}`, headline);
  }

  /**
   * Free slots worth a fan-out round: `claimBatch`, and while a webhook is beyond its share here
   * (the likely taker of the round's slots) three quarters of the slots, at least a batch above the
   * reserve: a round costs PostgreSQL a few ms and four round trips whatever it takes, so a webhook
   * that takes every slot takes them in rounds of about half of the slots, not of a batch.
   */
  private roundSlots(): number {
    return this.beyondShare > 0 ? this.beyondShareRoundSlots : this.claimBatch;
  }

  /** Until `roundSlots()` attempt slots are free (an attempt's end wakes it), or WEBHOOK_POLL_MS. */
  private async slotsFreed(): Promise<void> {
    this.awaitingSlots = true;
    try {
      await this.slotsSignal.sleep(this.config.WEBHOOK_POLL_MS);
    } finally {
      this.awaitingSlots = false;
    }
  }

  private claimWorthIt(): boolean {
    const free = this.freeSlots();
    return free >= this.claimBatch || (free > 0 && this.inFlight === 0);
  }

  /**
   * The fan-out and claim statements one after the other, never both under way: each counts the
   * free slots when its turn comes (inside `statement`) and starts what it took before the other's
   * turn, so neither needs slots held for the other. Run side by side, a fan-out found the claim's
   * slots taken and inserted its rows for the claim (a third write each and another statement).
   * A loop waits at most for the other's one statement (tens of ms, against the 200 ms poll).
   */
  private oneStatementAtATime<T>(statement: () => Promise<T>): Promise<T> {
    const turn = this.statementTurn.then(statement);
    this.statementTurn = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** What the fan-out and the claim may take per webhook: read when the statement is sent. */
  private share(): AttemptShare {
    return { cap: this.perWebhookCap, reserve: this.reserve, inFlight: this.inFlightByWebhook };
  }

  private freeSlots(): number {
    return Math.max(0, this.config.WEBHOOK_CONCURRENCY - this.inFlight);
  }

  /** Starts one attempt; it ends (`ended`) once its outcome is gathered for the next flush. */
  private start(delivery: ClaimedDelivery): void {
    const { webhookId } = delivery;
    this.inFlight++;
    const inFlight = (this.inFlightByWebhook.get(webhookId) ?? 0) + 1;
    this.inFlightByWebhook.set(webhookId, inFlight);
    if (inFlight >= this.perWebhookCap) this.capped.add(webhookId);
    if (inFlight === this.perWebhookCap + 1) this.beyondShare++;
    this.attempt(delivery)
      .catch((error: unknown) => this.crashed(error))
      .finally(() => this.ended(webhookId));
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const at = new Date().toISOString();
    if (!delivery.event) {
      this.record(delivery, at, { status: null, error: 'the event is no longer kept (EVENT_RETENTION_DAYS)', retryAfterMs: null }, true);
      return;
    }
    const goneUntil = this.gone.get(delivery.webhookId);
    if (goneUntil !== undefined) {
      if (Date.now() < goneUntil) return; // answered 410 here: disabled, or about to be
      this.gone.delete(delivery.webhookId);
    }
    // The URL's syntax here; its host's addresses in the connector (webhook-sender.ts), for every connection.
    const problem = urlProblem(delivery.url, this.config.WEBHOOK_ALLOW_INSECURE);
    if (problem) {
      this.record(delivery, at, { status: null, error: `refused: ${problem}`, retryAfterMs: null }, false);
      return;
    }
    const { id, body } = delivery.event;
    const result = await sendAttempt(new URL(delivery.url), signedHeaders(delivery.secret, id, body), body, { agent: this.agent, stop: this.stopAttempts });
    if (result.stopped) this.release(delivery, at, result);
    else this.record(delivery, at, result, false);
  }

  private crashed(error: unknown): void {
    this.logger.error(`Webhook attempt crashed: ${(error as Error).message}`);
  }

  private ended(webhookId: string): void {
    this.inFlight--;
    const left = (this.inFlightByWebhook.get(webhookId) ?? 1) - 1;
    if (left === 0) this.inFlightByWebhook.delete(webhookId);
    else this.inFlightByWebhook.set(webhookId, left);
    if (left === this.perWebhookCap) this.beyondShare--;
    // A webhook held at its cap: claim again once a quarter of its share is free (not at every attempt's end).
    if (this.capped.has(webhookId) && left <= this.perWebhookCap - Math.max(1, Math.floor(this.perWebhookCap / 4))) {
      this.capped.delete(webhookId);
      if (this.claimMayFind) this.claimSignal.wake();
      if (this.fanOutHeldCapped) this.fanOutSignal.wake();
    }
    if (this.moreDue && (this.freeSlots() === this.claimBatch || this.inFlight === 0)) this.claimSignal.wake();
    if (this.moreDueBeyondShare && this.freeSlots() === Math.min(this.claimBatch + this.reserve, this.config.WEBHOOK_CONCURRENCY)) this.claimSignal.wake();
    if (this.awaitingSlots && this.freeSlots() >= this.roundSlots()) this.slotsSignal.wake();
    if (this.inFlight === 0 && this.allEnded) {
      this.allEnded();
      this.allEnded = undefined;
    }
  }

  private record(delivery: ClaimedDelivery, at: string, result: AttemptResult, final: boolean): void {
    const { webhookId, position, seq, leaseToken, fresh } = delivery;
    const { status, error } = result;
    let state: AttemptOutcome['state'];
    let delayMs = 0;
    let kind: AttemptKind;
    if (status !== null && status >= 200 && status < 300) {
      state = 'delivered';
      kind = 'delivered';
    } else if (status === 410) {
      state = 'failed';
      kind = 'gone';
      this.gone.set(webhookId, Date.now() + GONE_MEMORY_MS);
    } else {
      const delay = final ? null : nextDelayMs(delivery.attemptCount, this.config.WEBHOOK_RETRY_DELAYS, result.retryAfterMs);
      state = delay === null ? 'failed' : 'pending';
      delayMs = delay ?? 0;
      kind = delay === null ? 'failed' : 'retry';
    }
    this.pending.push({ outcome: { webhookId, position, seq, leaseToken, fresh, at, status, error, state, delayMs }, webhookId, kind });
    if (this.pending.length >= FLUSH_BATCH) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /**
   * An attempt stopped by the shutdown: recorded pending and due now (its lease cleared with it),
   * so another instance makes it again at its next claim. Neither a delivery nor a failure of the
   * receiver: not counted in the metrics nor in the webhook's failing streak.
   */
  private release(delivery: ClaimedDelivery, at: string, result: AttemptResult): void {
    const { webhookId, position, seq, leaseToken, fresh } = delivery;
    this.pending.push({ outcome: { webhookId, position, seq, leaseToken, fresh, at, status: null, error: result.error, state: 'pending', delayMs: 0 }, webhookId, kind: 'released' });
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
        const failures = batch.filter((b) => b.kind !== 'delivered' && b.kind !== 'released');
        const counts = new Map<Exclude<AttemptKind, 'released'>, number>();
        for (const b of batch) if (b.kind !== 'released') counts.set(b.kind, (counts.get(b.kind) ?? 0) + 1);
        for (const [kind, n] of counts) this.metrics.webhookAttempted(kind, n);
        if (failures.length > 0) {
          const ids = (kinds: AttemptKind[]) => [...new Set(failures.filter((b) => kinds.includes(b.kind)).map((b) => b.webhookId))];
          const disabled = await this.repository.recordWebhookHealth(ids(['retry', 'failed']), ids(['gone']), this.config.WEBHOOK_DISABLE_AFTER_SECONDS);
          for (const id of disabled) this.logger.warn({ webhookId: id }, `Webhook ${id} disabled`);
          this.logger.log(
            { failed: failures.length, webhookIds: [...new Set(failures.map((b) => b.webhookId))] },
            `${failures.length} webhook attempt(s) not delivered (first: ${failures[0].outcome.status ?? failures[0].outcome.error})`,
          );
        }
      } catch (error) {
        // Not recorded: the leases end and the attempts are made again (at least once).
        this.failed('Recording webhook attempts failed', error, ` (${batch.length} attempt(s) not recorded: made again when their leases end)`);
      }
      // A contact's next event, held back while this one was pending, is due now: the next claim
      // (woken by the fan-out or by free slots, else within WEBHOOK_POLL_MS) takes it. Not woken
      // here: a claim after every flush finds nothing most of the time, and costs a statement.
    });
    return this.flushing;
  }
}

/** A loop's wait: `sleep(ms)` ends after `ms` or at `wake()`; a wake while the loop was busy is kept for its next sleep. */
class WakeSignal {
  private woken = false;
  private resolve: (() => void) | undefined;

  wake(): void {
    if (this.resolve) this.resolve();
    else this.woken = true;
  }

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const done = () => {
        clearTimeout(timer);
        if (this.resolve === done) this.resolve = undefined;
        resolve();
      };
      timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }
}
