import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';

/** Liveness and readiness. Warm-up lives with what it warms (database layer, contacts pipeline). */
@Module({
  controllers: [HealthController],
})
export class HealthModule {}
