import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { requestIdOf } from '../common/request-id';
import { CustomFieldsRepository } from './custom-fields.repository';
import { STANDARD_FIELD_KEYS, STANDARD_FIELD_MAX_LENGTH, type CustomFieldTypeName } from './field-definitions';

export interface StandardFieldView {
  key: string;
  type: 'text';
  maxLength: number;
}

export interface CustomFieldView {
  key: string;
  type: CustomFieldTypeName;
  required: boolean;
  defaultValue: unknown;
  /** The allowed values of a `select` field; null for other types. */
  options: string[] | null;
}

export interface FieldsResponse {
  request_id: string;
  standard: StandardFieldView[];
  custom: CustomFieldView[];
}

@Controller('api/v2/fields')
export class FieldsController {
  constructor(private readonly customFields: CustomFieldsRepository) {}

  @Get()
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
