import type { Logger } from '@nestjs/common';

export interface PeriodicSweepOptions<T> {
  /** Ms between sweeps, counted from start(). */
  everyMs: number;
  /** Ms from start() to an extra first sweep (instances restarted more often than `everyMs` still sweep); none when absent. */
  firstAfterMs?: number;
  logger: Logger;
  /** Start of the one-line warning a failed sweep logs, e.g. "Sweeping expired events failed". */
  failureMessage: string;
  /** What a failed sweep resolves to. */
  failedResult: T;
  /** The work of one sweep. */
  sweep: () => Promise<T>;
}

/**
 * A background sweep on a timer, for a provider's onApplicationBootstrap/onModuleDestroy. The
 * timers are unref()ed so they never keep the process alive. A sweep that fails (database down)
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
    if (firstAfterMs !== undefined) this.firstTimer = setTimeout(() => void this.run(), firstAfterMs).unref();
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
