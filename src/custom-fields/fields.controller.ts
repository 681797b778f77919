import { Body, Controller, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { requestIdOf } from '../common/request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { RequestErrorCode } from '../errors/error-codes';
import { invalidRequest, RequestError } from '../errors/request-error';
import { CustomFieldsRepository } from './custom-fields.repository';
import { CreateFieldDto, UpdateFieldDto } from './dto/field-bodies.dto';
import { FieldResponseModel } from './dto/field-response.dto';
import { FieldsResponse } from './dto/fields-response.dto';
import { checkFieldChange, checkNewField, type FieldCheck } from './field-checks';
import { CUSTOM_FIELD_KEY_PATTERN, STANDARD_FIELD_KEYS, STANDARD_FIELD_MAX_LENGTH } from './field-definitions';
import { renderField } from './field-view';

const bodyErrors =
  'INVALID_REQUEST: wrong Content-Type, malformed JSON, an unknown key, or a value that breaks the field rules (the message names it)';

/** A failed check as the request-level error: 409 for a standard field name, else 400. */
function refusal(check: Extract<FieldCheck<unknown>, { ok: false }>): RequestError {
  return check.conflict
    ? new RequestError(RequestErrorCode.FIELD_KEY_TAKEN, `${check.message}: choose another key`)
    : invalidRequest(check.message);
}

@ApiTags('Organization')
@ApiKeyAuth()
@Controller('api/v2/fields')
export class FieldsController {
  constructor(private readonly customFields: CustomFieldsRepository) {}

  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({ operationId: 'listFields', summary: 'Standard fields and the organization’s custom fields' })
  @ApiAnswer(200, 'The fields', FieldsResponse)
  async findAll(@Caller() caller: CallerIdentity, @Req() req: Request): Promise<FieldsResponse> {
    const custom = await this.customFields.findAll(caller.organizationId);
    return {
      request_id: requestIdOf(req),
      standard: STANDARD_FIELD_KEYS.map((key) => ({ key, type: 'text', maxLength: STANDARD_FIELD_MAX_LENGTH })),
      custom: custom.map(renderField),
    };
  }

  /** docs/api.md, "Custom fields": the checks of `field create`, shared (field-checks.ts). */
  @Post()
  @RequireScope('admin')
  @ApiOperation({
    operationId: 'createField',
    summary: 'Define a custom field',
    description:
      'The rules of the admin command `field create`: key pattern, type, options for select fields only, a default that fits. ' +
      'Existing contacts are not rewritten; a default applies to contacts created or updated from now on.',
  })
  @ApiBody({ type: CreateFieldDto })
  @ApiAnswer(201, 'The new field, as GET /api/v2/fields shows it', FieldResponseModel)
  @ApiRequestError(400, bodyErrors)
  @ApiRequestError(409, 'FIELD_KEY_TAKEN: the organization already has a field with this key, or the key is a standard field name')
  @ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)')
  async create(@Caller() caller: CallerIdentity, @Req() req: Request, @Body() body: CreateFieldDto) {
    const checked = checkNewField(body);
    if (!checked.ok) throw refusal(checked);
    const field = await this.customFields.create(caller.organizationId, checked.value, requestIdOf(req));
    if (field === 'taken') {
      throw new RequestError(RequestErrorCode.FIELD_KEY_TAKEN, `The organization already has a field "${checked.value.key}"`);
    }
    return { request_id: requestIdOf(req), field: renderField(field) };
  }

  /** docs/api.md, "Custom fields": required, default, options (grow only); the type never changes. */
  @Patch(':key')
  @HttpCode(200)
  @RequireScope('admin')
  @ApiOperation({
    operationId: 'updateField',
    summary: 'Change a custom field’s required flag, default or options',
    description:
      'The type never changes; options only grow; a default must fit. Making a field required rewrites no contact: ' +
      'a contact without a value meets the rule (default or REQUIRED_FIELD_MISSING) on its next overwrite.',
  })
  @ApiParam({ name: 'key', type: String, description: 'The field’s key (case-sensitive)' })
  @ApiBody({ type: UpdateFieldDto })
  @ApiAnswer(200, 'The field after the change', FieldResponseModel)
  @ApiRequestError(400, `${bodyErrors}; no known key sent; an option removed; or broken percent-encoding in the path`)
  @ApiRequestError(404, 'FIELD_NOT_FOUND: no custom field with this key in this organization')
  @ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)')
  async update(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('key') key: string, @Body() body: UpdateFieldDto) {
    if (body.required === undefined && body.defaultValue === undefined && body.options === undefined) {
      throw invalidRequest('Send at least one of required, defaultValue, options');
    }
    const notFound = () => new RequestError(RequestErrorCode.FIELD_NOT_FOUND, 'No custom field with this key in this organization');
    // A key no field can have is not looked up: PostgreSQL refuses U+0000 in text (a 500 otherwise).
    if (!CUSTOM_FIELD_KEY_PATTERN.test(key)) throw notFound();
    const result = await this.customFields.update(caller.organizationId, key, (current) => checkFieldChange(current, body), requestIdOf(req));
    if (!result) throw notFound();
    if (!result.ok) throw refusal(result);
    return { request_id: requestIdOf(req), field: renderField(result.value) };
  }
}
