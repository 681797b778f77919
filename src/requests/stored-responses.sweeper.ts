import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { FIRST_SWEEP_AFTER_MS, PeriodicSweep } from '../common/periodic-sweep';
import { StoredResponsesRepository } from './stored-responses.repository';

/** Expired answers are never served (the read filters by age); the sweep only reclaims space. */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired stored answers one minute after boot (so instances restarted more often than the
 * interval still sweep) and then every interval. Every instance sweeps, which is harmless (the
 * DELETE is idempotent).
 */
@Injectable()
export class StoredResponsesSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('StoredResponses');
  private readonly periodic = new PeriodicSweep<void>({
    everyMs: SWEEP_INTERVAL_MS,
    firstAfterMs: FIRST_SWEEP_AFTER_MS,
    logger: this.logger,
    failureMessage: 'Sweeping expired stored responses failed',
    failedResult: undefined,
    sweep: async () => {
      const count = await this.responses.deleteExpired();
      if (count > 0) this.logger.log(`Deleted ${count} expired stored responses`);
    },
  });

  constructor(private readonly responses: StoredResponsesRepository) {}

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  /** One sweep; a failure (database down) is logged and the next tick tries again. */
  sweep(): Promise<void> {
    return this.periodic.run();
  }

  /** Stops the timers and lets a sweep in flight finish before the database closes. */
  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }
}
