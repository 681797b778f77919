import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { MetricsModule } from '../metrics/metrics.module';
import { FailoverRateLimitStore } from './failover.store';
import { IpRateLimitMiddleware } from './ip-rate-limit.middleware';
import { MemorySlidingWindowStore } from './memory-sliding-window.store';
import { OrgRateLimitGuard } from './org-rate-limit.guard';
import { RedisSlidingWindowStore } from './redis-sliding-window.store';
import { RATE_LIMIT_STORE, type RateLimitStore } from './sliding-window';

/** The stores of one app instance, and their shutdown. */
@Injectable()
export class RateLimitStores implements OnApplicationShutdown {
  readonly memory = new MemorySlidingWindowStore();
  readonly redis?: Redis;
  readonly store: RateLimitStore;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    // Old entries leave on every access; the sweep drops keys nobody asks about any more.
    this.memory.startSweeping(config.RATE_WINDOW_SECONDS * 1000);
    if (!config.REDIS_URL) {
      this.store = this.memory;
      return;
    }
    const logger = new Logger('RateLimit');
    this.redis = new Redis(config.REDIS_URL, {
      // Fail fast instead of queueing while disconnected: the in-process store answers meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: config.REDIS_TIMEOUT_MS,
      connectTimeout: Math.max(1000, config.REDIS_TIMEOUT_MS),
      // Keep reconnecting forever (the app starts and serves while Redis is down).
      retryStrategy: (times) => Math.min(times * 100, 1000),
      // At shutdown a socket that does not close at once is destroyed (default 2 s keeps the process up).
      disconnectTimeout: 200,
    });
    // Faults are logged by the failover store, once per episode; without a listener ioredis would print each one.
    this.redis.on('error', () => undefined);
    this.store = new FailoverRateLimitStore(new RedisSlidingWindowStore(this.redis, config.REDIS_KEY_PREFIX), this.memory, logger, {
      timeoutMs: config.REDIS_TIMEOUT_MS,
    });
  }

  onApplicationShutdown(): void {
    this.memory.stopSweeping();
    this.redis?.disconnect();
  }
}

@Module({
  imports: [MetricsModule],
  providers: [
    RateLimitStores,
    { provide: RATE_LIMIT_STORE, useFactory: (stores: RateLimitStores) => stores.store, inject: [RateLimitStores] },
    OrgRateLimitGuard,
    IpRateLimitMiddleware,
  ],
  exports: [RATE_LIMIT_STORE, OrgRateLimitGuard, IpRateLimitMiddleware],
})
export class RateLimitModule {}
