import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiQuery, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { isStorableText } from '../common/storable-text';
import { ContactViewModel } from '../contacts/dto/contact-responses.dto';
import { LISTING_FILTER_PARAMETERS, parseListingFilters } from '../contacts/listing/listing-query';
import { Database } from '../database/database';
import { ApiKeyAuth, ApiRequestError, responseHeaders } from '../docs/openapi.decorators';
import { RequestErrorCode } from '../errors/error-codes';
import { invalidRequest, RequestError } from '../errors/request-error';
import { singleQueryValue } from '../validation/list-query';
import { EXPORT_FORMATS, type ExportFormat, type ExportRequest, streamExport, TOO_MANY_EXPORTS_RETRY_AFTER_SECONDS } from './export-stream';

const KNOWN_PARAMETERS = new Set<string>(['format', ...LISTING_FILTER_PARAMETERS]);

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
};

/** The export's query: `format` (default ndjson) and the listing's filters (contract section 17). */
export function parseExportQuery(organizationId: string, query: Record<string, unknown>): ExportRequest {
  const unknown = Object.keys(query).filter((name) => !KNOWN_PARAMETERS.has(name));
  if (unknown.length > 0) throw invalidRequest(`Unknown query parameter: ${unknown.join(', ')}`);
  const format = singleQueryValue(query, 'format') ?? 'ndjson';
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw invalidRequest('format must be ndjson or csv');
  const filters = parseListingFilters(query);
  if (filters.listId !== null && !isStorableText(filters.listId)) {
    throw new RequestError(RequestErrorCode.LIST_NOT_FOUND, 'listId names no list of this organization');
  }
  return { organizationId, filters, format: format as ExportFormat };
}

/** GET /api/v2/contacts/export (docs/api.md, "Exports"). */
@ApiTags('Contacts')
@ApiKeyAuth()
@ApiExtraModels(ContactViewModel)
@Controller('api/v2/contacts/export')
export class ExportsController {
  constructor(private readonly database: Database) {}

  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({
    operationId: 'exportContacts',
    summary: 'Every matching contact of one snapshot, streamed, with the feed cursor of that snapshot',
    description:
      'Ordered by email as the listing, with its filters. `X-Feed-Cursor` is a `GET /api/v2/events` cursor taken at the snapshot: ' +
      "applying the feed's contact.* and suppression.* events from it to the export reproduces the contacts, nothing missed and " +
      'nothing applied twice. A stream the service cannot finish is cut without its last chunk. At most 2 exports stream at ' +
      'once per organization.',
  })
  @ApiQuery({ name: 'format', required: false, schema: { type: 'string', enum: [...EXPORT_FORMATS], default: 'ndjson' } })
  @ApiQuery({ name: 'listId', required: false, type: String, description: 'Members of this list (archived lists too)' })
  @ApiQuery({ name: 'suppressed', required: false, schema: { type: 'string', enum: ['true', 'false'] } })
  @ApiQuery({ name: 'updatedSince', required: false, schema: { type: 'string', format: 'date-time' }, description: 'Contacts with `updatedAt` ≥ it' })
  @ApiResponse({
    status: 200,
    description:
      'NDJSON: one contact per line as GET /contacts/{email} shows it. CSV: header `email,listIds,suppressed,` then the standard ' +
      'fields, then the custom fields in key byte order; `listIds` joined by `;`.',
    content: {
      'application/x-ndjson': { schema: { $ref: getSchemaPath(ContactViewModel) } },
      'text/csv': { schema: { type: 'string' } },
    },
    headers: responseHeaders(true, {
      'X-Feed-Cursor': { description: 'The `after` cursor of GET /api/v2/events at the snapshot', schema: { type: 'string' } },
    }),
  })
  @ApiRequestError(400, 'INVALID_REQUEST: format not ndjson/csv, suppressed not true/false, updatedSince not an ISO 8601 instant, or an unknown or repeated query parameter')
  @ApiRequestError(403, 'INSUFFICIENT_SCOPE: the key lacks `contacts:read`')
  @ApiRequestError(404, 'LIST_NOT_FOUND: listId names no list of this organization')
  @ApiRequestError(
    429,
    'RATE_LIMIT_EXCEEDED (a rate limit), or TOO_MANY_EXPORTS: two exports of the organization are streaming; retry after Retry-After seconds',
    { headers: { 'Retry-After': { description: `Whole seconds (≥ 1); ${TOO_MANY_EXPORTS_RETRY_AFTER_SECONDS} for TOO_MANY_EXPORTS`, schema: { type: 'integer' } } } },
  )
  async export(@Caller() caller: CallerIdentity, @Req() req: Request, @Res() res: Response): Promise<void> {
    const request = parseExportQuery(caller.organizationId, req.query);
    try {
      await streamExport(this.database, request, res, ({ feedCursor }) => {
        res.status(200);
        res.setHeader('Content-Type', EXPORT_CONTENT_TYPES[request.format]);
        res.setHeader('X-Feed-Cursor', feedCursor);
      });
    } catch (error) {
      // Before the first byte: an ordinary error answer (429, 404, 503). After it: the socket is
      // destroyed without the chunked body's last chunk, so no client takes the part for the whole.
      if (!res.headersSent) throw error;
      res.destroy();
    }
  }
}
