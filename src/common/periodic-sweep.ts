import type { LoggerService } from '@nestjs/common';

/** The usual delay of the first sweep after boot: soon, but after the start's own load has passed. */
export const FIRST_SWEEP_AFTER_MS = 60 * 1000;

export interface PeriodicSweepOptions<T> {
  /** Ms between sweeps, counted from start(). */
  everyMs: number;
  /**
   * Ms from start() to an extra first sweep, so that an instance restarted more often than
   * `everyMs` still sweeps. Required: a sweep that only ran every `everyMs` would never run on such
   * an instance (FIRST_SWEEP_AFTER_MS unless there is a reason for another delay).
   */
  firstAfterMs: number;
  logger: Pick<LoggerService, 'warn'>;
  /** Start of the one-line warning a failed sweep logs, e.g. "Sweeping expired events failed". */
  failureMessage: string;
  /** What a failed sweep resolves to. */
  failedResult: T;
  /** The work of one sweep. */
  sweep: () => Promise<T>;
}

/**
 * A background sweep on a timer, for a provider's onApplicationBootstrap/onModuleDestroy: once
 * `firstAfterMs` after start() and then every `everyMs`. The timers are unref()ed so they never keep the process alive. A sweep that fails (database down)
 * logs one warning line, without a stack, and resolves to `failedResult`: the next tick tries
 * again. A sweep asked for while one runs joins it instead of starting a second one.
 */
export class PeriodicSweep<T> {
  private firstTimer?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;
  private stopped = false;

  constructor(private readonly options: PeriodicSweepOptions<T>) {}

  /** True once stop() was called: a sweep working in steps ends after its current step. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    const { everyMs, firstAfterMs } = this.options;
    this.firstTimer = setTimeout(() => void this.run(), firstAfterMs).unref();
    this.timer = setInterval(() => void this.run(), everyMs).unref();
  }

  /** One sweep now (or the one in flight); `sweep` replaces the configured work for this call only. */
  run(sweep: () => Promise<T> = this.options.sweep): Promise<T> {
    this.running ??= sweep()
      .catch((error: unknown) => {
        this.options.logger.warn(`${this.options.failureMessage}: ${String(error)}`);
        return this.options.failedResult;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops the timers and waits for a sweep in flight, so that it ends before the database closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.firstTimer);
    clearInterval(this.timer);
    await this.running;
  }
}
