import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { requestIdOf } from '../common/request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { RequestError, invalidRequest } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { SuppressionReason } from '../generated/prisma/enums';
import { SuppressBodyModel, SuppressResponseModel, SuppressionsPageModel, UnsuppressedModel } from './dto/suppressions.dto';
import { decodeSuppressionCursor, encodeSuppressionCursor } from './suppression-cursor';
import { SuppressionsService, type SuppressInput } from './suppressions.service';

/** Per-row batch bodies hold at most this many entries (docs/api.md, "Suppressions"). */
export const SUPPRESS_BATCH_LIMIT = 50;
const REASONS: readonly string[] = Object.values(SuppressionReason);
const LIST_PARAMETERS = new Set(['limit', 'cursor', 'reason']);

/**
 * Suppressions over the API (docs/api.md, "Suppressions"): suppress in batches, list, lift. The
 * rules live in SuppressionsService, shared with the admin command line.
 */
@ApiTags('Suppressions')
@ApiKeyAuth()
@Controller('api/v2/suppressions')
export class SuppressionsController {
  constructor(private readonly service: SuppressionsService) {}

  @Post()
  @HttpCode(200)
  @RequireScope('contacts:write')
  @ApiOperation({
    operationId: 'suppress',
    summary: 'Suppress up to 50 addresses',
    description:
      'A contact need not exist. An address already suppressed (also an erased one) keeps its reason: `unchanged` with the kept ' +
      'reason. Per-row codes INVALID_EMAIL and DUPLICATE_IN_REQUEST; all successful rows in one transaction.',
  })
  @ApiBody({ type: SuppressBodyModel })
  @ApiAnswer(200, 'One result per row, in input order', SuppressResponseModel)
  @ApiRequestError(403, 'INSUFFICIENT_SCOPE: the key lacks `contacts:write`')
  @ApiRequestError(
    400,
    'INVALID_REQUEST (wrong Content-Type, malformed JSON, wrong shape: `suppressions` missing, not an array or empty, an entry not an ' +
      'object, an unknown key, a reason other than bounced, complained or unsubscribed) or BATCH_LIMIT_EXCEEDED (more than 50 entries)',
  )
  @ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)')
  async suppress(@Caller() caller: CallerIdentity, @Req() req: Request, @Body() body: unknown) {
    const results = await this.service.suppress(caller.organizationId, suppressInputsOf(body), requestIdOf(req));
    return { request_id: requestIdOf(req), results };
  }

  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({
    operationId: 'listSuppressions',
    summary: 'The organization’s suppressions, by email',
    description:
      'Ordered by the normalized email in byte order; keyset pages (`nextCursor`, null on the last page). Erased (hashed) suppressions ' +
      'are not listed: their address is stored nowhere.',
  })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } })
  @ApiQuery({ name: 'cursor', required: false, type: String, description: 'The `nextCursor` of the previous page, with the same `reason`' })
  @ApiQuery({ name: 'reason', required: false, enum: REASONS as string[] })
  @ApiAnswer(200, 'One page', SuppressionsPageModel)
  @ApiRequestError(403, 'INSUFFICIENT_SCOPE: the key lacks `contacts:read`')
  @ApiRequestError(400, 'INVALID_REQUEST: limit not an integer 1–1000, unknown reason, a cursor that is malformed or was made with another reason, or an unknown query parameter')
  async list(@Caller() caller: CallerIdentity, @Req() req: Request, @Query() query: Record<string, unknown>) {
    // As the other list-style GETs (contacts, events, deliveries): a misspelt filter (`reasons=`)
    // silently ignored would list every suppression, so an unknown parameter is refused.
    const unknown = Object.keys(query).filter((name) => !LIST_PARAMETERS.has(name));
    if (unknown.length > 0) throw invalidRequest(`Unknown query parameter: ${unknown.join(', ')}`);
    const limit = limitOf(query.limit);
    const reason = optionalText(query.reason, 'reason');
    if (reason !== null && !REASONS.includes(reason)) throw invalidRequest(`reason must be one of ${REASONS.join(', ')}`);
    const cursor = optionalText(query.cursor, 'cursor');
    const after = cursor === null ? null : decodeSuppressionCursor(cursor, reason);
    // One more row than asked tells whether a next page exists.
    const rows = await this.service.page(caller.organizationId, { limit: limit + 1, after, reason: reason as SuppressionReason | null });
    const page = rows.slice(0, limit);
    return {
      request_id: requestIdOf(req),
      suppressions: page.map((row) => ({ email: row.email, reason: row.reason, createdAt: new Date(row.createdAt).toISOString() })),
      nextCursor: rows.length > limit ? encodeSuppressionCursor({ after: page[page.length - 1].email, reason }) : null,
    };
  }

  @Delete(':email')
  @RequireScope('admin')
  @ApiOperation({
    operationId: 'unsuppress',
    summary: 'Lift a suppression',
    description:
      'Lifts a bounced or unsubscribed suppression, also an erased (hashed) one. A complained suppression is 409 SUPPRESSION_LOCKED: ' +
      'only the admin command line (`unsuppress`) lifts it, a complaint being the recipient’s own word.',
  })
  @ApiParam({ name: 'email', type: String, description: 'URL-encoded; normalized (trimmed, lowercased)' })
  @ApiAnswer(200, 'Lifted', UnsuppressedModel)
  @ApiRequestError(403, 'INSUFFICIENT_SCOPE: the key lacks the `admin` scope')
  @ApiRequestError(400, 'Broken percent-encoding in the path (INVALID_REQUEST)')
  @ApiRequestError(404, 'SUPPRESSION_NOT_FOUND: the address is not suppressed in this organization, or not a valid email')
  @ApiRequestError(409, 'SUPPRESSION_LOCKED: a complained suppression')
  async lift(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('email') rawEmail: string) {
    const { email } = await this.service.lift(caller.organizationId, rawEmail, { allowComplained: false, requestId: requestIdOf(req) });
    return { request_id: requestIdOf(req), email, status: 'unsuppressed' };
  }
}

/** The shape of POST /api/v2/suppressions; any shape error refuses the whole request (400). */
export function suppressInputsOf(body: unknown): SuppressInput[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be an object { "suppressions": [...] }');
  const unknown = Object.keys(body).filter((key) => key !== 'suppressions');
  if (unknown.length > 0) throw invalidRequest(`Unknown key ${JSON.stringify(unknown[0])}: the body holds only "suppressions"`);
  const rows = (body as { suppressions?: unknown }).suppressions;
  if (rows === undefined) throw invalidRequest('suppressions is required');
  if (!Array.isArray(rows)) throw invalidRequest('suppressions must be an array of { email, reason } objects');
  if (rows.length === 0) throw invalidRequest('suppressions must not be empty');
  if (rows.length > SUPPRESS_BATCH_LIMIT) {
    throw new RequestError(RequestErrorCode.BATCH_LIMIT_EXCEEDED, `A request holds at most ${SUPPRESS_BATCH_LIMIT} suppressions; ${rows.length} were sent`);
  }
  return rows.map((row: unknown, index) => {
    const path = `suppressions[${index}]`;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw invalidRequest(`${path} must be an object`);
    const extra = Object.keys(row).filter((key) => key !== 'email' && key !== 'reason');
    if (extra.length > 0) throw invalidRequest(`${path} has an unknown key ${JSON.stringify(extra[0])}`);
    const { email, reason } = row as { email?: unknown; reason?: unknown };
    if (typeof reason !== 'string' || !REASONS.includes(reason)) {
      throw invalidRequest(`${path}.reason must be one of ${REASONS.join(', ')}`);
    }
    return { email, reason: reason as SuppressionReason };
  });
}

function limitOf(value: unknown): number {
  const text = optionalText(value, 'limit');
  if (text === null) return 100;
  if (!/^[0-9]{1,4}$/.test(text) || Number(text) < 1 || Number(text) > 1000) throw invalidRequest('limit must be an integer from 1 to 1000');
  return Number(text);
}

function optionalText(value: unknown, name: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once, as text`);
  return value;
}
