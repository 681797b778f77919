import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { requestIdOf } from '../common/request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { invalidRequest } from '../errors/request-error';
import { NoBody } from '../http-body/no-body';
import { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook-bodies.dto';
import {
  WebhookCreatedModel,
  WebhookDeletedModel,
  WebhookDeliveriesPageModel,
  WebhookResponseModel,
  WebhookSecretModel,
  WebhooksResponseModel,
} from './dto/webhook-responses.dto';
import { publicEventId } from '../events/event-types';
import { descriptionOf, enabledOf, typesOf, urlOf } from './webhook-input';
import { WEBHOOK_EVENT_TYPES } from './webhook-event-types';
import type { WebhookChange } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const bodyErrors =
  'INVALID_REQUEST: wrong Content-Type, malformed JSON, an unknown key, a value that does not fit (the message names it), a url that is not https or whose host resolves to a non-public address';
const notFound = 'WEBHOOK_NOT_FOUND: no webhook with this id in this organization';
const tooLarge = 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)';
const adminOnly = 'INSUFFICIENT_SCOPE: the key lacks the `admin` scope';

@ApiTags('Webhooks')
@ApiKeyAuth()
@Controller('api/v2/webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @RequireScope('admin')
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    description: 'It receives the events committed after it was made, signed with the returned secret (Standard Webhooks). At most 20 per organization.',
  })
  @ApiBody({ type: CreateWebhookDto })
  @ApiAnswer(201, 'The new webhook and its signing secret (shown only here)', WebhookCreatedModel)
  @ApiRequestError(400, bodyErrors)
  @ApiRequestError(403, adminOnly)
  @ApiRequestError(409, 'WEBHOOK_LIMIT_REACHED: the organization has 20 webhooks')
  @ApiRequestError(413, tooLarge)
  async create(@Caller() caller: CallerIdentity, @Req() req: Request, @Body() body: CreateWebhookDto) {
    if (body.url === undefined) throw invalidRequest('url is required');
    const url = urlOf(body.url, this.config.WEBHOOK_ALLOW_INSECURE);
    const types = body.types === undefined ? [...WEBHOOK_EVENT_TYPES] : typesOf(body.types);
    const description = body.description === undefined ? null : descriptionOf(body.description);
    const { webhook, secret } = await this.webhooks.create(caller.organizationId, { url, types, description });
    return { request_id: requestIdOf(req), webhook, secret };
  }

  @Get()
  @RequireScope('admin')
  @ApiOperation({ operationId: 'listWebhooks', summary: 'The organization’s webhooks (never their secrets)' })
  @ApiAnswer(200, 'The webhooks, oldest first', WebhooksResponseModel)
  @ApiRequestError(403, adminOnly)
  async findAll(@Caller() caller: CallerIdentity, @Req() req: Request) {
    return { request_id: requestIdOf(req), webhooks: await this.webhooks.findAll(caller.organizationId) };
  }

  @Get(':id')
  @RequireScope('admin')
  @ApiOperation({ operationId: 'getWebhook', summary: 'One webhook (never its secret)' })
  @ApiParam({ name: 'id', type: String })
  @ApiAnswer(200, 'The webhook', WebhookResponseModel)
  @ApiRequestError(400, 'INVALID_REQUEST: broken percent-encoding in the path')
  @ApiRequestError(403, adminOnly)
  @ApiRequestError(404, notFound)
  async findOne(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string) {
    return { request_id: requestIdOf(req), webhook: await this.webhooks.find(caller.organizationId, id) };
  }

  @Patch(':id')
  @HttpCode(200)
  @RequireScope('admin')
  @ApiOperation({ operationId: 'updateWebhook', summary: 'Change a webhook’s url or types, or disable or enable it' })
  @ApiParam({ name: 'id', type: String })
  @ApiBody({ type: UpdateWebhookDto })
  @ApiAnswer(200, 'The webhook after the change', WebhookResponseModel)
  @ApiRequestError(400, `${bodyErrors}; no known key sent; or broken percent-encoding in the path`)
  @ApiRequestError(403, adminOnly)
  @ApiRequestError(404, notFound)
  @ApiRequestError(413, tooLarge)
  async update(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
    if (body.url === undefined && body.types === undefined && body.enabled === undefined) throw invalidRequest('Send at least one of url, types, enabled');
    const change: WebhookChange = {};
    if (body.url !== undefined) change.url = urlOf(body.url, this.config.WEBHOOK_ALLOW_INSECURE);
    if (body.types !== undefined) change.types = typesOf(body.types);
    if (body.enabled !== undefined) change.enabled = enabledOf(body.enabled);
    return { request_id: requestIdOf(req), webhook: await this.webhooks.update(caller.organizationId, id, change) };
  }

  @Delete(':id')
  @HttpCode(200)
  @RequireScope('admin')
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook: its deliveries stop and its log goes' })
  @ApiParam({ name: 'id', type: String })
  @ApiAnswer(200, 'Deleted', WebhookDeletedModel)
  @ApiRequestError(400, 'INVALID_REQUEST: broken percent-encoding in the path')
  @ApiRequestError(403, adminOnly)
  @ApiRequestError(404, notFound)
  async delete(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string) {
    await this.webhooks.delete(caller.organizationId, id);
    return { request_id: requestIdOf(req), id, status: 'deleted' as const };
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @RequireScope('admin')
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Replace a webhook’s signing secret',
    description: 'The new secret is shown only here; attempts from now on are signed with it alone. Takes no body: none, an empty body or `{}`.',
  })
  @ApiParam({ name: 'id', type: String })
  @ApiAnswer(200, 'The new secret', WebhookSecretModel)
  @ApiRequestError(400, 'INVALID_REQUEST: a body other than none, empty or `{}`, or broken percent-encoding in the path')
  @ApiRequestError(403, adminOnly)
  @ApiRequestError(404, notFound)
  @ApiRequestError(413, tooLarge)
  async rotateSecret(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string, @NoBody() _body: undefined) {
    return { request_id: requestIdOf(req), secret: await this.webhooks.rotateSecret(caller.organizationId, id) };
  }

  @Get(':id/deliveries')
  @RequireScope('admin')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'A webhook’s deliveries and their attempts, newest event first' })
  @ApiParam({ name: 'id', type: String })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } })
  @ApiQuery({ name: 'cursor', required: false, type: String, description: 'The `nextCursor` of the previous page' })
  @ApiAnswer(200, 'One page of deliveries', WebhookDeliveriesPageModel)
  @ApiRequestError(400, 'INVALID_REQUEST: limit not an integer 1–1000, a malformed cursor, or broken percent-encoding in the path')
  @ApiRequestError(403, adminOnly)
  @ApiRequestError(404, notFound)
  async deliveries(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string, @Query() query: Record<string, unknown>) {
    const unknown = Object.keys(query).find((key) => key !== 'limit' && key !== 'cursor');
    if (unknown !== undefined) throw invalidRequest(`Unknown query parameter ${JSON.stringify(unknown)}`);
    const limit = limitOf(query.limit);
    const before = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await this.webhooks.deliveries(caller.organizationId, id, before, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      request_id: requestIdOf(req),
      deliveries: page.map((row) => ({
        eventId: publicEventId(row.eventId),
        type: row.type,
        state: row.state,
        attempts: row.attempts,
        nextAttemptAt: row.state === 'pending' && row.nextAttemptAt ? row.nextAttemptAt.toISOString() : null,
      })),
      nextCursor: rows.length > limit ? Buffer.from(`${last.position}.${last.seq}`).toString('base64url') : null,
    };
  }
}

function limitOf(value: unknown): number {
  if (value === undefined) return 100;
  if (typeof value !== 'string' || !/^[0-9]{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 1000) {
    throw invalidRequest('limit must be an integer from 1 to 1000');
  }
  return Number(value);
}

function decodeCursor(value: unknown): { position: bigint; seq: bigint } {
  const text = typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value) ? Buffer.from(value, 'base64url').toString('latin1') : '';
  const match = /^(\d{1,19})\.(\d{1,19})$/.exec(text);
  if (!match) throw invalidRequest('cursor is not a cursor this endpoint returned');
  return { position: BigInt(match[1]), seq: BigInt(match[2]) };
}
