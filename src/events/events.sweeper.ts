import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { FIRST_SWEEP_AFTER_MS, PeriodicSweep } from '../common/periodic-sweep';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { EventsRepository } from './events.repository';

export const EVENT_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** Transactions' events deleted per statement: a sweep never holds one long transaction. */
export const EVENT_SWEEP_CHUNK = 500;

/**
 * Deletes events older than EVENT_RETENTION_DAYS (docs/events.md, "Retention") one minute after
 * boot and then every 10 minutes, chunk after chunk until none is left. Every instance sweeps,
 * which is harmless (chunks skip rows another sweeper holds).
 */
@Injectable()
export class EventsSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Events');
  private readonly periodic = new PeriodicSweep<number>({
    everyMs: EVENT_SWEEP_INTERVAL_MS,
    firstAfterMs: FIRST_SWEEP_AFTER_MS,
    logger: this.logger,
    failureMessage: 'Sweeping expired events failed',
    failedResult: 0,
    sweep: () => this.sweepAll(EVENT_SWEEP_CHUNK),
  });

  constructor(
    private readonly events: EventsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  /** One sweep; returns how many events it deleted. A failure (database down) is logged and the next tick tries again. */
  sweep(chunk = EVENT_SWEEP_CHUNK): Promise<number> {
    return this.periodic.run(() => this.sweepAll(chunk));
  }

  private async sweepAll(chunk: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const gone = await this.events.deleteExpired(this.config.EVENT_RETENTION_DAYS, chunk);
      deleted += gone.events;
      if (gone.commits < chunk || this.periodic.stopping) break;
    }
    if (deleted > 0) this.logger.log(`Deleted ${deleted} events past EVENT_RETENTION_DAYS`);
    return deleted;
  }

  /** Stops the timers and lets a sweep in flight finish (after its current chunk) before the database closes. */
  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }
}
