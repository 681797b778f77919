import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { StoredResponsesRepository } from './stored-responses.repository';

/** Expired answers are never served (the read filters by age); the sweep only reclaims space. */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired stored answers periodically. The timer is unref()ed so it never keeps the
 * process alive; every instance sweeps, which is harmless (the DELETE is idempotent).
 */
@Injectable()
export class StoredResponsesSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('StoredResponses');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly responses: StoredResponsesRepository) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** One sweep; a failure (database down) is logged and the next tick tries again. */
  sweep(): Promise<void> {
    this.running ??= this.responses
      .deleteExpired()
      .then((count) => {
        if (count > 0) this.logger.log(`Deleted ${count} expired stored responses`);
      })
      .catch((error: unknown) => this.logger.warn(`Sweeping expired stored responses failed: ${String(error)}`))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops the timer and lets a sweep in flight finish before the database closes. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
