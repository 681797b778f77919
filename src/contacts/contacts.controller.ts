import { applyDecorators, Body, Controller, Delete, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { Public } from '../common/public.decorator';
import { sendJsonPage } from '../common/json-page-response';
import { requestIdOf } from '../common/request-id';
import { isStorableText } from '../common/storable-text';
import {
  ApiAnswer,
  ApiKeyAuth,
  ApiRequestError,
  CLIENT_REQUEST_ID_HEADER,
  CLIENT_REQUEST_ID_PATTERN,
  schemaRef,
} from '../docs/openapi.decorators';
import { RequestError, noRoute } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { clientRequestIdOf, TakesClientRequestId } from '../requests/client-request-id';
import type { ContactInput } from './contact-input.shape';
import type { ContactsEndpoint } from './contact-results';
import { ContactsPipelineService } from './contacts-pipeline.service';
import { ContactsRepository } from './contacts.repository';
import { DryRunPipe, OffersDryRun } from './dry-run.pipe';
import { BatchContactsDto } from './dto/batch-contacts.dto';
import {
  BatchResponseModel,
  ContactConflict,
  ContactCreated,
  ContactFailure,
  ContactDeletedModel,
  ContactResponseModel,
  ContactsPageModel,
  ContactUnchanged,
  ContactUpdated,
} from './dto/contact-responses.dto';
import { CreateContactDto } from './dto/create-contact.dto';
import { ContactDeletionRepository } from './deletion/contact-deletion.repository';
import { isValidEmail, normalizeEmail } from './email';
import { ContactListingRepository } from './listing/contact-listing.repository';
import { encodeCursor, LISTING_LIMIT_DEFAULT, LISTING_LIMIT_MAX, parseListingQuery } from './listing/listing-query';

const jsonBodyErrors =
  'Wrong Content-Type, malformed or empty JSON, non-UTF-8 body, unsupported Content-Encoding, an invalid ' +
  'X-Client-Request-Id, or wrong shape (the message names the path, e.g. `contacts[3].listIds must be an array of strings`)';

/** What both POST endpoints document besides their bodies (docs/api.md#endpoints, #dry-run, #lost-responses). */
const PostDocs = () =>
  applyDecorators(
    ApiQuery({
      name: 'dryRun',
      required: false,
      type: Boolean,
      description:
        'true: answer exactly what the real call would (statuses, codes, HTTP status) and write nothing. ' +
        'The body then carries `"dryRun": true`, and a would-be created contact has no `id`.',
    }),
    ApiHeader({
      name: 'X-Client-Request-Id',
      required: false,
      description:
        'Optional id of this attempt (1–128 of `A-Z a-z 0-9 . _ : -`), echoed in the response; its stored answer is found ' +
        'with GET /api/v2/requests?clientRequestId=<id> for 24 hours. Not an idempotency key: give each attempt its own.',
      schema: { type: 'string', pattern: CLIENT_REQUEST_ID_PATTERN },
    }),
    ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE); a Content-Length over the limit is refused unread'),
  );

const contactNotFound = () =>
  new RequestError(RequestErrorCode.CONTACT_NOT_FOUND, 'No contact with this email in this organization');

@ApiTags('Contacts')
@ApiKeyAuth()
@ApiExtraModels(ContactUpdated, ContactUnchanged, ContactFailure) // referenced inside oneOf answers
@Controller('api/v2/contacts')
export class ContactsController {
  constructor(
    private readonly pipeline: ContactsPipelineService,
    private readonly contacts: ContactsRepository,
    private readonly listing: ContactListingRepository,
    private readonly deletion: ContactDeletionRepository,
  ) {}

  /** docs/api.md, "Listing contacts": keyset pages by normalized email in byte order. */
  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({
    operationId: 'listContacts',
    summary: 'List contacts, a page at a time',
    description:
      'Ordered by normalized email in byte order. Follow `nextCursor` (with the same filters) to the end to visit every ' +
      'contact that existed for the whole walk exactly once. Filters combine with AND. For complete incremental sync use ' +
      'the event feed, not `updatedSince`.',
  })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: LISTING_LIMIT_MAX, default: LISTING_LIMIT_DEFAULT } })
  @ApiQuery({ name: 'cursor', required: false, type: String, description: 'The `nextCursor` of the previous page (opaque)' })
  @ApiQuery({ name: 'listId', required: false, type: String, description: 'Members of this list (archived lists too)' })
  @ApiQuery({ name: 'suppressed', required: false, schema: { type: 'string', enum: ['true', 'false'] } })
  @ApiQuery({
    name: 'updatedSince',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: 'ISO 8601 instant with an offset (Z or ±hh:mm), from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z; contacts with `updatedAt` ≥ it',
  })
  @ApiAnswer(200, 'One page of contacts', ContactsPageModel)
  @ApiRequestError(
    400,
    'INVALID_REQUEST: limit not an integer from 1 to 1000, suppressed not true/false, updatedSince not an ISO 8601 instant or outside the years 0001–9999 (UTC), ' +
      'an unknown or repeated query parameter, or a cursor that is malformed or was issued for other filters',
  )
  @ApiRequestError(404, 'LIST_NOT_FOUND: listId names no list of this organization')
  async findPage(@Caller() caller: CallerIdentity, @Req() req: Request, @Res() res: Response): Promise<void> {
    const query = parseListingQuery(req.query);
    const { listId } = query.filters;
    const noList = () => new RequestError(RequestErrorCode.LIST_NOT_FOUND, 'No list with this id in this organization');
    if (listId !== null && !isStorableText(listId)) throw noList();
    // The whole page is read (one statement, which also checks listId) before anything is written:
    // a database fault answers 503 as usual.
    const page = await this.listing.page(caller.organizationId, query);
    if (page === null) throw noList();
    const nextCursor = page.more && page.lastEmail !== null ? encodeCursor(page.lastEmail, query.filters) : null;
    // ContactsPageModel, from the contacts PostgreSQL rendered (listing.statements.ts).
    sendJsonPage(res, { requestId: requestIdOf(req), itemsKey: 'contacts', chunks: page.chunks, nextCursor });
  }

  @Post()
  @RequireScope('contacts:write')
  @TakesClientRequestId()
  @OffersDryRun()
  @ApiOperation({
    operationId: 'upsertContact',
    summary: 'Create or update one contact',
    description:
      'Checks, in order: per-IP limit → API key → organization limit → body size → JSON → shape → per-contact rules ' +
      '(the first failing rule is the `code`). Outcomes: absent → created (201); existing with `overwrite: true` → ' +
      'updated or unchanged (200). A per-contact failure is the whole body: 400, or 409 for DUPLICATE_EMAIL and SUPPRESSED_EMAIL.',
  })
  @PostDocs()
  @ApiAnswer(201, 'Created (status `created`)', ContactCreated, { headers: CLIENT_REQUEST_ID_HEADER })
  @ApiAnswer(200, 'Updated or unchanged (status `updated` / `unchanged`)', { oneOf: [schemaRef(ContactUpdated), schemaRef(ContactUnchanged)] }, {
    headers: CLIENT_REQUEST_ID_HEADER,
  })
  @ApiAnswer(400, `A per-contact failure (status \`failed\`), or INVALID_REQUEST: ${jsonBodyErrors}`, {
    oneOf: [schemaRef(ContactFailure), schemaRef('Error400')],
  }, { headers: CLIENT_REQUEST_ID_HEADER })
  @ApiAnswer(409, 'DUPLICATE_EMAIL (exists, overwrite not true) or SUPPRESSED_EMAIL (suppressed, overwrite not true)', ContactConflict, {
    headers: CLIENT_REQUEST_ID_HEADER,
  })
  createOrUpdate(
    @Caller() caller: CallerIdentity,
    @Query('dryRun', DryRunPipe) dryRun: boolean, // checked before the body's shape
    @Body() input: CreateContactDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    return this.answer(caller, req, res, 'single', dryRun, [input]);
  }

  @Post('batch')
  @RequireScope('contacts:write')
  @TakesClientRequestId()
  @OffersDryRun()
  @ApiOperation({
    operationId: 'syncContacts',
    summary: 'Create or update up to 50 contacts',
    description:
      'Each row follows the single endpoint’s rules, plus DUPLICATE_IN_REQUEST for a later row repeating an earlier ' +
      'row’s normalized email. A shape error anywhere refuses the whole request (400) and writes nothing. All ' +
      'successful rows are written in one transaction.',
  })
  @PostDocs()
  @ApiAnswer(200, 'One result per row, in input order, and a summary', BatchResponseModel, { headers: CLIENT_REQUEST_ID_HEADER })
  @ApiRequestError(
    400,
    `INVALID_REQUEST (${jsonBodyErrors}; \`contacts\` missing, not an array or empty) or BATCH_LIMIT_EXCEEDED (more than 50 entries)`,
  )
  batch(
    @Caller() caller: CallerIdentity,
    @Query('dryRun', DryRunPipe) dryRun: boolean,
    @Body() body: BatchContactsDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    return this.answer(caller, req, res, 'batch', dryRun, body.contacts);
  }

  /** Shape in, answer out: the pipeline renders the answer once, stores it with its writes and returns it. */
  private async answer(
    caller: CallerIdentity,
    req: Request,
    res: Response,
    endpoint: ContactsEndpoint,
    dryRun: boolean,
    inputs: ContactInput[],
  ): Promise<unknown> {
    const { answer } = await this.pipeline.process({
      organizationId: caller.organizationId,
      endpoint,
      requestId: requestIdOf(req),
      clientRequestId: clientRequestIdOf(req),
      dryRun,
      inputs,
    });
    res.status(answer.status);
    return answer.body;
  }

  /**
   * `/contacts/batch` is a known path whose only method is POST: another method is an unknown
   * route (404 NOT_FOUND, with or without a key), not a lookup of a contact named "batch".
   */
  @Public()
  @ApiExcludeEndpoint() // answers only 404 NOT_FOUND
  @Get('batch')
  batchIsNotReadable(@Req() req: Request): never {
    throw noRoute(req.method);
  }

  /** Likewise for DELETE: not a deletion of a contact named "batch". */
  @Public()
  @ApiExcludeEndpoint()
  @Delete('batch')
  batchIsNotDeletable(@Req() req: Request): never {
    throw new RequestError(RequestErrorCode.NOT_FOUND, `No route for ${req.method} ${req.path}`);
  }

  /** Express has already percent-decoded the email; broken encoding never reaches here (400). */
  @Get(':email')
  @RequireScope('contacts:read')
  @ApiOperation({ operationId: 'getContact', summary: 'Read one contact' })
  @ApiParam({ name: 'email', type: String, description: 'URL-encoded; normalized (trimmed, lowercased) before lookup' })
  @ApiAnswer(200, 'The contact', ContactResponseModel)
  @ApiRequestError(400, 'Broken percent-encoding in the path (INVALID_REQUEST), checked after the key and the limits')
  @ApiRequestError(404, 'CONTACT_NOT_FOUND: no such contact in this organization, or not a valid email')
  async findOne(@Caller() caller: CallerIdentity, @Req() req: Request, @Res() res: Response, @Param('email') rawEmail: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    if (!isValidEmail(email)) throw contactNotFound();
    const contact = await this.contacts.findJson(caller.organizationId, email);
    if (contact === undefined) throw contactNotFound();
    // ContactResponseModel, around the contact PostgreSQL rendered (contactJsonPart, contacts.statements.ts).
    res.status(200).type('application/json; charset=utf-8').send(`{"request_id":${JSON.stringify(requestIdOf(req))},"contact":${contact}}`);
  }

  /** docs/api.md, "Deleting contacts": the contact and its memberships; its suppression stays. */
  @Delete(':email')
  @RequireScope('contacts:write')
  @ApiOperation({
    operationId: 'deleteContact',
    summary: 'Delete one contact',
    description:
      'Removes the contact and its list memberships. A suppression of the email stays: a later create is SUPPRESSED_EMAIL ' +
      'without `overwrite`. Serialized with creates and updates of the same email.',
  })
  @ApiParam({ name: 'email', type: String, description: 'URL-encoded; normalized (trimmed, lowercased) before lookup' })
  @ApiAnswer(200, 'Deleted', ContactDeletedModel)
  @ApiRequestError(400, 'Broken percent-encoding in the path (INVALID_REQUEST), checked after the key and the limits')
  @ApiRequestError(404, 'CONTACT_NOT_FOUND: no such contact in this organization, or not a valid email')
  async delete(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('email') rawEmail: string) {
    const email = normalizeEmail(rawEmail);
    if (!isValidEmail(email) || !(await this.deletion.deleteByEmail(caller.organizationId, email, requestIdOf(req)))) throw contactNotFound();
    return { request_id: requestIdOf(req), email, status: 'deleted' as const };
  }
}
