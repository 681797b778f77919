import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';
import type { WebhookView } from '../webhooks.repository';
import { WEBHOOK_EVENT_TYPES } from '../webhook-event-types';

@ApiSchema({ name: 'Webhook' })
export class WebhookViewModel implements WebhookView {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: [String], enum: WEBHOOK_EVENT_TYPES as unknown as string[] }) types!: string[];
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ description: 'false: no deliveries (set by PATCH, a 410 answer, or 24 hours without a success)' }) enabled!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

/** POST /api/v2/webhooks (201). */
@ApiSchema({ name: 'WebhookCreatedResponse' })
export class WebhookCreatedModel {
  @ApiProperty(requestIdProperty) request_id!: string;
  @ApiProperty({ type: WebhookViewModel }) webhook!: WebhookViewModel;
  @ApiProperty({ description: 'The signing secret, `whsec_` + base64: shown only here (and by rotate-secret)', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret!: string;
}

/** GET and PATCH /api/v2/webhooks/{id}. */
@ApiSchema({ name: 'WebhookResponse' })
export class WebhookResponseModel {
  @ApiProperty(requestIdProperty) request_id!: string;
  @ApiProperty({ type: WebhookViewModel }) webhook!: WebhookViewModel;
}

/** GET /api/v2/webhooks. */
@ApiSchema({ name: 'WebhooksResponse' })
export class WebhooksResponseModel {
  @ApiProperty(requestIdProperty) request_id!: string;
  @ApiProperty({ type: [WebhookViewModel], description: 'Oldest first' }) webhooks!: WebhookViewModel[];
}

/** DELETE /api/v2/webhooks/{id}. */
@ApiSchema({ name: 'WebhookDeletedResponse' })
export class WebhookDeletedModel {
  @ApiProperty(requestIdProperty) request_id!: string;
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['deleted'] }) status!: 'deleted';
}

/** POST /api/v2/webhooks/{id}/rotate-secret. */
@ApiSchema({ name: 'WebhookSecretResponse' })
export class WebhookSecretModel {
  @ApiProperty(requestIdProperty) request_id!: string;
  @ApiProperty({ description: 'The new signing secret (the old one signs nothing after this)' }) secret!: string;
}

@ApiSchema({ name: 'WebhookAttempt' })
export class WebhookAttemptModel {
  @ApiProperty({ type: String, format: 'date-time', description: 'When the attempt began' }) at!: string;
  @ApiProperty({ type: Number, nullable: true, description: 'The receiver’s HTTP status; null when no answer came' }) status!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why no answer came (timeout, connection refused, address refused...)' })
  error!: string | null;
}

@ApiSchema({ name: 'WebhookDelivery' })
export class WebhookDeliveryModel {
  @ApiProperty({ description: 'The event’s id (`evt_...`), also the `webhook-id` header' }) eventId!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES as unknown as string[] }) type!: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) state!: 'pending' | 'delivered' | 'failed';
  @ApiProperty({ type: [WebhookAttemptModel], description: 'Oldest first' }) attempts!: WebhookAttemptModel[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the next attempt is due; null once delivered or failed' })
  nextAttemptAt!: string | null;
}

/** GET /api/v2/webhooks/{id}/deliveries. */
@ApiSchema({ name: 'WebhookDeliveriesPage' })
export class WebhookDeliveriesPageModel {
  @ApiProperty(requestIdProperty) request_id!: string;
  @ApiProperty({ type: [WebhookDeliveryModel], description: 'Newest event first' }) deliveries!: WebhookDeliveryModel[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next (older) page; null on the last page' })
  nextCursor!: string | null;
}
