import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { requestIdOf } from '../common/request-id';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { OffersDryRun, parseDryRun } from '../contacts/dry-run.pipe';
import { ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { invalidRequest } from '../errors/request-error';
import { ReadsOwnBody } from '../http-body/read-body.guard';
import { NoBody } from '../http-body/no-body';
import { clientRequestIdOf, isValidClientRequestId, TakesClientRequestId } from '../requests/client-request-id';
import { uploadFormat } from './import-upload';
import { ImportWorker } from './import-worker.service';
import { ImportsService } from './imports.service';

const RESULT_STATUSES: ReadonlySet<string> = new Set(['created', 'updated', 'unchanged', 'failed']);
const LIMIT_DEFAULT = 100;
const LIMIT_MAX = 1000;

function booleanQuery(name: string, value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidRequest(`${name} must be true or false`);
}

function limitOf(value: unknown): number {
  if (value === undefined) return LIMIT_DEFAULT;
  if (typeof value !== 'string' || !/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > LIMIT_MAX) {
    throw invalidRequest(`limit must be a whole number from 1 to ${LIMIT_MAX}`);
  }
  return Number(value);
}

function cursorOf(value: unknown): { createdAt: Date; id: string } | null {
  if (value === undefined) return null;
  const text = typeof value === 'string' ? Buffer.from(value, 'base64url').toString('utf8') : '';
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|(imp_[0-9a-f]{32})$/.exec(text);
  if (!match || Number.isNaN(Date.parse(match[1]))) throw invalidRequest('cursor is not a cursor of this listing');
  return { createdAt: new Date(match[1]), id: match[2] };
}

const encodeCursor = (next: { createdAt: Date; id: string }) => Buffer.from(`${next.createdAt.toISOString()}|${next.id}`).toString('base64url');

@ApiTags('Imports')
@ApiKeyAuth()
@Controller('api/v2/imports')
export class ImportsController {
  constructor(
    private readonly imports: ImportsService,
    private readonly worker: ImportWorker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(202)
  @RequireScope('contacts:write')
  @TakesClientRequestId()
  @OffersDryRun()
  @ReadsOwnBody()
  @ApiOperation({
    operationId: 'createImport',
    summary: 'Import a file of contacts (NDJSON or CSV), applied in the background',
    description: 'Answered once every row is stored durably; each row is then processed as one entry of a batch.',
  })
  @ApiQuery({ name: 'overwrite', required: false, schema: { type: 'string', enum: ['true', 'false'] } })
  @ApiQuery({ name: 'dryRun', required: false, schema: { type: 'string', enum: ['true', 'false'] } })
  @ApiRequestError(400, 'INVALID_REQUEST: media type, charset, encoding, CSV header (naming the column), a file with no row, bad overwrite or dryRun')
  @ApiRequestError(413, 'PAYLOAD_TOO_LARGE: more than IMPORT_MAX_ROWS rows or IMPORT_MAX_BYTES decoded bytes; nothing is kept')
  async create(@Caller() caller: CallerIdentity, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const format = uploadFormat(req, this.config.IMPORT_MAX_BYTES);
    const overwrite = booleanQuery('overwrite', req.query.overwrite);
    const dryRun = parseDryRun(req.query.dryRun);
    const requestId = requestIdOf(req);
    const view = await this.imports.upload(req, {
      organizationId: caller.organizationId,
      requestId,
      clientRequestId: clientRequestIdOf(req),
      format,
      overwrite,
      dryRun,
    });
    this.worker.wake();
    res.setHeader('Location', `/api/v2/imports/${view.id}`);
    return { request_id: requestId, import: view };
  }

  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({ operationId: 'listImports', summary: 'The organization’s imports, newest first' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT } })
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiQuery({ name: 'clientRequestId', required: false, type: String })
  @ApiRequestError(400, 'INVALID_REQUEST: limit, cursor or clientRequestId not valid')
  async findAll(@Caller() caller: CallerIdentity, @Req() req: Request, @Query('clientRequestId') clientRequestId: unknown) {
    if (clientRequestId !== undefined && !isValidClientRequestId(clientRequestId)) {
      throw invalidRequest('clientRequestId must be given once, 1 to 128 characters of A-Z a-z 0-9 . _ : -');
    }
    const page = await this.imports.list(caller.organizationId, limitOf(req.query.limit), cursorOf(req.query.cursor), clientRequestId ?? null);
    return { request_id: requestIdOf(req), imports: page.imports, nextCursor: page.next ? encodeCursor(page.next) : null };
  }

  @Get(':id')
  @RequireScope('contacts:read')
  @ApiOperation({ operationId: 'getImport', summary: 'One import: status, progress and counts' })
  @ApiParam({ name: 'id', type: String })
  @ApiRequestError(404, 'IMPORT_NOT_FOUND')
  async findOne(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string) {
    return { request_id: requestIdOf(req), import: await this.imports.get(caller.organizationId, id) };
  }

  @Get(':id/results')
  @RequireScope('contacts:read')
  @ApiOperation({ operationId: 'getImportResults', summary: 'One NDJSON line per processed row, in file order' })
  @ApiParam({ name: 'id', type: String })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: [...RESULT_STATUSES] } })
  @ApiRequestError(400, 'INVALID_REQUEST: status is no row status')
  @ApiRequestError(404, 'IMPORT_NOT_FOUND')
  async results(@Caller() caller: CallerIdentity, @Param('id') id: string, @Query('status') status: unknown, @Res() res: Response): Promise<void> {
    if (status !== undefined && (typeof status !== 'string' || !RESULT_STATUSES.has(status))) {
      throw invalidRequest('status must be created, updated, unchanged or failed');
    }
    const only = typeof status === 'string' ? status : null;
    await this.imports.streamResults(caller.organizationId, id, only, res);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RequireScope('contacts:write')
  @ApiOperation({ operationId: 'cancelImport', summary: 'Stop an import; applied rows stay applied' })
  @ApiParam({ name: 'id', type: String })
  @ApiRequestError(404, 'IMPORT_NOT_FOUND')
  @ApiRequestError(409, 'IMPORT_FINISHED: the import already ended')
  async cancel(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string, @NoBody() _body: undefined) {
    return { request_id: requestIdOf(req), import: await this.imports.cancel(caller.organizationId, id) };
  }
}
