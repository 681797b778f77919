import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions, ApiSchema } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { KnownKeysOnly } from '../../validation/known-keys.decorator';
import { WEBHOOK_EVENT_TYPES } from '../webhook-event-types';

/*
 * Request bodies of POST and PATCH /api/v2/webhooks. The DTOs declare the keys (an unknown key is
 * 400 INVALID_REQUEST); the values are checked by webhook-input.ts.
 */

const urlDoc = {
  type: String,
  maxLength: 2048,
  example: 'https://hooks.example.com/contact-sync',
  description: 'https only, with a host that resolves to public addresses (checked again before every attempt)',
} as const;

const typesDoc: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  uniqueItems: true,
  minItems: 1,
  description: 'The event types to deliver (at least one, each once). Absent on create: every type.',
};

@ApiSchema({ name: 'CreateWebhookInput' })
@KnownKeysOnly()
export class CreateWebhookDto {
  @ApiProperty(urlDoc)
  @Allow()
  url: unknown = undefined;

  @ApiPropertyOptional(typesDoc)
  @Allow()
  types: unknown = undefined;

  @ApiPropertyOptional({ type: String, maxLength: 255, description: 'Free text for people' })
  @Allow()
  description: unknown = undefined;
}

@ApiSchema({ name: 'UpdateWebhookInput', description: 'At least one of the keys; keys not sent are kept.' })
@KnownKeysOnly()
export class UpdateWebhookDto {
  @ApiPropertyOptional(urlDoc)
  @Allow()
  url: unknown = undefined;

  @ApiPropertyOptional(typesDoc)
  @Allow()
  types: unknown = undefined;

  @ApiPropertyOptional({ type: Boolean, description: 'false stops deliveries; true resumes them (also after the service disabled it)' })
  @Allow()
  enabled: unknown = undefined;
}
