import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { WebhookWorker } from './webhook-worker.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks (contract 14): the endpoints, and this instance's share of the deliveries. */
@Module({
  imports: [MetricsModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksRepository, WebhookAddressPolicy, WebhookWorker],
  exports: [WebhookAddressPolicy],
})
export class WebhooksModule {}
