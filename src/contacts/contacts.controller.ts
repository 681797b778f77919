import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { Public } from '../common/public.decorator';
import { requestIdOf } from '../common/request-id';
import { DomainError } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';
import { StoredResponsesRepository, type Answer } from '../requests/stored-responses.repository';
import type { ContactInput } from './contact-input.shape';
import { type ContactResult, renderBatchResponse, renderContact, renderSingleResponse } from './contact-results';
import { ContactsPipelineService } from './contacts-pipeline.service';
import { ContactsRepository } from './contacts.repository';
import { DryRunPipe } from './dry-run.pipe';
import { BatchContactsDto } from './dto/batch-contacts.dto';
import { CreateContactDto } from './dto/create-contact.dto';
import { isValidEmail, normalizeEmail } from './email';

const contactNotFound = () =>
  new DomainError(RequestErrorCode.CONTACT_NOT_FOUND, 'No contact with this email in this organization');

@Controller('api/v2/contacts')
export class ContactsController {
  constructor(
    private readonly pipeline: ContactsPipelineService,
    private readonly contacts: ContactsRepository,
    private readonly storedResponses: StoredResponsesRepository,
  ) {}

  @Post()
  createOrUpdate(
    @Caller() caller: CallerIdentity,
    @Query('dryRun', DryRunPipe) dryRun: boolean, // checked before the body's shape
    @Body() input: CreateContactDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    return this.answer(caller, req, res, dryRun, [input], (requestId, results) =>
      renderSingleResponse(requestId, results[0], dryRun),
    );
  }

  @Post('batch')
  batch(
    @Caller() caller: CallerIdentity,
    @Query('dryRun', DryRunPipe) dryRun: boolean,
    @Body() body: BatchContactsDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    return this.answer(caller, req, res, dryRun, body.contacts, (requestId, results) =>
      renderBatchResponse(requestId, results, dryRun),
    );
  }

  /**
   * Both POST endpoints: run the one pipeline, render the answer once and, on a real run, store it
   * in the transaction of the writes it reports (GET /requests/{request_id}).
   */
  private async answer(
    caller: CallerIdentity,
    req: Request,
    res: Response,
    dryRun: boolean,
    inputs: ContactInput[],
    render: (requestId: string, results: ContactResult[]) => Answer,
  ): Promise<unknown> {
    const requestId = requestIdOf(req);
    let stored: Answer | undefined;
    const results = await this.pipeline.process(caller.organizationId, inputs, {
      dryRun,
      inTransaction: async (tx, rows) => {
        stored = render(requestId, rows);
        await this.storedResponses.store(tx, caller.organizationId, requestId, stored);
      },
    });
    const { status, body } = stored ?? render(requestId, results);
    res.status(status);
    return body;
  }

  /**
   * `/contacts/batch` is a known path whose only method is POST: another method is an unknown
   * route (404 NOT_FOUND, with or without a key), not a lookup of a contact named "batch".
   */
  @Public()
  @Get('batch')
  batchIsNotReadable(@Req() req: Request): never {
    throw new DomainError(RequestErrorCode.NOT_FOUND, `No route for ${req.method} ${req.path}`);
  }

  /** Express has already percent-decoded the email; broken encoding never reaches here (400). */
  @Get(':email')
  async findOne(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('email') rawEmail: string) {
    const email = normalizeEmail(rawEmail);
    if (!isValidEmail(email)) throw contactNotFound();
    const contact = await this.contacts.findByEmail(caller.organizationId, email);
    if (!contact) throw contactNotFound();
    return { request_id: requestIdOf(req), contact: renderContact(contact) };
  }
}
