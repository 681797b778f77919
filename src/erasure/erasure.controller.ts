import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { requestIdOf } from '../common/request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { NoBody } from '../http-body/no-body';
import { ErasedModel } from './dto/erasure.dto';
import { ErasureService } from './erasure.service';

@ApiTags('Contacts')
@ApiKeyAuth()
@Controller('api/v2/contacts')
export class ErasureController {
  constructor(private readonly erasure: ErasureService) {}

  /** docs/api.md, "Erasing a contact". */
  @Post(':email/erase')
  @HttpCode(200)
  @RequireScope('admin')
  @ApiOperation({
    operationId: 'eraseContact',
    summary: 'Erase an address (right to erasure)',
    description:
      'The normalized path value leaves the database wherever it was stored as an address, valid or not: the contact, its ' +
      'memberships, its suppression’s plaintext (kept only as a keyed hash, so the address stays suppressed: a later create is ' +
      'SUPPRESSED_EMAIL with the reason kept), every stored answer holding it, and the address in every change event (the ' +
      'events stay, redacted: `eventsRedacted`; `contact.erased` is written when a contact existed). An address never seen: 200 ' +
      'with zeros. Takes no ' +
      'body: none, an empty body or `{}`.',
  })
  @ApiParam({ name: 'email', type: String, description: 'URL-encoded; normalized (trimmed, lowercased); need not be a valid email' })
  @ApiAnswer(200, 'Erased', ErasedModel)
  @ApiRequestError(403, 'INSUFFICIENT_SCOPE: the key lacks the `admin` scope')
  @ApiRequestError(400, 'INVALID_REQUEST: a body other than none, empty or `{}`, or broken percent-encoding in the path')
  @ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)')
  async erase(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('email') rawEmail: string, @NoBody() _body: undefined) {
    const outcome = await this.erasure.erase(caller.organizationId, rawEmail, requestIdOf(req));
    return { request_id: requestIdOf(req), status: 'erased', ...outcome };
  }
}
