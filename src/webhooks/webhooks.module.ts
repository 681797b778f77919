import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { MetricsModule } from '../metrics/metrics.module';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { WebhookWorker } from './webhook-worker.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';
import { WEBHOOKS_API_STATEMENTS, WEBHOOKS_STATEMENTS } from './webhooks.statements';

/** Webhooks (contract 14): the endpoints, and this instance's share of the deliveries. */
@Module({
  imports: [MetricsModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksRepository, WebhookAddressPolicy, WebhookWorker],
  exports: [WebhookAddressPolicy],
})
export class WebhooksModule {
  constructor(statements: StatementRegistry) {
    statements.register([...WEBHOOKS_STATEMENTS, ...WEBHOOKS_API_STATEMENTS]);
  }
}
