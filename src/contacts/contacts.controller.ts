import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { Public } from '../common/public.decorator';
import { requestIdOf } from '../common/request-id';
import { DomainError } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';
import type { Answer } from '../requests/stored-responses.repository';
import { type ContactInput, parseBatchBody, parseDryRun, parseSingleContactBody } from './contact-input.shape';
import { type ContactResult, renderBatchResponse, renderContact, renderSingleResponse } from './contact-results';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { isValidEmail, normalizeEmail } from './email';

const contactNotFound = () =>
  new DomainError(RequestErrorCode.CONTACT_NOT_FOUND, 'No contact with this email in this organization');

@Controller('api/v2/contacts')
export class ContactsController {
  constructor(
    private readonly service: ContactsService,
    private readonly contacts: ContactsRepository,
  ) {}

  @Post()
  createOrUpdate(
    @Caller() caller: CallerIdentity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    const dryRun = parseDryRun(req.query.dryRun); // checked before the body's shape
    const input = parseSingleContactBody(req.body);
    return this.answer(caller, req, res, dryRun, [input], (requestId, results) =>
      renderSingleResponse(requestId, results[0], dryRun),
    );
  }

  @Post('batch')
  batch(
    @Caller() caller: CallerIdentity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    const dryRun = parseDryRun(req.query.dryRun);
    const inputs = parseBatchBody(req.body);
    return this.answer(caller, req, res, dryRun, inputs, (requestId, results) =>
      renderBatchResponse(requestId, results, dryRun),
    );
  }

  /** Shape in, answer out: the pipeline, the rendering and the stored answer live in ContactsService. */
  private async answer(
    caller: CallerIdentity,
    req: Request,
    res: Response,
    dryRun: boolean,
    inputs: ContactInput[],
    render: (requestId: string, results: ContactResult[]) => Answer,
  ): Promise<unknown> {
    const { status, body } = await this.service.submit(caller.organizationId, requestIdOf(req), dryRun, inputs, render);
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
