import { AsyncResource } from 'node:async_hooks';
import { Logger } from '@nestjs/common';

/** At most one line per cause in this window; the repeats in between are counted, not logged. */
export const FAULT_LOG_WINDOW_MS = 1000;

interface CauseState {
  /** What failed, the start of the line (e.g. "Database unavailable", "Webhook claim failed"). */
  headline: string;
  cause: string;
  /** When this cause's last line was written. */
  loggedAt: number;
  /** Occurrences since that line, not logged yet. */
  repeats: number;
  lastMessage: string;
  timer?: NodeJS.Timeout;
}

/**
 * Database faults during an outage, as an operator can read them: one line per cause (ECONNREFUSED,
 * 57P01, connect timeout, ...) per second, with the driver's message (no stack: these faults are
 * expected, and each request's own line already says 503) and `repeats`: each line stands for
 * one occurrence plus `repeats` more of the same cause since its previous line, so the lines of
 * a cause add up (1 + repeats each) to every occurrence. A 10-second outage under load is then about ten lines per
 * cause, not one stack per failed request. A line starts with its headline ("Database unavailable"
 * unless the reporter names what failed, as the webhook worker does); headlines are counted apart.
 */
export class FaultLog {
  private readonly logger: Logger;
  /** By headline and cause. */
  private readonly causes = new Map<string, CauseState>();
  /**
   * The context this log was made in (start-up, no request). A cause line stands for occurrences
   * in many requests (an idle connection lost, in none), so it is written here and not in the
   * context of whichever request reported it: nestjs-pino would give it that request's id, and the
   * logger's mixin its trace_id (an idle connection's loss went to the request that had opened the
   * connection, long answered), and a search by request id would find a fault line beside the request's own line.
   */
  private readonly outsideRequests = new AsyncResource('FaultLog');

  /** `context`: the logger's (Nest's context: the line's `context` field). */
  constructor(
    private readonly windowMs = FAULT_LOG_WINDOW_MS,
    context = 'Database',
  ) {
    this.logger = new Logger(context);
  }

  /** One occurrence of `cause` (faultCause), with the driver's `message` (faultMessage); `headline`: what failed. */
  report(cause: string, message: string, headline = 'Database unavailable'): void {
    const now = Date.now();
    const key = `${headline}\u0000${cause}`;
    const state = this.causes.get(key);
    if (!state || (now - state.loggedAt >= this.windowMs && state.repeats === 0)) {
      this.causes.set(key, { headline, cause, loggedAt: now, repeats: 0, lastMessage: message });
      this.write(headline, cause, message, 0);
      return;
    }
    state.repeats++;
    state.lastMessage = message;
    // The repeats are reported when the window closes, so a burst is never silent for long.
    state.timer ??= setTimeout(() => this.flush(key), Math.max(0, state.loggedAt + this.windowMs - now)).unref();
  }

  /**
   * Writes what is still counted (at shutdown, so no repeat goes unreported). Such a line may come
   * sooner than a second after its cause's previous one: it says so with `atShutdown: true`.
   */
  flushAll(): void {
    for (const key of this.causes.keys()) this.flush(key, true);
  }

  private flush(key: string, atShutdown = false): void {
    const state = this.causes.get(key);
    if (!state) return;
    clearTimeout(state.timer);
    state.timer = undefined;
    if (state.repeats === 0) return;
    // This line stands for the last occurrence and the ones before it since the previous line.
    this.write(state.headline, state.cause, state.lastMessage, state.repeats - 1, atShutdown);
    state.loggedAt = Date.now();
    state.repeats = 0;
  }

  private write(headline: string, cause: string, message: string, repeats: number, atShutdown = false): void {
    this.outsideRequests.runInAsyncScope(() =>
      this.logger.warn({ cause, repeats, ...(atShutdown ? { atShutdown } : {}) }, `${headline} (${cause}): ${message}${repeats ? ` (and ${repeats} more since the previous line)` : ''}`),
    );
  }
}
