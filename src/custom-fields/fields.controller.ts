import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { requestIdOf } from '../common/request-id';
import { CustomFieldsRepository } from './custom-fields.repository';
import { ApiKeyAuth, ApiAnswer } from '../docs/openapi.decorators';
import { FieldsResponse } from './dto/fields-response.dto';
import { STANDARD_FIELD_KEYS, STANDARD_FIELD_MAX_LENGTH } from './field-definitions';

@ApiTags('Organization')
@ApiKeyAuth()
@Controller('api/v2/fields')
export class FieldsController {
  constructor(private readonly customFields: CustomFieldsRepository) {}

  @Get()
  @ApiOperation({ operationId: 'listFields', summary: 'Standard fields and the organization’s custom fields' })
  @ApiAnswer(200, 'The fields', FieldsResponse)
  async findAll(@Caller() caller: CallerIdentity, @Req() req: Request): Promise<FieldsResponse> {
    const custom = await this.customFields.findAll(caller.organizationId);
    return {
      request_id: requestIdOf(req),
      standard: STANDARD_FIELD_KEYS.map((key) => ({ key, type: 'text', maxLength: STANDARD_FIELD_MAX_LENGTH })),
      custom: custom.map((field) => ({
        key: field.key,
        type: field.type,
        required: field.required,
        defaultValue: field.defaultValue ?? null,
        options: field.type === 'select' ? field.options : null,
      })),
    };
  }
}
